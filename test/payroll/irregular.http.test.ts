/**
 * The worked examples of reference ng-payroll-2026-irregular-pay.md (section 1.4) reproduced to the
 * kobo through the HTTP API, with traces (spec 2.9, 4.8): bonus and thirteenth-month runs beside
 * the salary run of the same month, a final settlement with its variants, same-year arrears, and
 * a leaver's refund. Every run type computes; none raises a p0 finding for being irregular.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/http.ts';
import { calculatedRun, computedFindings, executedRun, importPayees, ngn, payslipsOf, post, type PayeeRow } from './support.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const pad = (m: number) => String(m).padStart(2, '0');
/** The reference's 50/25/15/10 split of a monthly gross. */
const split = (gross: number) => ({ monthly_basic: gross / 2, monthly_housing: gross / 4, monthly_transport: (gross * 3) / 20, monthly_other_allowances: gross / 10 });
const row = (gross: number, over: Partial<PayeeRow> = {}): PayeeRow => ({ payee_ref: 'ex-1', ...split(gross), state_of_residence: 'NG-LA', nhf_contributing: true, starts_on: '2025-06-01', ...over });
const EMPLOYER = { headcount: 25, turnover_50m_or_more: false, maker_checker_threshold: 1e15 };

async function setup(r: PayeeRow, executedMonths: number) {
  const o = await h.register();
  const imported = await importPayees(h, o.key, [r], EMPLOYER);
  for (let m = 1; m <= executedMonths; m++) await executedRun(h, o.key, `2026-${pad(m)}`);
  return { k: o.key, profile: imported.rows[0].pay_profile_id, entry: imported.rows[0].roster_entry_id };
}

/** Create a run with items, calculate it; returns the run and its one payslip. */
async function itemRun(k: string, period: string, runType: string, items: unknown[], payDate?: string) {
  const created = await post(h, k, '/v1/payroll/runs', { period, run_type: runType, ...(payDate ? { pay_date: payDate } : {}) });
  expect(created.status, created.text).toBe(201);
  if (items.length) {
    const patched = await h.request('PATCH', `/v1/payroll/runs/${created.body.id}`, { key: k, body: { items } });
    expect(patched.status, patched.text).toBe(200);
  }
  return calculate(k, created.body.id);
}

async function calculate(k: string, runId: string) {
  const calc = await post(h, k, `/v1/payroll/runs/${runId}/calculate`);
  expect(calc.status, calc.text).toBe(200);
  const findings = computedFindings((await h.request('GET', `/v1/payroll/runs/${runId}/findings`, { key: k })).body.data);
  expect(findings.filter((f: any) => f.severity === 'p0')).toEqual([]);
  const [slip] = await payslipsOf(h, k, runId);
  return { run: calc.body, slip, findings };
}

async function execute(k: string, runId: string) {
  for (const step of ['submit', 'approve', 'execute']) {
    const r = await post(h, k, `/v1/payroll/runs/${runId}/${step}`);
    expect(r.status, `${step}: ${r.text}`).toBe(200);
  }
}

const line = (slip: any, code: string) => slip.lines.find((l: any) => l.code === code);
const amount = (slip: any, code: string) => line(slip, code)?.amount.amount ?? 0;

function traced(slip: any, version = '2026.11.1') {
  for (const l of slip.lines) {
    expect(l.trace.formula.length).toBeGreaterThan(0);
    expect(Object.keys(l.trace.inputs).length).toBeGreaterThan(0);
    expect(l.trace.exact).toMatch(/^-?\d+(\.\d+)?(\/\d+)?$/);
    expect(l.trace.rounding).toBe('half_up_per_line_kobo');
    expect(l.trace.rule_pack_version).toBe(version);
  }
  const sum = (cat: string) => slip.lines.filter((l: any) => l.category === cat).reduce((a: number, l: any) => a + l.amount.amount, 0);
  expect(sum('earning')).toBe(slip.gross.amount);
  expect(sum('deduction')).toBe(slip.total_deductions.amount);
  expect(slip.net.amount).toBe(slip.gross.amount - slip.total_deductions.amount);
}

