/**
 * Payee bank accounts signed by payroll (docs/gaps.md#payouts): a pay profile's bank_account, set
 * by the import or PATCH /v1/pay_profiles/{id}, is recorded on the payslip and signed into the run's
 * payout instruction, so executing the run submits it to payouts by reaction with no client carrying
 * it (spec 1 rule 10); the run then reaches completed or partially_settled (spec 2.9).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueClient } from '../../actors/accounts/index.ts';
import { startHarness, type Harness } from '../../support/http.ts';
import { calculatedRun, jsonRow, key, ngn } from '../payroll/support.ts';
import { account, fund, livePassports, post, row } from './support.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

type Org = { key: string; org: string };

/** Imports payees, each with the sandbox account of its tag (null: no account). */
async function importWithAccounts(o: Org, payees: Array<{ ref: string; tag: string | null; name?: string }>) {
  const rows = payees.map((p, i) => ({ ...jsonRow(row(p.ref)), ...(p.tag === null ? {} : { bank_account: { ...account(p.tag, i), ...(p.name ? { account_name: p.name } : {}) } }) }));
  const r = await h.request('POST', '/v1/payroll/imports', { key: o.key, idempotencyKey: key(), body: { format: 'json', rows, employer: { headcount: 10, turnover_50m_or_more: false, maker_checker_threshold: ngn(0) } } });
  expect(r.status, r.text).toBe(201);
  expect(r.body.status, JSON.stringify(r.body.validation)).toBe('completed');
  return r.body as { rows: Array<{ payee_ref: string; pay_profile_id: string }> };
}

/** Calculates, submits, has a second person approve (maker-checker above a 0 threshold), executes. */
async function executedBySecondPerson(o: Org, period = '2026-01') {
  const run = await calculatedRun(h, o.key, period);
  expect((await post(h, o.key, `/v1/payroll/runs/${run.id}/submit`)).status).toBe(200);
  const client = await issueClient(h.platform, { org: o.org, name: 'checker', scopes: ['run:read', 'run:approve'] });
  const token = await h.request('POST', '/v1/oauth/token', { body: { grant_type: 'client_credentials', client_id: client.id, client_secret: client.client_secret } });
  expect(token.status, token.text).toBe(200);
  const approved = await post(h, token.body.access_token, `/v1/payroll/runs/${run.id}/approve`);
  expect(approved.status, approved.text).toBe(200);
  expect(approved.body.approved_by).not.toBe(approved.body.prepared_by);
  const ex = await post(h, o.key, `/v1/payroll/runs/${run.id}/execute`);
  expect(ex.status, ex.text).toBe(200);
  await h.platform.system.settle();
  return run as { id: string };
}

const instructionsOf = async (o: Org, runId: string) => (await h.request('GET', `/v1/payouts/instructions?run_id=${runId}`, { key: o.key })).body.data as any[];
const runOf = async (o: Org, id: string) => (await h.request('GET', `/v1/payroll/runs/${id}`, { key: o.key })).body;

const payoutsOf = async (o: Org, instructionId: string) => (await h.request('GET', `/v1/payouts/payouts?instruction_id=${instructionId}`, { key: o.key })).body.data as any[];

/** Settles the platform (reactions, the link's steps, rails answering) until the run reaches `status`; nobody calls payouts. */
async function untilRun(o: Org, runId: string, status: string) {
  for (let i = 0; i < 20 && (await runOf(o, runId)).status !== status; i++) await h.platform.system.settle();
  expect((await runOf(o, runId)).status).toBe(status);
}

