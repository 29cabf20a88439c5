/**
 * Remittance instruction sets (spec 2.10, 3 "Remittance instruction set", 4.9): from an executed
 * run by reaction, from the API and from a CSV file; received -> validating -> pending_acceptance
 * with the report naming every line -> accepted or rejected; nothing committed until accepted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorityIdFor } from '../../actors/payroll/index.ts';
import { payeAuthorityFor, pensionAdministrator, runSetIdOf } from '../../actors/remittance/index.ts';
import { Obligation } from '../../actors/remittance/authorities/index.ts';
import { IngestedInstructionSet } from '../../actors/remittance/intake/index.ts';
import { roundTrip } from '../../runtime/index.ts';
import { startHarness, type Harness, type Registered } from '../../support/http.ts';
import { until } from '../../support/until.ts';
import { executedRun, importPayees, key, type PayeeRow } from '../payroll/support.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.close());

const ngn = (amount: number) => ({ amount, currency: 'NGN' });
const post = (k: string, path: string, body: unknown = {}, idempotencyKey = key()) => h.request('POST', path, { key: k, idempotencyKey, body });
const get = (k: string, path: string) => h.request('GET', path, { key: k });

function payee(ref: string, state: string, pfa: string | null = 'pfa_stanbic_ibtc', nhf = false): PayeeRow {
  return { payee_ref: ref, monthly_basic: 40_000_000, monthly_housing: 10_000_000, monthly_transport: 5_000_000, monthly_other_allowances: 0, state_of_residence: state, nhf_contributing: nhf, pension_administrator: pfa };
}

/** An external set for January 2026 that adds up: Lagos and Kano PAYE, one PFA, NHF. */
function externalSet(over: Partial<{ pfa: string; total: number; period: string; run_id: string | null }> = {}) {
  const paye = [
    { jurisdiction: 'NG-LA', amount: ngn(1_000_000), payee_count: 2, reconciliation_reference: 'ext:paye:NG-LA' },
    { jurisdiction: 'NG-KN', amount: ngn(500_000), payee_count: 1, reconciliation_reference: 'ext:paye:NG-KN' },
  ];
  const pension = [{ administrator_id: over.pfa ?? 'pfa_leadway_pensure', employee_amount: ngn(800_000), employer_amount: ngn(1_000_000), amount: ngn(1_800_000), reconciliation_reference: 'ext:pension' }];
  const levies = [{ code: 'nhf', amount: ngn(250_000), reconciliation_reference: 'ext:nhf' }, { code: 'nsitf', amount: ngn(0), reconciliation_reference: 'ext:nsitf' }];
  return { period: over.period ?? '2026-01', pay_date: '2026-01-28', ...(over.run_id !== undefined ? { run_id: over.run_id } : {}), instructions: { paye, pension, levies, totals: { total: ngn(over.total ?? 3_550_000) } } };
}