describe('Example 1: a bonus run and the salary run of the same month (reference irregular pay 1.2 off-cycle runs, 1.4)', () => {
  it('bonus run on 27 March then the salary run: the month\'s PAYE is 24,489,500 kobo (method B), net 121,285,500; ITF on the bonus, NSITF not', async () => {
    const { k } = await setup(row(50_000_000), 2);
    const bonus = await itemRun(k, '2026-03', 'bonus', [{ payee_ref: 'ex-1', code: 'bonus', amount: ngn(100_000_000) }], '2026-03-27');
    expect(bonus.run).toMatchObject({ run_type: 'bonus', payee_count: 1 });
    expect(bonus.slip.lines.map((l: any) => l.code)).toEqual(['bonus', 'paye', 'itf']);
    expect(amount(bonus.slip, 'paye')).toBe(18_000_000);
    expect(line(bonus.slip, 'paye').trace.inputs).toMatchObject({ annual_tax_kobo: '95874000', regular_annual_tax_kobo: '77874000', one_off_paye_kobo: '18000000', one_off_method: 'increment_in_month_paid' });
    expect(amount(bonus.slip, 'itf')).toBe(1_000_000);
    traced(bonus.slip);
    await execute(k, bonus.run.id);
    const salary = await calculate(k, (await calculatedRun(h, k, '2026-03')).id);
    expect(amount(salary.slip, 'paye')).toBe(6_489_500);
    expect(salary.findings).toEqual([]);
    traced(salary.slip);
    // the month, both payslips together, equals the reference's March lines
    expect(amount(bonus.slip, 'paye') + amount(salary.slip, 'paye')).toBe(24_489_500);
    expect(bonus.slip.net.amount + salary.slip.net.amount).toBe(121_285_500);
    expect(amount(salary.slip, 'pension_employee')).toBe(3_600_000);
    expect(amount(salary.slip, 'pension_employer')).toBe(4_500_000);
    expect(amount(salary.slip, 'nhf')).toBe(625_000);
    expect(amount(bonus.slip, 'nsitf') + amount(salary.slip, 'nsitf')).toBe(500_000);
    expect(amount(bonus.slip, 'itf') + amount(salary.slip, 'itf')).toBe(1_500_000);
    await execute(k, salary.run.id);
    // April is back to the regular 6,489,500
    const apr = await calculate(k, (await calculatedRun(h, k, '2026-04')).id);
    expect(amount(apr.slip, 'paye')).toBe(6_489_500);
    // the bonus run's instruction set: PAYE due 10 April, no pension due (no pension line)
    const set = (await h.request('GET', `/v1/payroll/runs/${bonus.run.id}/instruction_set`, { key: k })).body;
    expect(set.paye[0]).toMatchObject({ jurisdiction: 'NG-LA', authority_name: 'Lagos State Internal Revenue Service', due_date: '2026-04-10' });
    expect(set.pension).toEqual([]);
    expect(set.levies.find((l: any) => l.code === 'nsitf')).toMatchObject({ amount: ngn(0), due_date: null });
  });

  it('the salary run first, then the bonus off-cycle: the same month total', async () => {
    const { k } = await setup(row(50_000_000), 3);
    const bonus = await itemRun(k, '2026-03', 'off_cycle', [{ payee_ref: 'ex-1', code: 'bonus', amount: ngn(100_000_000) }]);
    expect(amount(bonus.slip, 'paye')).toBe(18_000_000);
    expect(bonus.findings).toEqual([]);
  });
});

describe('Example 2: a December thirteenth-month run (reference irregular pay 1.4)', () => {
  it('with the December salary the month\'s PAYE is 8,233,700 kobo and net 49,231,300; NSITF 300,000, ITF 600,000; the year totals 39,404,400', async () => {
    const { k } = await setup(row(30_000_000, { state_of_residence: 'NG-FC', annual_rent_paid: 120_000_000 }), 11);
    const thirteenth = await itemRun(k, '2026-12', 'thirteenth_month', [{ payee_ref: 'ex-1', code: 'thirteenth_month', amount: ngn(30_000_000) }], '2026-12-23');
    await execute(k, thirteenth.run.id);
    const salary = await calculate(k, (await calculatedRun(h, k, '2026-12')).id);
    traced(thirteenth.slip);
    traced(salary.slip);
    expect(amount(thirteenth.slip, 'paye') + amount(salary.slip, 'paye')).toBe(8_233_700);
    expect(thirteenth.slip.net.amount + salary.slip.net.amount).toBe(49_231_300);
    expect(amount(thirteenth.slip, 'nsitf') + amount(salary.slip, 'nsitf')).toBe(300_000);
    expect(amount(thirteenth.slip, 'itf') + amount(salary.slip, 'itf')).toBe(600_000);
    expect(salary.slip.year_to_date.paye.amount).toBe(39_404_400);
    const set = (await h.request('GET', `/v1/payroll/runs/${thirteenth.run.id}/instruction_set`, { key: k })).body;
    expect(set.paye[0]).toMatchObject({ authority_name: 'Federal Capital Territory Internal Revenue Service (FCT-IRS)', due_date: '2027-01-10' });
  });
});

