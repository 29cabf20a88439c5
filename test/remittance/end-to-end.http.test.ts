/**
 * The remittance module end to end (spec 2.10, 3 "Remittance instruction set", 4.9, 8; spec 1
 * rule 10): register, import payees, run payroll, approve, execute; the run's instruction set
 * appears; accept it; remit it (approved by a second person); every leg is paid through the
 * payouts module on the sandbox rails; the authorities' receipts are vaulted; each leg's schedule is
 * approved and submitted; the period's reconciliation is clean and its audit export holds it all.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueClient } from '../../actors/accounts/index.ts';
import { runSetIdOf } from '../../actors/remittance/index.ts';
import { startHarness, type Harness } from '../../support/http.ts';
import { calculatedRun, importPayees, type PayeeRow } from '../payroll/support.ts';
import { advanceUntil, fund, get, legsOf, post } from './remit-support.ts';

/** Cluster stores on a shared two-core machine: a flow of many requests and clock steps needs more than the default 30 s. */
const SLOW = 180_000;

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.close());

function payee(ref: string, state: string, pfa: string, nhf: boolean): PayeeRow {
  return { payee_ref: ref, monthly_basic: 40_000_000, monthly_housing: 10_000_000, monthly_transport: 5_000_000, monthly_other_allowances: 0, state_of_residence: state, nhf_contributing: nhf, pension_administrator: pfa };
}

type Org = Awaited<ReturnType<Harness['register']>>;

/** Payroll: calculate, submit, approve (second person), execute; the run's instruction set appears by reaction and is accepted. Answers the set's id and total. */
async function acceptedSetOfRun(o: Org, token: string): Promise<{ setId: string; setTotal: number }> {
  const run = await calculatedRun(h, o.key, '2026-03');
  expect((await post(h, o.key, `/v1/payroll/runs/${run.id}/submit`)).status).toBe(200);
  const approvedRun = await post(h, token, `/v1/payroll/runs/${run.id}/approve`);
  expect(approvedRun.status, approvedRun.text).toBe(200);
  const executed = await post(h, o.key, `/v1/payroll/runs/${run.id}/execute`);
  expect(executed.status, executed.text).toBe(200);
  await h.platform.system.settle();

  const setId = runSetIdOf(o.org, run.id);
  let set: any;
  await advanceUntil(h, async () => (set = await get(h, o.key, `/v1/remittance/instruction_sets/${setId}`)).status === 200 && set.body.status === 'pending_acceptance', 1_000, 50);
  expect(set.body, set.text).toMatchObject({ status: 'pending_acceptance', source: 'run', run_id: run.id, period: '2026-03' });
  const accepted = await post(h, o.key, `/v1/remittance/instruction_sets/${setId}/accept`);
  expect(accepted.status, accepted.text).toBe(200);
  return { setId, setTotal: accepted.body.instructions.totals.total.amount as number };
}

/** Remit: made by the preparer, approved by the checker (not the preparer), executed; every leg paid through payouts, its receipt vaulted. Answers the legs. */
async function paidLegs(o: Org, token: string, setId: string, setTotal: number): Promise<any[]> {
  const rem = await post(h, o.key, '/v1/remittance/remittances', { instruction_set_id: setId });
  expect(rem.status, rem.text).toBe(201);
  expect(rem.body.total.amount).toBe(setTotal);
  expect((await post(h, o.key, `/v1/remittance/remittances/${rem.body.id}/approve`)).status).toBe(409);
  const approved = await post(h, token, `/v1/remittance/remittances/${rem.body.id}/approve`);
  expect(approved.status, approved.text).toBe(200);
  await fund(h, o, setTotal);
  const ex = await post(h, o.key, `/v1/remittance/remittances/${rem.body.id}/execute`);
  expect(ex.status, ex.text).toBe(200);

  await advanceUntil(h, async () => (await get(h, o.key, `/v1/remittance/remittances/${rem.body.id}`)).body.status === 'completed');
  const legs = await legsOf(h, o, rem.body.id);
  const levies = new Set(legs.map((l) => l.levy));
  expect(levies.has('paye') && levies.has('pension')).toBe(true);
  expect(legs.filter((l) => l.levy === 'paye').map((l) => l.jurisdiction).sort()).toEqual(['NG-FC', 'NG-KN', 'NG-LA']);
  expect(legs.reduce((a, l) => a + l.amount.amount, 0)).toBe(setTotal);
  for (const l of legs) {
    expect(l.status).toBe('completed');
    const instr = (await get(h, o.key, `/v1/payouts/instructions/${l.payout_instruction_id}`)).body;
    expect(instr).toMatchObject({ source: 'remit', remittance_id: rem.body.id, status: 'settled', signature_verified: true, total: l.amount });
    const receipt = (await get(h, o.key, `/v1/remittance/receipts/${l.receipt_id}`)).body;
    expect(receipt).toMatchObject({ status: 'vaulted', leg_id: l.id, source: 'authority_sandbox', parsed: { amount: l.amount, period: '2026-03', payment_reference: l.payout_instruction_id } });
  }
  return legs;
}