describe('spec 3 Remittance instruction set: the state machine', () => {
  let o: Registered;
  beforeAll(async () => {
    o = await h.register();
  });

  it('spec 3: a submission is received, validated line by line, and returned pending_acceptance with the report naming every line', async () => {
    const r = await post(o.key, '/v1/remittance/instruction_sets', externalSet());
    expect(r.status, r.text).toBe(201);
    expect(r.body).toMatchObject({ object: 'ingested_instruction_set', status: 'pending_acceptance', source: 'external_api', period: '2026-01', run_id: null, livemode: false, mocked: false });
    expect(r.body.id).toMatch(/^remit_authority_rail_instruction_/);
    const rep = r.body.validation_report;
    // 2 PAYE + 1 pension + 2 levies + the totals line
    expect(rep.entry_count).toBe(6);
    expect(rep.error_count).toBe(0);
    expect(rep.lines_checked.map((l: any) => [l.index, l.section])).toEqual([[1, 'paye'], [2, 'paye'], [3, 'pension'], [4, 'levy'], [5, 'levy'], [6, 'totals']]);
    expect(rep.entries.find((e: any) => e.index === 5)).toMatchObject({ severity: 'warning', code: 'nothing_to_remit' });
    const lagos = r.body.instructions.paye[0];
    expect(lagos).toMatchObject({ authority_id: authorityIdFor('NG-LA'), authority_name: 'Lagos State Internal Revenue Service', due_date: '2026-02-10' });
    expect(r.body.instructions.pension[0]).toMatchObject({ authority_id: pensionAdministrator('pfa_leadway_pensure')!.id, due_date: '2026-02-06' });
    expect(r.body.instructions.levies.map((l: any) => l.due_date)).toEqual(['2026-02-28', null]);
  });

  it('spec 6: every transition of a set is a public event of source remit', async () => {
    const r = await post(o.key, '/v1/remittance/instruction_sets', externalSet());
    const want = ['remit.instruction_set.received', 'remit.instruction_set.validation_started', 'remit.instruction_set.validated'];
    let types: string[] = [];
    // The event list follows the journal feed (in a cluster, a moment after the commit).
    await until(async () => {
      await h.platform.system.settle();
      const events = await get(o.key, `/v1/remittance/events?limit=100`);
      expect(events.status, events.text).toBe(200);
      types = events.body.data.filter((e: any) => e.data?.id === r.body.id).map((e: any) => e.type);
      return want.every((t) => types.includes(t));
    }, 10_000);
    expect(types).toEqual(expect.arrayContaining(want));
  });

  it('spec 3: accept is refused while a discrepancy is unresolved, and succeeds after an override with a published reason code', async () => {
    const r = await post(o.key, '/v1/remittance/instruction_sets', externalSet({ pfa: 'pfa_nowhere' }));
    expect(r.status, r.text).toBe(201);
    expect(r.body.validation_report.error_count).toBe(1);
    // docs/gaps.md "next_action": the set says what it waits for.
    expect(r.body.next_action).toMatchObject({ code: 'resolve_discrepancies', details: { open_discrepancies: 1 } });
    const list = await get(o.key, `/v1/remittance/instruction_sets/${r.body.id}/discrepancies`);
    expect(list.body.data).toHaveLength(1);
    const d = list.body.data[0];
    expect(d).toMatchObject({ object: 'remittance_discrepancy', code: 'unknown_pension_administrator', status: 'open', line: { index: 3, section: 'pension' } });

    const refused = await post(o.key, `/v1/remittance/instruction_sets/${r.body.id}/accept`);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('conflict');
    expect(JSON.stringify(refused.body)).toContain(d.id);

    const unknownCode = await post(o.key, `/v1/remittance/instruction_sets/${r.body.id}/discrepancies/${d.id}/override`, { reason_code: 'because' });
    expect(unknownCode.status).toBe(400);
    const noNote = await post(o.key, `/v1/remittance/instruction_sets/${r.body.id}/discrepancies/${d.id}/override`, { reason_code: 'other' });
    expect(noNote.status).toBe(400);
    const codes = (await get(o.key, '/v1/remittance/reason_codes')).body.data.filter((c: any) => c.kind === 'override').map((c: any) => c.code);
    expect(codes).toContain('confirmed_with_employee');

    const over = await post(o.key, `/v1/remittance/instruction_sets/${r.body.id}/discrepancies/${d.id}/override`, { reason_code: 'confirmed_with_employee', note: 'RSA statement checked' });
    expect(over.status, over.text).toBe(200);
    expect(over.body).toMatchObject({ status: 'overridden', override: { reason_code: 'confirmed_with_employee', note: 'RSA statement checked' } });
    expect((await get(o.key, `/v1/remittance/instruction_sets/${r.body.id}/discrepancies/${d.id}`)).body.status).toBe('overridden');
    const again = await post(o.key, `/v1/remittance/instruction_sets/${r.body.id}/discrepancies/${d.id}/override`, { reason_code: 'confirmed_with_employee' });
    expect(again.status).toBe(409);
    expect((await get(o.key, `/v1/remittance/instruction_sets/${r.body.id}`)).body.next_action).toMatchObject({ code: 'accept_instruction_set', call: { method: 'POST', path: `/v1/remittance/instruction_sets/${r.body.id}/accept` } });

    const accepted = await post(o.key, `/v1/remittance/instruction_sets/${r.body.id}/accept`);
    expect(accepted.status, accepted.text).toBe(200);
    expect(accepted.body.status).toBe('accepted');
    expect(accepted.body.next_action).toBeNull();
    expect((await post(o.key, `/v1/remittance/instruction_sets/${r.body.id}/reject`)).status).toBe(409);
  });

  it('spec 3: nothing is committed until accepted; on accept each line with something to remit becomes its obligation', async () => {
    const p = await h.register();
    const r = await post(p.key, '/v1/remittance/instruction_sets', externalSet());
    await h.platform.system.settle();
    expect((await get(p.key, '/v1/remittance/obligations')).body.data).toEqual([]);
    expect((await post(p.key, `/v1/remittance/instruction_sets/${r.body.id}/accept`)).status).toBe(200);
    await h.platform.system.settle();
    const obligations = (await get(p.key, '/v1/remittance/obligations?limit=100')).body.data;
    // Lagos, Kano, the PFA and NHF; the zero NSITF line owes nothing
    expect(obligations.map((x: any) => x.levy).sort()).toEqual(['nhf', 'paye', 'paye', 'pension']);
    const lagos = obligations.find((x: any) => x.authority_id === payeAuthorityFor('NG-LA')!.id);
    expect(lagos).toMatchObject({ object: 'remittance_obligation', status: 'due', period: '2026-01', amount: ngn(1_000_000), due_date: '2026-02-10' });
    expect((await get(p.key, `/v1/remittance/instruction_sets/${r.body.id}`)).body.obligations_recorded).toBe(true);
  });

  it('spec 3: a rejected set commits nothing and cannot be accepted', async () => {
    const p = await h.register();
    const r = await post(p.key, '/v1/remittance/instruction_sets', externalSet());
    const rej = await post(p.key, `/v1/remittance/instruction_sets/${r.body.id}/reject`, { reason: 'wrong month' });
    expect(rej.status, rej.text).toBe(200);
    expect(rej.body).toMatchObject({ status: 'rejected', rejection_reason: 'wrong month' });
    expect((await post(p.key, `/v1/remittance/instruction_sets/${r.body.id}/accept`)).status).toBe(409);
    await h.platform.system.settle();
    expect((await get(p.key, '/v1/remittance/obligations')).body.data).toEqual([]);
  });

  it('spec 2.10: totals that do not add up are a discrepancy (totals_mismatch) with expected and actual to the minor unit', async () => {
    const r = await post(o.key, '/v1/remittance/instruction_sets', externalSet({ total: 3_549_999 }));
    const d = (await get(o.key, `/v1/remittance/instruction_sets/${r.body.id}/discrepancies`)).body.data;
    expect(d).toHaveLength(1);
    expect(d[0]).toMatchObject({ code: 'totals_mismatch', expected: ngn(3_550_000), actual: ngn(3_549_999), line: { section: 'totals', index: 6 } });
  });

  it('spec 2.10: a PAYE line whose authority_id is another State\u2019s IRS is a discrepancy; once overridden the line names no authority and makes no obligation', async () => {
    const p = await h.register();
    const body = externalSet();
    (body.instructions.paye[0] as any).authority_id = payeAuthorityFor('NG-KN')!.id;
    const r = await post(p.key, '/v1/remittance/instruction_sets', body);
    const d = (await get(p.key, `/v1/remittance/instruction_sets/${r.body.id}/discrepancies`)).body.data;
    expect(d.map((x: any) => x.code)).toEqual(['authority_jurisdiction_mismatch']);
    expect(r.body.instructions.paye[0].authority_id).toBeNull();
    expect((await post(p.key, `/v1/remittance/instruction_sets/${r.body.id}/discrepancies/${d[0].id}/override`, { reason_code: 'remitted_outside_platform' })).status).toBe(200);
    expect((await post(p.key, `/v1/remittance/instruction_sets/${r.body.id}/accept`)).status).toBe(200);
    await h.platform.system.settle();
    const paye = (await get(p.key, '/v1/remittance/obligations?levy=paye')).body.data;
    expect(paye.map((x: any) => x.authority_id)).toEqual([payeAuthorityFor('NG-KN')!.id]);
  });

  it('spec 8: the discrepancies of a set page in line order, at most limit a page', async () => {
    const body = externalSet();
    body.instructions.pension = Array.from({ length: 12 }, (_, i) => ({ administrator_id: `pfa_unknown_${i}`, employee_amount: ngn(0), employer_amount: ngn(0), amount: ngn(0), reconciliation_reference: `u${i}` }));
    body.instructions.totals.total = ngn(1_750_000);
    const r = await post(o.key, '/v1/remittance/instruction_sets', body);
    const first = await get(o.key, `/v1/remittance/instruction_sets/${r.body.id}/discrepancies?limit=10`);
    expect(first.body.data).toHaveLength(10);
    expect(first.body.has_more).toBe(true);
    const rest = await get(o.key, `/v1/remittance/instruction_sets/${r.body.id}/discrepancies?limit=10&starting_after=${first.body.data[9].id}`);
    expect(rest.body.data).toHaveLength(2);
    expect(rest.body.has_more).toBe(false);
    expect([...first.body.data, ...rest.body.data].map((x: any) => x.line.index)).toEqual(Array.from({ length: 12 }, (_, i) => i + 3));
    expect((await get(o.key, `/v1/remittance/instruction_sets/${r.body.id}/discrepancies?limit=101`)).status).toBe(400);
  });

  it('spec 8: the same Idempotency-Key and body return the same set; a set of another organisation is 403', async () => {
    const k = key();
    const a = await post(o.key, '/v1/remittance/instruction_sets', externalSet(), k);
    const b = await post(o.key, '/v1/remittance/instruction_sets', externalSet(), k);
    expect(b.body.id).toBe(a.body.id);
    expect(b.headers['service-idempotent-replay']).toBe('true');
    const other = await h.register();
    expect((await get(other.key, `/v1/remittance/instruction_sets/${a.body.id}`)).status).toBe(403);
    expect((await post(other.key, `/v1/remittance/instruction_sets/${a.body.id}/accept`)).status).toBe(403);
  });

  it('spec 1 rule 3: a fractional amount is refused with invalid_money_amount; a set with neither run nor pay date is refused', async () => {
    const bad = externalSet();
    (bad.instructions.paye[0].amount as any).amount = 10.5;
    const r = await post(o.key, '/v1/remittance/instruction_sets', bad);
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('invalid_money_amount');
    const { pay_date: _p, ...noDate } = externalSet();
    const n = await post(o.key, '/v1/remittance/instruction_sets', noDate);
    expect(n.status).toBe(400);
  });

  it('spec 4.9: GET instruction_sets lists newest first, filtered by status and period', async () => {
    const all = await get(o.key, '/v1/remittance/instruction_sets?period=2026-01&status=accepted');
    expect(all.status).toBe(200);
    expect(all.body.data.length).toBeGreaterThanOrEqual(1);
    expect(all.body.data.every((s: any) => s.status === 'accepted' && s.period === '2026-01')).toBe(true);
  });
});