describe('Example 3: a final settlement in the exit month (reference irregular pay 1.4)', () => {
  const terminal = (gratuity: string, compensation: number) => [
    { payee_ref: 'ex-1', code: 'unused_leave', amount: ngn(20_000_000) },
    { payee_ref: 'ex-1', code: 'notice_pay', amount: ngn(80_000_000) },
    { payee_ref: 'ex-1', code: gratuity, amount: ngn(200_000_000) },
    { payee_ref: 'ex-1', code: 'compensation_for_loss_of_employment', amount: ngn(compensation) },
  ];

  it('June PAYE 54,933,200 (n = k = 6); cash 880,000,000, net 818,306,800; variants G (PRA gratuity) 18,933,200 and C (NGN 60m compensation) 251,116,400', async () => {
    const { k, entry } = await setup(row(80_000_000), 5);
    const left = await h.request('PATCH', `/v1/payroll/roster_entries/${entry}`, { key: k, body: { ends_on: '2026-06-30' } });
    expect(left.status, left.text).toBe(200);
    const fs = await itemRun(k, '2026-06', 'final_settlement', terminal('gratuity', 500_000_000), '2026-06-30');
    expect(fs.slip.year_to_date.paye.amount - amount(fs.slip, 'paye')).toBe(57_166_000);
    expect(amount(fs.slip, 'paye')).toBe(54_933_200);
    expect(line(fs.slip, 'paye').trace.inputs).toMatchObject({ month_k: '6', months_employed_n: '6', annual_tax_kobo: '112099200' });
    expect(fs.slip.gross.amount).toBe(880_000_000);
    expect(fs.slip.net.amount).toBe(818_306_800);
    expect(amount(fs.slip, 'pension_employee')).toBe(5_760_000);
    expect(amount(fs.slip, 'pension_employer')).toBe(7_200_000);
    expect(amount(fs.slip, 'nhf')).toBe(1_000_000);
    expect(amount(fs.slip, 'nsitf')).toBe(800_000);
    expect(amount(fs.slip, 'itf')).toBe(800_000);
    traced(fs.slip);
    const variant = async (items: unknown[]) => {
      const r = await h.request('PATCH', `/v1/payroll/runs/${fs.run.id}`, { key: k, body: { items } });
      expect(r.status, r.text).toBe(200);
      return calculate(k, fs.run.id);
    };
    expect(amount((await variant(terminal('pra_gratuity', 500_000_000))).slip, 'paye')).toBe(18_933_200);
    const c = await variant(terminal('gratuity', 6_000_000_000));
    expect(amount(c.slip, 'paye')).toBe(251_116_400);
    expect(line(c.slip, 'paye').trace.inputs.compensation_taxable_kobo).toBe('1000000000');
    await variant(terminal('gratuity', 500_000_000));
    await execute(k, fs.run.id);
    const set = (await h.request('GET', `/v1/payroll/runs/${fs.run.id}/instruction_set`, { key: k })).body;
    expect(set.paye[0].due_date).toBe('2026-07-10');
    expect(set.pension[0].due_date).toBe('2026-07-09');
    const ex = (await h.request('GET', `/v1/payroll/payslips/${fs.slip.id}/explanation`, { key: k })).body;
    expect(ex.sentences.join(' ')).toMatch(/one-off/);
    expect((await post(h, k, `/v1/payroll/payslips/${fs.slip.id}/replay`)).body.identical).toBe(true);
  });

  it('a leaver\'s final settlement can refund: exit in March on NGN 200,000 a month gives PAYE -3,493,000 kobo (reference 1.2 leavers)', async () => {
    const { k, entry } = await setup(row(20_000_000), 2);
    await h.request('PATCH', `/v1/payroll/roster_entries/${entry}`, { key: k, body: { ends_on: '2026-03-31' } });
    const fs = await itemRun(k, '2026-03', 'final_settlement', []);
    expect(amount(fs.slip, 'paye')).toBe(-3_493_000);
    expect(fs.findings.map((f: any) => [f.severity, f.code])).toEqual([['p2', 'paye_refund']]);
    expect(fs.slip.year_to_date.paye.amount).toBe(Number(line(fs.slip, 'paye').trace.inputs.annual_tax_kobo));
    await execute(k, fs.run.id);
    // terminal pay after the exit is income of the exit month (NTA s.26(2)(b)), without regular pay
    const late = await itemRun(k, '2026-05', 'final_settlement', [{ payee_ref: 'ex-1', code: 'notice_pay', amount: ngn(20_000_000) }]);
    expect(late.slip.lines.map((l: any) => l.code)).toEqual(['notice_pay', 'paye']);
    expect(line(late.slip, 'paye').trace.inputs).toMatchObject({ income_month: '3', month_k: '3', months_employed_n: '3' });
  });
});