describe('bank accounts on pay profiles (docs/gaps.md#payouts)', () => {
  it('a bank_account is set by the import and by PATCH /v1/pay_profiles/{id}, shown by its last four digits only', async () => {
    const o = await h.register();
    const imported = await importWithAccounts(o, [{ ref: 'a1', tag: '10', name: 'Ada Obi' }, { ref: 'a2', tag: null }]);
    const [p1, p2] = imported.rows.map((r) => r.pay_profile_id);
    const a1 = account('10', 0);
    const got = (await h.request('GET', `/v1/pay_profiles/${p1}`, { key: o.key })).body;
    expect(got.bank_account).toEqual({ bank_code: '058', account_number_last4: a1.account_number.slice(-4), account_name: 'Ada Obi' });
    expect(JSON.stringify(got)).not.toContain(a1.account_number);
    expect((await h.request('GET', `/v1/pay_profiles/${p2}`, { key: o.key })).body.bank_account).toBeNull();
    const a2 = account('11', 1);
    const patched = await h.request('PATCH', `/v1/pay_profiles/${p2}`, { key: o.key, body: { bank_account: a2 } });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.bank_account).toEqual({ bank_code: '058', account_number_last4: a2.account_number.slice(-4), account_name: null });
    const cleared = await h.request('PATCH', `/v1/pay_profiles/${p2}`, { key: o.key, body: { bank_account: null } });
    expect(cleared.body.bank_account).toBeNull();
  });

  it('a bank_account not of the format (3- or 5-digit CBN code, 10-digit account) is refused by PATCH and named in the import report', async () => {
    const o = await h.register();
    const imported = await importWithAccounts(o, [{ ref: 'b1', tag: null }]);
    const pid = imported.rows[0].pay_profile_id;
    for (const bad of [{ bank_code: '58', account_number: '0123456789' }, { bank_code: '058', account_number: '12345' }, { bank_code: '058' }]) {
      const r = await h.request('PATCH', `/v1/pay_profiles/${pid}`, { key: o.key, body: { bank_account: bad } });
      expect(r.status, r.text).toBe(400);
    }
    const rows = [{ ...jsonRow(row('b2')), bank_account: { bank_code: '0581', account_number: '01234x6789' } }];
    const r = await h.request('POST', '/v1/payroll/imports', { key: o.key, idempotencyKey: key(), body: { format: 'json', rows } });
    expect(r.status, r.text).toBe(201);
    expect(r.body.status).toBe('rejected');
    const fields = r.body.validation.entries.map((e: { field: string }) => e.field);
    expect(fields).toEqual(expect.arrayContaining(['/rows/0/bank_account/bank_code', '/rows/0/bank_account/account_number']));
  });

  it('the CSV import takes the account in bank_code, account_number and account_name columns', async () => {
    const o = await h.register();
    const a = account('10', 3);
    const csv = `payee_ref,monthly_basic,state_of_residence,starts_on,bank_code,account_number,account_name\ncsv1,40000000,NG-LA,2025-06-01,${a.bank_code},${a.account_number},Chidi Eze\ncsv2,40000000,NG-LA,2025-06-01,,,\n`;
    const r = await h.request('POST', '/v1/payroll/imports', { key: o.key, idempotencyKey: key(), body: { format: 'csv', csv } });
    expect(r.status, r.text).toBe(201);
    expect(r.body.status, JSON.stringify(r.body.validation)).toBe('completed');
    const [p1, p2] = r.body.rows.map((x: { pay_profile_id: string }) => x.pay_profile_id);
    expect((await h.request('GET', `/v1/pay_profiles/${p1}`, { key: o.key })).body.bank_account).toEqual({ bank_code: '058', account_number_last4: a.account_number.slice(-4), account_name: 'Chidi Eze' });
    expect((await h.request('GET', `/v1/pay_profiles/${p2}`, { key: o.key })).body.bank_account).toBeNull();
  });
});