describe('spec 2.10 source run: a set from every executed payroll run', () => {
  it('spec 2.10: executing a run makes its set by reaction; a PAYE line per State of residence; totals reconcile with the run to the minor unit', async () => {
    const o = await h.register();
    const states = ['NG-LA', 'NG-KN', 'NG-EN', 'NG-BO', 'NG-LA', 'NG-FC', 'NG-ZA'];
    await importPayees(h, o.key, states.map((s, i) => payee(`p${i}`, s, i === 6 ? null : 'pfa_stanbic_ibtc', i % 2 === 0)), { headcount: 10, turnover_50m_or_more: false, maker_checker_threshold: 1e15 });
    const run = await executedRun(h, o.key, '2026-01');
    await h.platform.system.settle();
    const id = runSetIdOf(o.org, run.id);
    const set = await get(o.key, `/v1/remittance/instruction_sets/${id}`);
    expect(set.status, set.text).toBe(200);
    expect(set.body).toMatchObject({ status: 'pending_acceptance', source: 'run', run_id: run.id, period: '2026-01', pay_date: run.pay_date });
    expect(set.body.instructions.id).toBe((await get(o.key, `/v1/payroll/runs/${run.id}/instruction_set`)).body.id);
    const paye = set.body.instructions.paye;
    expect(paye.map((p: any) => p.jurisdiction)).toEqual(['NG-BO', 'NG-EN', 'NG-FC', 'NG-KN', 'NG-LA', 'NG-ZA']);
    for (const p of paye) {
      const a = payeAuthorityFor(p.jurisdiction)!;
      expect(p.authority_id).toBe(a.id);
      expect(p.authority_name).toBe(a.name);
    }
    expect(paye.find((p: any) => p.jurisdiction === 'NG-LA').payee_count).toBe(2);

    const totals = await get(o.key, `/v1/remittance/instruction_sets/${id}/totals`);
    expect(totals.status).toBe(200);
    const rt = run.totals;
    expect(totals.body.run.total.amount).toBe(rt.total_deductions.amount + rt.employer_contributions.amount);
    expect(totals.body.lines_total).toEqual(totals.body.run.total);
    expect(totals.body.difference).toEqual(ngn(0));
    expect(totals.body.reconciles).toBe(true);

    // The payee with no PFA on file: payroll groups it as unassigned; remittance names it a discrepancy.
    const d = (await get(o.key, `/v1/remittance/instruction_sets/${id}/discrepancies`)).body.data;
    expect(d.map((x: any) => x.code)).toEqual(['unknown_pension_administrator']);
    expect((await post(o.key, `/v1/remittance/instruction_sets/${id}/accept`)).status).toBe(409);
    expect((await post(o.key, `/v1/remittance/instruction_sets/${id}/discrepancies/${d[0].id}/override`, { reason_code: 'remitted_outside_platform' })).status).toBe(200);
    const acc = await post(o.key, `/v1/remittance/instruction_sets/${id}/accept`);
    expect(acc.status, acc.text).toBe(200);
    await h.platform.system.settle();
    const obligations = (await get(o.key, '/v1/remittance/obligations?period=2026-01&limit=100')).body.data;
    const payeObligations = obligations.filter((x: any) => x.levy === 'paye');
    expect(payeObligations.length).toBe(paye.filter((p: any) => p.amount.amount > 0).length);
    // The reaction is idempotent: the same run makes one set
    const sets = (await get(o.key, '/v1/remittance/instruction_sets?limit=100')).body.data.filter((s: any) => s.run_id === run.id);
    expect(sets).toHaveLength(1);
  });

  it('spec 2.10: an external set naming a run that disagrees with it is a run_totals_mismatch discrepancy', async () => {
    const o = await h.register();
    await importPayees(h, o.key, [payee('q1', 'NG-OG')], { headcount: 10, turnover_50m_or_more: false, maker_checker_threshold: 1e15 });
    const run = await executedRun(h, o.key, '2026-01');
    const r = await post(o.key, '/v1/remittance/instruction_sets', externalSet({ run_id: run.id }));
    const codes = (await get(o.key, `/v1/remittance/instruction_sets/${r.body.id}/discrepancies`)).body.data.map((d: any) => d.code);
    expect(codes).toContain('run_totals_mismatch');
    const other = await h.register();
    const foreign = await post(other.key, '/v1/remittance/instruction_sets', externalSet({ run_id: run.id }));
    const fcodes = (await get(other.key, `/v1/remittance/instruction_sets/${foreign.body.id}/discrepancies`)).body.data.map((d: any) => d.code);
    expect(fcodes).toContain('run_not_found');
  });
});