describe('Example 4: same-year arrears paid with the May salary (reference irregular pay 1.4)', () => {
  it('May PAYE 13,081,100 kobo (the year restated); pension 6,480,000 / 8,100,000; NHF 1,125,000; gross 90,000,000, net 69,313,900; June 6,489,500', async () => {
    const { k, profile } = await setup(row(40_000_000), 4);
    const raised = await h.request('PATCH', `/v1/pay_profiles/${profile}`, { key: k, body: Object.fromEntries(Object.entries(split(50_000_000)).map(([f, v]) => [f, ngn(v)])) });
    expect(raised.status, raised.text).toBe(200);
    const arrears = { payee_ref: 'ex-1', code: 'arrears', amount: ngn(40_000_000), components: { basic: ngn(20_000_000), housing: ngn(10_000_000), transport: ngn(6_000_000), other_allowances: ngn(4_000_000) } };
    const may = await itemRun(k, '2026-05', 'regular', [arrears]);
    expect(amount(may.slip, 'paye')).toBe(13_081_100);
    expect(amount(may.slip, 'arrears')).toBe(40_000_000);
    expect(amount(may.slip, 'pension_employee')).toBe(6_480_000);
    expect(amount(may.slip, 'pension_employer')).toBe(8_100_000);
    expect(amount(may.slip, 'nhf')).toBe(1_125_000);
    expect(line(may.slip, 'pension_employee').trace.inputs).toMatchObject({ base_kobo: '81000000', pay_items_kobo: '36000000' });
    expect(amount(may.slip, 'nsitf')).toBe(900_000);
    expect(amount(may.slip, 'itf')).toBe(900_000);
    expect(may.slip.gross.amount).toBe(90_000_000);
    expect(may.slip.net.amount).toBe(69_313_900);
    traced(may.slip);
    await execute(k, may.run.id);
    const jun = await calculate(k, (await calculatedRun(h, k, '2026-06')).id);
    expect(amount(jun.slip, 'paye')).toBe(6_489_500);
  });

  it('pay items are checked against the pinned pack: arrears without components, a duplicate or a non-NGN amount are a 400 naming each (spec 2.1, 7)', async () => {
    const { k } = await setup(row(40_000_000), 0);
    const created = await post(h, k, '/v1/payroll/runs', { period: '2026-01', run_type: 'off_cycle' });
    const r = await h.request('PATCH', `/v1/payroll/runs/${created.body.id}`, { key: k, body: { items: [
      { payee_ref: 'ex-1', code: 'arrears', amount: ngn(10) },
      { payee_ref: 'ex-1', code: 'bonus', amount: { amount: 5, currency: 'USD' } },
      { payee_ref: 'ex-1', code: 'bonus', amount: ngn(5) },
    ] } });
    expect(r.status, r.text).toBe(400);
    expect(r.body.error.validation.entries.map((e: any) => [e.index, e.code])).toEqual([[2, 'unsupported_currency'], [1, 'components_required'], [3, 'duplicate_pay_item']]);
    const frac = await h.request('PATCH', `/v1/payroll/runs/${created.body.id}`, { key: k, body: { items: [{ payee_ref: 'ex-1', code: 'bonus', amount: { amount: 1.5, currency: 'NGN' } }] } });
    expect(frac.status).toBe(400);
    expect(frac.body.error.code).toBe('invalid_money_amount');
    const pinnedOld = await post(h, k, '/v1/payroll/runs', { period: '2026-01', run_type: 'bonus', rule_pack_version: '2026.01.1' });
    const old = await h.request('PATCH', `/v1/payroll/runs/${pinnedOld.body.id}`, { key: k, body: { items: [{ payee_ref: 'ex-1', code: 'bonus', amount: ngn(5) }] } });
    expect(old.status).toBe(400);
    expect(old.body.error.validation.entries[0].code).toBe('irregular_pay_not_in_rule_pack');
  });
});