/** Each leg's monthly schedule: rows from the payslips, approved by the checker, acknowledged by the authority's sandbox. */
async function filedReturns(o: Org, token: string, legs: any[]): Promise<void> {
  for (const l of legs) {
    const ret = (await get(h, o.key, `/v1/remittance/returns/${l.return_id}`)).body;
    expect(ret).toMatchObject({ object: 'remittance_return', status: 'pending_approval', authority_id: l.authority_id, period: '2026-03', rows_available: true, total: l.amount });
    const rowSum = ret.sections.reduce((a: number, s: any) => a + s.rows.reduce((b: number, r: any) => b + r.amount.amount, 0), 0);
    expect(rowSum).toBe(l.amount.amount);
    expect((await post(h, token, `/v1/remittance/returns/${ret.id}/approve`)).status).toBe(200);
    const filed = await post(h, o.key, `/v1/remittance/returns/${ret.id}/submit`);
    expect(filed.status, filed.text).toBe(200);
    expect(filed.body.status, JSON.stringify(filed.body.rejection_reasons)).toBe('submitted');
    expect(filed.body.acknowledgement_no).toMatch(/^ACK-/);
  }
}

/** The period's obligations, legs and receipts agree, and one audit file holds them with their hashes. */
async function periodReconciledAndAudited(o: Org, setTotal: number, legs: any[]): Promise<void> {
  const recon = await get(h, o.key, '/v1/remittance/reconciliations?period=2026-03');
  expect(recon.status, recon.text).toBe(200);
  expect(recon.body, JSON.stringify(recon.body.lines.filter((x: any) => x.status !== 'matched'))).toMatchObject({ object: 'remittance_reconciliation', period: '2026-03', clean: true, unfinished_legs: [], quarantined_receipts: [] });
  expect(recon.body.totals.obligated.amount).toBe(setTotal);
  expect(recon.body.totals.paid.amount).toBe(setTotal);
  expect(recon.body.totals.receipted.amount).toBe(setTotal);

  const audit = await get(h, o.key, '/v1/remittance/audit_exports?period=2026-03');
  expect(audit.status, audit.text).toBe(200);
  expect(audit.body.counts).toMatchObject({ instruction_sets: 1, remittances: 1, legs: legs.length, receipts: legs.length, returns: legs.length });
  expect(audit.body.content_hash).toMatch(/^sha256:[0-9a-f]{64}$/);
  expect(audit.body.receipts.every((r: any) => /^sha256:/.test(r.document_sha256))).toBe(true);
  const again = await get(h, o.key, '/v1/remittance/audit_exports?period=2026-03');
  expect(again.body.content_hash).toBe(audit.body.content_hash);
}

describe('spec 3 Remittance: end to end', () => {
  it('spec 3: payroll run to remittance: every leg paid through payouts on sandbox rails, receipts vaulted, returns filed, the period\u2019s reconciliation clean', async () => {
    const o = await h.register();
    // Payees in three States, two PFAs; a maker-checker threshold of zero: every approval needs a second person.
    const rows = [payee('e1', 'NG-LA', 'pfa_stanbic_ibtc', true), payee('e2', 'NG-LA', 'pfa_leadway_pensure', false), payee('e3', 'NG-KN', 'pfa_stanbic_ibtc', true), payee('e4', 'NG-FC', 'pfa_leadway_pensure', false), payee('e5', 'NG-FC', 'pfa_stanbic_ibtc', false)];
    await importPayees(h, o.key, rows, { headcount: 10, turnover_50m_or_more: false, maker_checker_threshold: 0 });
    const client = await issueClient(h.platform, { org: o.org, name: 'finance checker', scopes: ['run:read', 'run:approve', 'remit:read', 'remit:approve'] });
    const token = (await h.request<any>('POST', '/v1/oauth/token', { body: { grant_type: 'client_credentials', client_id: client.id, client_secret: client.client_secret } })).body.access_token as string;

    const { setId, setTotal } = await acceptedSetOfRun(o, token);
    const legs = await paidLegs(o, token, setId, setTotal);
    await filedReturns(o, token, legs);
    await periodReconciledAndAudited(o, setTotal, legs);
  }, SLOW);
});
