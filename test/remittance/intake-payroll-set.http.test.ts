/**
 * Payroll's InstructionSet (spec 2.10) takes its authorities and due dates from the remittance
 * area's data, the one source: every State and the FCT by its official name, the authority ids
 * payroll has always derived, and the statutory calendar with its public holidays.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stateOnFirstOfJanuary, type PayProfileState } from '../../actors/payroll/pay-profile.ts';
import { payeAuthorityFor, runSetIdOf } from '../../actors/remittance/index.ts';
import { startHarness, type Harness } from '../../support/http.ts';
import { importPayees, key, type PayeeRow } from '../payroll/support.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.close());

const post = (k: string, path: string, body: unknown = {}) => h.request('POST', path, { key: k, idempotencyKey: key(), body });
const payee = (ref: string, state: string): PayeeRow => ({ payee_ref: ref, monthly_basic: 40_000_000, monthly_housing: 10_000_000, monthly_transport: 5_000_000, monthly_other_allowances: 0, state_of_residence: state, nhf_contributing: true });

describe('payroll\u2019s instruction set, named from remittance\u2019s authority data', () => {
  it('spec 2.10: every State of residence gets its State IRS by official name (never a generic fallback), with the same id and due dates as the remittance set; pension skips Good Friday and Easter Monday', async () => {
    const o = await h.register();
    const states = ['NG-KN', 'NG-SO', 'NG-AK', 'NG-OY', 'NG-LA', 'NG-FC'];
    await importPayees(h, o.key, states.map((s, i) => payee(`s${i}`, s)), { headcount: 10, turnover_50m_or_more: false, maker_checker_threshold: 1e15 });
    const created = await post(o.key, '/v1/payroll/runs', { period: '2026-03', run_type: 'regular', pay_date: '2026-03-27' });
    expect(created.status, created.text).toBe(201);
    for (const step of ['calculate', 'submit', 'approve', 'execute']) expect((await post(o.key, `/v1/payroll/runs/${created.body.id}/${step}`)).status, step).toBe(200);
    await h.platform.system.settle();
    const mine = (await h.request('GET', `/v1/payroll/runs/${created.body.id}/instruction_set`, { key: o.key })).body;
    const remit = (await h.request('GET', `/v1/remittance/instruction_sets/${runSetIdOf(o.org, created.body.id)}`, { key: o.key })).body.instructions;
    expect(mine.paye.map((p: any) => p.jurisdiction).sort()).toEqual([...states].sort());
    for (const p of mine.paye) {
      const a = payeAuthorityFor(p.jurisdiction)!;
      expect(p.authority_id).toBe(a.id);
      expect(p.authority_name).toBe(a.name);
      expect(p.authority_name).not.toMatch(/\(NG-/);
      const r = remit.paye.find((x: any) => x.jurisdiction === p.jurisdiction);
      expect([r.authority_id, r.authority_name, r.due_date]).toEqual([p.authority_id, p.authority_name, p.due_date]);
    }
    expect(mine.paye[0].due_date).toBe('2026-04-10');
    expect(mine.pension[0].due_date).toBe('2026-04-09');
    expect(remit.pension[0].due_date).toBe('2026-04-09');
    expect(mine.levies.map((l: any) => l.due_date)).toEqual(remit.levies.map((l: any) => l.due_date));
    expect(mine.levies.find((l: any) => l.code === 'nhf').due_date).toBe('2026-04-27');
  });
  it('reference 8: a PAYE line goes to the State of residence fixed on 1 January; a move recorded later waits for the next tax year, a correction back to 1 January applies now', async () => {
    const o = await h.register();
    const imp = await importPayees(h, o.key, ['moves', 'corrected', 'stays'].map((r) => payee(r, 'NG-KN')), { headcount: 10, turnover_50m_or_more: false, maker_checker_threshold: 1e15 });
    const profile = (ref: string) => imp.rows.find((r) => r.payee_ref === ref)!.pay_profile_id;
    const patch = (ref: string, body: unknown) => h.request<any>('PATCH', `/v1/pay_profiles/${profile(ref)}`, { key: o.key, body });
    // recorded today (2026-01-05 on the manual clock): it holds from today, after 1 January
    const moved = await patch('moves', { state_of_residence: 'NG-LA' });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body).toMatchObject({ state_of_residence: 'NG-LA', state_of_residence_history: [{ state_of_residence: 'NG-KN', since: null }, { state_of_residence: 'NG-LA', since: '2026-01-05' }] });
    expect((await patch('corrected', { state_of_residence: 'NG-OY', state_of_residence_since: '2026-01-01' })).status).toBe(200);
    const alone = await patch('stays', { state_of_residence_since: '2026-01-01' });
    expect(alone.status).toBe(400);
    expect(alone.text).toContain('state_of_residence_required');

    const run = await post(o.key, '/v1/payroll/runs', { period: '2026-03', run_type: 'regular', pay_date: '2026-03-27' });
    expect(run.status, run.text).toBe(201);
    for (const step of ['calculate', 'submit', 'approve', 'execute']) expect((await post(o.key, `/v1/payroll/runs/${run.body.id}/${step}`)).status, step).toBe(200);
    await h.platform.system.settle();
    const set = (await h.request<any>('GET', `/v1/payroll/runs/${run.body.id}/instruction_set`, { key: o.key })).body;
    expect(Object.fromEntries(set.paye.map((p: any) => [p.jurisdiction, p.payee_count]))).toEqual({ 'NG-KN': 2, 'NG-OY': 1 });
    const remit = (await h.request<any>('GET', `/v1/remittance/instruction_sets/${runSetIdOf(o.org, run.body.id)}`, { key: o.key })).body.instructions;
    expect(remit.paye.map((p: any) => p.jurisdiction).sort()).toEqual(['NG-KN', 'NG-OY']);

    // the next tax year's 1 January finds the move
    const state = await h.platform.system.state<PayProfileState>('pay_profile', profile('moves'), o.org);
    expect([stateOnFirstOfJanuary(state, 2026), stateOnFirstOfJanuary(state, 2027)]).toEqual(['NG-KN', 'NG-LA']);
  });
});