describe('spec 4.9 imports: an instruction set as a CSV file (source external_file)', () => {
  const header = 'section,jurisdiction,administrator_id,code,employee_amount,employer_amount,amount,currency,payee_count,reconciliation_reference';
  it('spec 4.9: a readable file makes a set pending acceptance; GET imports/{id} shows it', async () => {
    const o = await h.register();
    const csv = [header, 'paye,NG-LA,,,,,1000000,NGN,2,f:paye:LA', 'pension,,pfa_oak,,800000,1000000,1800000,NGN,,f:pension', 'levy,,,nhf,,,250000,NGN,,f:nhf', 'total,,,,,,3050000,NGN,,'].join('\r\n');
    const r = await post(o.key, '/v1/remittance/imports', { format: 'csv', csv, period: '2026-01', pay_date: '2026-01-28' });
    expect(r.status, r.text).toBe(201);
    expect(r.body).toMatchObject({ object: 'remittance_import', status: 'completed', row_count: 4 });
    const set = await get(o.key, `/v1/remittance/instruction_sets/${r.body.instruction_set_id}`);
    expect(set.body).toMatchObject({ source: 'external_file', status: 'pending_acceptance', import_id: r.body.id });
    expect(set.body.validation_report.error_count).toBe(0);
    expect((await get(o.key, `/v1/remittance/imports/${r.body.id}`)).body).toEqual(r.body);
  });

  it('spec 2.1: a file with failing rows is rejected whole, every failing row named, and makes no set', async () => {
    const o = await h.register();
    const csv = [header, 'paye,NG-LA,,,,,1000000.5,NGN,2,f:paye:LA', 'levy,,,vat,,,1,NGN,,f:vat', 'bogus,,,,,,1,NGN,,x', 'total,,,,,,3050000,NGN,,'].join('\n');
    const r = await post(o.key, '/v1/remittance/imports', { format: 'csv', csv, period: '2026-01', pay_date: '2026-01-28' });
    expect(r.status, r.text).toBe(201);
    expect(r.body.status).toBe('rejected');
    expect(r.body.instruction_set_id).toBeNull();
    expect(r.body.validation.entries.map((e: any) => [e.index, e.code])).toEqual([[2, 'invalid_money_amount'], [3, 'invalid_levy_code'], [4, 'invalid_section']]);
    expect(r.body.validation.error_count).toBe(3);
    expect((await get(o.key, '/v1/remittance/instruction_sets')).body.data).toEqual([]);
  });
});

describe('snapshots of the intake kinds (STYLE: snapshots are a versioned codec)', () => {
  it('an overridden, accepted set and its obligation survive the snapshot codec and answer the same views', async () => {
    const o = await h.register();
    const r = await post(o.key, '/v1/remittance/instruction_sets', externalSet({ pfa: 'pfa_nowhere' }));
    const d = (await get(o.key, `/v1/remittance/instruction_sets/${r.body.id}/discrepancies`)).body.data[0];
    await post(o.key, `/v1/remittance/instruction_sets/${r.body.id}/discrepancies/${d.id}/override`, { reason_code: 'correction_to_follow' });
    await post(o.key, `/v1/remittance/instruction_sets/${r.body.id}/accept`);
    await h.platform.system.settle();
    const obligation = (await get(o.key, '/v1/remittance/obligations?levy=nhf')).body.data[0];
    for (const [def, id] of [[IngestedInstructionSet, r.body.id], [Obligation, obligation.id]] as const) {
      const state = await h.platform.system.state(def, id, o.org);
      expect(roundTrip(state), def.kind).toEqual(state);
      expect(def.view(roundTrip(state) as never), def.kind).toEqual(def.view(state as never));
    }
  });
});