describe('executing a run submits its signed instruction by reaction (spec 1 rule 10, 2.9)', () => {
  it('the payee accounts are inside the signed bytes of the run\u2019s payout instruction', async () => {
    const o = await h.register();
    await importWithAccounts(o, [{ ref: 's1', tag: '10', name: 'Ngozi Ade' }]);
    const run = await executedBySecondPerson(o);
    const signed = (await h.request('GET', `/v1/payroll/runs/${run.id}/payout_instruction`, { key: o.key })).body;
    const line = JSON.parse(signed.document).lines[0];
    expect(line).toMatchObject({ payee_ref: 's1', ...account('10', 0), account_name: 'Ngozi Ade' });
  });

  it('a funded run completes with no call after execute: its instruction is planned and executed by reaction (docs/gaps.md#payouts "Paid by reaction"; spec 2.9)', async () => {
    const o = await h.register();
    const payees = [{ ref: 'e1', tag: '10' }, { ref: 'e2', tag: '91' }, { ref: 'e3', tag: '11' }];
    await importWithAccounts(o, payees);
    await livePassports(h, o.org, payees.map((p) => p.ref));
    await fund(h, o.key, 1_000_000_000_000);
    const run = await executedBySecondPerson(o);
    await untilRun(o, run.id, 'completed');
    const [instr] = await instructionsOf(o, run.id);
    expect(instr).toMatchObject({ status: 'settled', progress: { settled: 3 }, next_action: null });
    expect(instr.route_plan_id).toMatch(/^route_multi_rail_route_plan_/);
    expect((await runOf(o, run.id)).next_action).toBeNull();
    const evs = (await h.request('GET', '/v1/payroll/events?limit=100', { key: o.key })).body.data.map((e: { type: string }) => e.type);
    expect(evs).toContain('payroll.run.completed');
  });

  it('an unfunded run waits with next_action fund_account naming the amount short, and completes after a deposit (docs/gaps.md "next_action")', async () => {
    const o = await h.register();
    const payees = [{ ref: 'u1', tag: '10' }, { ref: 'u2', tag: '11' }];
    await importWithAccounts(o, payees);
    await livePassports(h, o.org, payees.map((p) => p.ref));
    await fund(h, o.key, 1_000);
    const run = await executedBySecondPerson(o);
    const [instr] = await instructionsOf(o, run.id);
    const short = instr.total.amount - 1_000;
    expect(instr).toMatchObject({ status: 'funding_pending', next_action: { code: 'fund_account', call: { method: 'POST', path: '/v1/payouts/funding_account/deposits' }, details: { amount_short: { amount: short, currency: 'NGN' } } } });
    const waiting = await runOf(o, run.id);
    expect(waiting.status).toBe('executing');
    expect(waiting.next_action).toEqual(instr.next_action);
    await fund(h, o.key, short);
    await untilRun(o, run.id, 'completed');
    expect((await instructionsOf(o, run.id))[0]).toMatchObject({ status: 'settled', next_action: null });
  });

  it('a payee every rail refuses (sandbox account 92) leaves the run partially_settled', async () => {
    const o = await h.register();
    const payees = [{ ref: 'f1', tag: '10' }, { ref: 'f2', tag: '92' }];
    await importWithAccounts(o, payees);
    await livePassports(h, o.org, payees.map((p) => p.ref));
    await fund(h, o.key, 1_000_000_000_000);
    const run = await executedBySecondPerson(o);
    await untilRun(o, run.id, 'partially_settled');
    expect((await instructionsOf(o, run.id))[0].status).toBe('partially_settled');
  });

  it('a payee without a passport is a finding at calculation, before approval (docs/gaps.md#payroll "Where pay goes"; spec 4.3 gating)', async () => {
    const o = await h.register();
    await importWithAccounts(o, [{ ref: 'n1', tag: '10' }, { ref: 'n2', tag: '11' }]);
    await livePassports(h, o.org, ['n1']);
    const run = await calculatedRun(h, o.key, '2026-01');
    const findings = (await h.request('GET', `/v1/payroll/runs/${run.id}/findings?limit=100`, { key: o.key })).body.data;
    expect(findings.filter((f: any) => f.code === 'payee_passport_not_live').map((f: any) => [f.payee_ref, f.severity, f.status])).toEqual([['n2', 'p1', 'open']]);
    expect(run.status).toBe('simulated');
  });

  it('a held payout is released when the passport goes live: identity’s passport.issued clears the cause and the run completes (docs/gaps.md#payouts "Held payouts")', async () => {
    const o = await h.register();
    await importWithAccounts(o, [{ ref: 'p1', tag: '10' }, { ref: 'p2', tag: '11' }]);
    await livePassports(h, o.org, ['p1']);
    await fund(h, o.key, 1_000_000_000_000);
    const run = await executedBySecondPerson(o);
    const [instr] = await instructionsOf(o, run.id);
    const held = (await payoutsOf(o, instr.id)).find((p) => p.payee_ref === 'p2');
    expect(held).toMatchObject({ status: 'held', held_reason: 'passport_not_live', attempt_count: 0, next_action: { code: 'verify_payee_identity' } });
    expect(await runOf(o, run.id)).toMatchObject({ status: 'executing', next_action: { code: 'verify_payee_identity', details: { held_count: 1, held_for_passport: 1 } } });
    await livePassports(h, o.org, ['p2']);
    await untilRun(o, run.id, 'completed');
    const released = (await payoutsOf(o, instr.id)).find((p) => p.payee_ref === 'p2');
    expect(released).toMatchObject({ status: 'settled', held_reason: null, attempt_count: 1, next_action: null });
  });

  it('a payee without a bank account is a p1 finding at calculation; the payout is held and released when PATCH /v1/pay_profiles/{id} adds one', async () => {
    const o = await h.register();
    const payees = [{ ref: 'g1', tag: '10' }, { ref: 'g2', tag: null }];
    const imported = await importWithAccounts(o, payees);
    await livePassports(h, o.org, payees.map((p) => p.ref));
    await fund(h, o.key, 1_000_000_000_000);
    const run = await executedBySecondPerson(o);
    const findings = (await h.request('GET', `/v1/payroll/runs/${run.id}/findings?limit=100`, { key: o.key })).body.data;
    expect(findings).toEqual(expect.arrayContaining([expect.objectContaining({ code: 'bank_account_missing', severity: 'p1', payee_ref: 'g2' })]));
    const [instr] = await instructionsOf(o, run.id);
    const profileId = imported.rows[1].pay_profile_id;
    expect((await payoutsOf(o, instr.id)).find((p) => p.payee_ref === 'g2')).toMatchObject({ status: 'held', held_reason: 'no_bank_account', attempt_count: 0, next_action: { code: 'add_payee_account', call: { method: 'PATCH', path: `/v1/pay_profiles/${profileId}` } } });
    expect((await runOf(o, run.id)).next_action).toMatchObject({ code: 'add_payee_account', details: { held_for_account: 1 } });
    const patched = await h.request('PATCH', `/v1/pay_profiles/${profileId}`, { key: o.key, body: { bank_account: account('11', 7) } });
    expect(patched.status, patched.text).toBe(200);
    await untilRun(o, run.id, 'completed');
    expect((await payoutsOf(o, instr.id)).find((p) => p.payee_ref === 'g2')).toMatchObject({ status: 'settled', account: { bank_code: '058', account_number_last4: `******${account('11', 7).account_number.slice(-4)}` } });
  });

  it('a run none of whose payees has an account submits nothing and says so: next_action add_payee_account (docs/gaps.md#payouts)', async () => {
    const o = await h.register();
    await importWithAccounts(o, [{ ref: 'z1', tag: null }, { ref: 'z2', tag: null }]);
    await livePassports(h, o.org, ['z1', 'z2']);
    const run = await executedBySecondPerson(o);
    expect(await instructionsOf(o, run.id)).toEqual([]);
    expect(await runOf(o, run.id)).toMatchObject({ status: 'executing', next_action: { code: 'add_payee_account', call: { method: 'PATCH', path: '/v1/pay_profiles/{pay_profile_id}' } } });
  });

  it('an account failing the NUBAN check digit passes payroll\u2019s format check and payouts quarantines the run\u2019s instruction integrity_mismatch', async () => {
    const o = await h.register();
    const imported = await importWithAccounts(o, [{ ref: 'q1', tag: '10' }]);
    const good = account('10', 0).account_number;
    const broken = `${good.slice(0, 9)}${(Number(good[9]) + 1) % 10}`;
    const r = await h.request('PATCH', `/v1/pay_profiles/${imported.rows[0].pay_profile_id}`, { key: o.key, body: { bank_account: { bank_code: '058', account_number: broken } } });
    expect(r.status, r.text).toBe(200);
    const run = await executedBySecondPerson(o);
    const [instr] = await instructionsOf(o, run.id);
    expect(instr).toMatchObject({ status: 'quarantined', quarantine_reason: 'integrity_mismatch' });
    expect(JSON.stringify(instr.quarantine_findings)).toContain('nuban_check_failed');
  });
});
