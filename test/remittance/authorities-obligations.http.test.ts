/**
 * Obligations and the statutory calendar (spec 4.9; ../shared/reference/ng-payroll-2026.md section
 * 8): one obligation per authority, levy and period, its due date from the calendar rules, and its
 * state (due, remitted, late); each levy's due date on the public payroll vectors' pay dates.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorities, dueDateOf, levyAuthority, obligationRemitted, payeAuthorityFor, pensionAdministrator, runSetIdOf } from '../../actors/remittance/index.ts';
import { startHarness, type Harness } from '../../support/http.ts';
import { importPayees, key } from '../payroll/support.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.close());

const ngn = (amount: number) => ({ amount, currency: 'NGN' });
const post = (k: string, path: string, body: unknown = {}, idempotencyKey = key()) => h.request('POST', path, { key: k, idempotencyKey, body });
const get = (k: string, path: string) => h.request('GET', path, { key: k });

interface Vector { id: string; inputs: Record<string, any>; expected: { remittance: Record<string, { amount_kobo?: number; monthly_accrual_kobo?: number; due_date: string | null }> } }
const vectors: Vector[] = JSON.parse(readFileSync(new URL('../../../shared/reference/ng-payroll-2026-vectors.json', import.meta.url), 'utf8'));

describe('obligations (spec 4.9)', () => {
  it('POST obligations: one obligation per authority, levy and period; a second amount is added to it; its due date comes from the calendar', async () => {
    const o = await h.register();
    const itf = levyAuthority('itf');
    const a = await post(o.key, '/v1/remittance/obligations', { authority_id: itf.id, levy: 'itf', period: '2026-12', pay_date: '2026-12-23', amount: ngn(600_000) });
    expect(a.status, a.text).toBe(201);
    expect(a.body).toMatchObject({ object: 'remittance_obligation', authority_id: itf.id, authority_name: 'Industrial Training Fund', levy: 'itf', period: '2026-12', amount: ngn(600_000), status: 'due', due_date: '2027-04-01', late: false });
    expect(a.body.id).toMatch(/^remit_authority_rail_statutory_obligation_/);
    const b = await post(o.key, '/v1/remittance/obligations', { authority_id: itf.id, levy: 'itf', period: '2026-12', pay_date: '2026-12-23', amount: ngn(400_000) });
    expect(b.body.id).toBe(a.body.id);
    expect(b.body.amount).toEqual(ngn(1_000_000));
    expect(b.body.lines).toHaveLength(2);
    const entry = await get(o.key, `/v1/remittance/calendar_entries/${b.body.calendar_entry_id}`);
    expect(entry.body).toMatchObject({ levy: 'itf', due_date: '2027-04-01' });
    expect((await get(o.key, `/v1/remittance/obligations/${a.body.id}`)).body).toEqual(b.body);
    expect((await get((await h.register()).key, `/v1/remittance/obligations/${a.body.id}`)).status).toBe(403);
  });

  it('POST obligations: an authority that does not collect the levy, an unknown authority and a fraction are refused', async () => {
    const o = await h.register();
    const lagos = payeAuthorityFor('NG-LA')!;
    const wrong = await post(o.key, '/v1/remittance/obligations', { authority_id: lagos.id, levy: 'pension', period: '2026-01', pay_date: '2026-01-28', amount: ngn(1) });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.validation.entries[0].code).toBe('levy_not_collected');
    const unknown = await post(o.key, '/v1/remittance/obligations', { authority_id: 'remit_authority_rail_obligation_x', levy: 'paye', period: '2026-01', pay_date: '2026-01-28', amount: ngn(1) });
    expect(unknown.status).toBe(400);
    const fraction = await post(o.key, '/v1/remittance/obligations', { authority_id: lagos.id, levy: 'paye', period: '2026-01', pay_date: '2026-01-28', amount: { amount: 1.5, currency: 'NGN' } });
    expect(fraction.body.error.code).toBe('invalid_money_amount');
  });

  it('an obligation not remitted by the end of its due date (Lagos time) becomes late; one remitted by a vaulted receipt is remitted', async () => {
    const o = await h.register();
    const lagos = payeAuthorityFor('NG-LA')!;
    const kano = payeAuthorityFor('NG-KN')!;
    const x = await post(o.key, '/v1/remittance/obligations', { authority_id: lagos.id, levy: 'paye', period: '2026-01', pay_date: '2026-01-28', amount: ngn(1_000) });
    const y = await post(o.key, '/v1/remittance/obligations', { authority_id: kano.id, levy: 'paye', period: '2026-01', pay_date: '2026-01-28', amount: ngn(2_000) });
    expect(x.body.due_date).toBe('2026-02-10');
    const caller = { org: o.org, livemode: false, principal: 'system' };
    const remitted = await obligationRemitted(h.platform, caller, { authority_id: kano.id, levy: 'paye', period: '2026-01', leg_id: 'remit_authority_rail_leg_t1', receipt_id: 'remit_authority_rail_receipt_t1' });
    expect(remitted).toMatchObject({ status: 'remitted', remitted: { leg_id: 'remit_authority_rail_leg_t1', receipt_id: 'remit_authority_rail_receipt_t1' } });
    // the same receipt again is a no-op; another receipt is refused
    expect((await obligationRemitted(h.platform, caller, { authority_id: kano.id, levy: 'paye', period: '2026-01', leg_id: 'remit_authority_rail_leg_t1', receipt_id: 'remit_authority_rail_receipt_t1' })).status).toBe('remitted');
    await expect(obligationRemitted(h.platform, caller, { authority_id: kano.id, levy: 'paye', period: '2026-01', leg_id: 'remit_authority_rail_leg_t2', receipt_id: 'remit_authority_rail_receipt_t2' })).rejects.toMatchObject({ code: 'conflict' });
    await expect(obligationRemitted(h.platform, caller, { authority_id: kano.id, levy: 'paye', period: '2026-02', leg_id: 'l', receipt_id: 'r' })).rejects.toMatchObject({ code: 'not_found' });

    // 22:59 UTC on the due date is still the 10th in Lagos; 23:00 UTC is the 11th.
    await h.clock.advance(Date.parse('2026-02-10T22:59:00Z') - h.clock.now());
    await h.platform.system.settle();
    expect((await get(o.key, `/v1/remittance/obligations/${x.body.id}`)).body.status).toBe('due');
    await h.clock.advance(60_000);
    await h.platform.system.settle();
    const late = (await get(o.key, `/v1/remittance/obligations/${x.body.id}`)).body;
    expect(late).toMatchObject({ status: 'late', late: true });
    expect((await get(o.key, `/v1/remittance/obligations/${y.body.id}`)).body.status).toBe('remitted');
    expect((await get(o.key, '/v1/remittance/obligations?status=late')).body.data.map((z: any) => z.id)).toEqual([x.body.id]);
    const after = await obligationRemitted(h.platform, caller, { authority_id: lagos.id, levy: 'paye', period: '2026-01', leg_id: 'remit_authority_rail_leg_t3', receipt_id: 'remit_authority_rail_receipt_t3' });
    expect(after).toMatchObject({ status: 'remitted', late: true });

    // A later amount for the period (a correction run's set, or a POST) reopens it; a second receipt remits it again.
    const more = await post(o.key, '/v1/remittance/obligations', { authority_id: lagos.id, levy: 'paye', period: '2026-01', pay_date: '2026-01-28', amount: ngn(500) });
    expect(more.body).toMatchObject({ status: 'late', amount: ngn(1_500) });
    expect(more.body.remittances).toHaveLength(1);
    const again = await obligationRemitted(h.platform, caller, { authority_id: lagos.id, levy: 'paye', period: '2026-01', leg_id: 'remit_authority_rail_leg_t4', receipt_id: 'remit_authority_rail_receipt_t4' });
    expect(again.status).toBe('remitted');
    expect(again.remittances.map((x: any) => x.amount_covered.amount)).toEqual([1_000, 1_500]);
  });
});

describe('due dates for each levy on the public payroll vectors\u2019 pay dates (reference ng-payroll-2026.md 8, 10)', () => {
  it.each(vectors.map((v) => [v.id, v] as const))('%s: PAYE, pension, NHF, NSITF and ITF fall due on the vector\u2019s dates (null where the levy does not apply)', (_id, v) => {
    const payDate = v.inputs.pay_date as string;
    for (const [levy, exp] of Object.entries(v.expected.remittance)) {
      const amount = exp.amount_kobo ?? exp.monthly_accrual_kobo ?? 0;
      const calendar = dueDateOf(levy as 'paye', payDate).due_date;
      // PAYE's date stands even on a zero line in the vectors; other levies are null where nothing is owed
      const shown = levy === 'paye' || amount > 0 ? calendar : null;
      expect(shown, `${v.id} ${levy}`).toBe(exp.due_date);
    }
  });

  it('NG26-P01 and NG26-P10 through a run: every line of the run\u2019s instruction set carries the vector\u2019s due date, null where the levy does not apply', async () => {
    for (const id of ['NG26-P01', 'NG26-P10']) {
      const v = vectors.find((x) => x.id === id)!;
      const i = v.inputs;
      const o = await h.register();
      await importPayees(h, o.key, [{
        payee_ref: `${id}-payee`, monthly_basic: i.monthly_basic_kobo, monthly_housing: i.monthly_housing_kobo, monthly_transport: i.monthly_transport_kobo, monthly_other_allowances: i.monthly_other_allowances_kobo,
        annual_rent_paid: i.annual_rent_paid_kobo, annual_life_assurance_premium: i.annual_life_assurance_premium_kobo, annual_mortgage_interest: i.annual_mortgage_interest_kobo,
        state_of_residence: i.state_of_residence, nhf_contributing: i.nhf_contributing, nhia_enrolled: i.nhia_enrolled, starts_on: '2026-01-01', ends_on: null,
      }], { headcount: i.employer_headcount, turnover_50m_or_more: i.employer_turnover_50m_or_more, maker_checker_threshold: 1e15 });
      const created = await post(o.key, '/v1/payroll/runs', { period: i.pay_period, run_type: 'regular', pay_date: i.pay_date });
      expect(created.status, created.text).toBe(201);
      for (const step of ['calculate', 'submit', 'approve', 'execute']) expect((await post(o.key, `/v1/payroll/runs/${created.body.id}/${step}`)).status, step).toBe(200);
      await h.platform.system.settle();
      const set = (await get(o.key, `/v1/remittance/instruction_sets/${runSetIdOf(o.org, created.body.id)}`)).body;
      expect(set.pay_date).toBe(i.pay_date);
      const r = v.expected.remittance;
      expect(set.instructions.paye).toHaveLength(1);
      expect(set.instructions.paye[0]).toMatchObject({ jurisdiction: i.state_of_residence, amount: ngn(r.paye.amount_kobo!), due_date: r.paye.due_date });
      expect(set.instructions.pension[0]).toMatchObject({ amount: ngn(r.pension.amount_kobo!), due_date: r.pension.due_date });
      const levy = (c: string) => set.instructions.levies.find((l: any) => l.code === c);
      expect(levy('nhf')).toMatchObject({ amount: ngn(r.nhf.amount_kobo!), due_date: r.nhf.due_date });
      expect(levy('nsitf')).toMatchObject({ amount: ngn(r.nsitf.amount_kobo!), due_date: null });
      expect(levy('itf')).toMatchObject({ amount: ngn(r.itf.monthly_accrual_kobo!), due_date: r.itf.monthly_accrual_kobo ? r.itf.due_date : null });
    }
  });
});

describe('authority data beside the obligations', () => {
  it('a PFA obligation is owed to the PFA and paid to its custodian\u2019s collection account', () => {
    const pfa = pensionAdministrator('pfa_stanbic_ibtc')!;
    expect(authorities('pension_custodian').map((c) => c.id)).toContain(pfa.collected_by);
    expect(pfa.levies).toEqual(['pension']);
  });
});
