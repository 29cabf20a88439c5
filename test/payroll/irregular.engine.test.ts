/**
 * One-off and terminal pay in the engine (reference ng-payroll-2026-irregular-pay.md, examples of
 * section 1.4 to the kobo; spec 2.9 traces). The same examples run through the HTTP API in
 * irregular.http.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { computePayslip, findPack, remittanceSchedule, type PayeeInputs, type PayItem, type PayslipComputation, type RulePack, type YearToDate } from '../../actors/payroll/engine/index.ts';

const pack = findPack('2026.11.1')!;
const methodA: RulePack = { ...pack, parameters: { ...pack.parameters, irregular_pay: { ...pack.parameters.irregular_pay!, one_off_method: 'cumulative_respread' } } };
const ALL = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];
const p = (m: number) => `2026-${String(m).padStart(2, '0')}`;

/** 50/25/15/10 split of a monthly gross (the reference's convention). */
function payee(gross: number, over: Partial<PayeeInputs> = {}): PayeeInputs {
  return {
    monthly_basic: gross / 2, monthly_housing: gross / 4, monthly_transport: (gross * 3) / 20, monthly_other_allowances: gross / 10,
    annual_rent_paid: 0, annual_life_assurance_premium: 0, annual_mortgage_interest: 0,
    state_of_residence: 'NG-LA', nhf_contributing: true, nhia_enrolled: false, months_employed: ALL, ...over,
  };
}
const amt = (c: PayslipComputation, code: string) => c.lines.find((l) => l.code === code)?.amount ?? 0;
const EMPLOYER = { headcount: 25, turnover_50m_or_more: false };

function months(k: RulePack, to: number, who: PayeeInputs, ytd?: YearToDate): YearToDate | undefined {
  for (let m = 1; m <= to; m++) ytd = computePayslip(k, p(m), who, EMPLOYER, ytd).ytd_after;
  return ytd;
}

describe('Example 1: March bonus, Lagos (reference irregular pay 1.4)', () => {
  const who = payee(50_000_000);
  const bonus: PayItem[] = [{ code: 'bonus', amount: 100_000_000 }];

  it('method B (pack default): March PAYE 24,489,500 kobo on one payslip; April back to 6,489,500; the year totals 95,874,000', () => {
    let ytd = months(pack, 2, who);
    expect(ytd!.paye).toBe(12_979_000);
    const mar = computePayslip(pack, '2026-03', who, EMPLOYER, ytd, { items: bonus });
    expect(amt(mar, 'paye')).toBe(24_489_500);
    expect(mar.lines.find((l) => l.code === 'paye')!.trace.inputs).toMatchObject({ annual_tax_kobo: '95874000', regular_annual_tax_kobo: '77874000', one_off_paye_kobo: '18000000' });
    expect(mar.lines.find((l) => l.code === 'paye')!.trace.exact).toBe('24489500');
    expect(amt(mar, 'pension_employee')).toBe(3_600_000);
    expect(amt(mar, 'pension_employer')).toBe(4_500_000);
    expect(amt(mar, 'nhf')).toBe(625_000);
    expect(amt(mar, 'nsitf')).toBe(500_000);
    expect(amt(mar, 'itf')).toBe(1_500_000);
    expect(amt(mar, 'bonus')).toBe(100_000_000);
    expect(mar.net).toBe(121_285_500);
    ytd = mar.ytd_after;
    const apr = computePayslip(pack, '2026-04', who, EMPLOYER, ytd);
    expect(amt(apr, 'paye')).toBe(6_489_500);
    const dec = months(pack, 12, who, undefined);
    expect(dec).toBeDefined();
    let y: YearToDate | undefined = mar.ytd_after;
    for (let m = 4; m <= 12; m++) y = computePayslip(pack, p(m), who, EMPLOYER, y).ytd_after;
    expect(y!.paye).toBe(95_874_000);
  });

  it('method A (pack parameter): March 10,989,500, April to December 7,989,500 each, the same year total', () => {
    const ytd = months(methodA, 2, who);
    const mar = computePayslip(methodA, '2026-03', who, EMPLOYER, ytd, { items: bonus });
    expect(amt(mar, 'paye')).toBe(10_989_500);
    expect(mar.net).toBe(134_785_500);
    let y = mar.ytd_after;
    for (let m = 4; m <= 12; m++) {
      const c = computePayslip(methodA, p(m), who, EMPLOYER, y);
      expect(amt(c, 'paye')).toBe(7_989_500);
      y = c.ytd_after;
    }
    expect(y.paye).toBe(95_874_000);
  });

  it('a bonus payslip apart from the salary, either order, gives the month the same cumulative PAYE (reference 1.2 off-cycle runs)', () => {
    for (const k of [pack, methodA]) {
      const ytd = months(k, 2, who);
      const first = computePayslip(k, '2026-03', who, EMPLOYER, ytd, { items: bonus, regular: false });
      const then = computePayslip(k, '2026-03', who, EMPLOYER, first.ytd_after);
      const salary = computePayslip(k, '2026-03', who, EMPLOYER, ytd);
      const after = computePayslip(k, '2026-03', who, EMPLOYER, salary.ytd_after, { items: bonus, regular: false });
      const month = k === pack ? 24_489_500 : 10_989_500;
      expect(amt(first, 'paye') + amt(then, 'paye')).toBe(month);
      expect(amt(salary, 'paye') + amt(after, 'paye')).toBe(month);
      // the bonus payslip has no regular lines; NSITF excludes the bonus, ITF includes it
      expect(first.lines.map((l) => l.code)).toEqual(['bonus', 'paye', 'itf']);
      expect(amt(first, 'itf')).toBe(1_000_000);
      expect(first.gross).toBe(100_000_000);
    }
  });

  it('due dates for a 27 March pay date: PAYE 10 April; pension 7 April counting weekends, 9 April with Good Friday and Easter Monday as holidays', () => {
    const ytd = months(pack, 2, who);
    const mar = computePayslip(pack, '2026-03', who, EMPLOYER, ytd, { items: bonus });
    const r = remittanceSchedule(pack, mar, '2026-03-27');
    expect(r.paye.due_date).toBe('2026-04-10');
    expect(r.pension.due_date).toBe('2026-04-07');
    const withHolidays: RulePack = { ...pack, parameters: { ...pack.parameters, remittance: { ...pack.parameters.remittance, holidays: ['2026-04-03', '2026-04-06'] } } };
    expect(remittanceSchedule(withHolidays, mar, '2026-03-27').pension.due_date).toBe('2026-04-09');
  });
});

describe('Example 2: December 13th month, FCT, rent relief (reference irregular pay 1.4)', () => {
  it('December PAYE 8,233,700 (methods A and B agree when k = n); net 49,231,300; NSITF 300,000; ITF 600,000', () => {
    const who = payee(30_000_000, { state_of_residence: 'NG-FC', annual_rent_paid: 120_000_000 });
    for (const k of [pack, methodA]) {
      const ytd = months(k, 11, who);
      expect(ytd!.paye).toBe(31_170_700);
      const dec = computePayslip(k, '2026-12', who, EMPLOYER, ytd, { items: [{ code: 'thirteenth_month', amount: 30_000_000 }] });
      expect(amt(dec, 'paye')).toBe(8_233_700);
      expect(dec.net).toBe(49_231_300);
      expect(amt(dec, 'nsitf')).toBe(300_000);
      expect(amt(dec, 'itf')).toBe(600_000);
      expect(dec.ytd_after.paye).toBe(39_404_400);
      expect(remittanceSchedule(k, dec, '2026-12-23').paye.due_date).toBe('2027-01-10');
    }
  });
});

describe('Example 3: final settlement in June, Lagos (reference irregular pay 1.4)', () => {
  const jan = payee(80_000_000);
  const leaver = { ...jan, months_employed: [1, 2, 3, 4, 5, 6] };
  const terminal = (comp: number, gratuity: 'gratuity' | 'pra_gratuity' = 'gratuity'): PayItem[] => [
    { code: 'unused_leave', amount: 20_000_000 },
    { code: 'notice_pay', amount: 80_000_000 },
    { code: gratuity, amount: 200_000_000 },
    { code: 'compensation_for_loss_of_employment', amount: comp },
  ];

  it('June PAYE 54,933,200 with n = k = 6; pension and NHF on salary only; NSITF and ITF 800,000; cash 880,000,000, net 818,306,800', () => {
    const ytd = months(pack, 5, jan);
    expect(ytd!.paye).toBe(57_166_000);
    const jun = computePayslip(pack, '2026-06', leaver, EMPLOYER, ytd, { items: terminal(500_000_000) });
    expect(amt(jun, 'paye')).toBe(54_933_200);
    expect(jun.lines.find((l) => l.code === 'paye')!.trace.inputs).toMatchObject({ month_k: '6', months_employed_n: '6', annual_tax_kobo: '112099200', compensation_taxable_kobo: '0' });
    expect(amt(jun, 'pension_employee')).toBe(5_760_000);
    expect(amt(jun, 'pension_employer')).toBe(7_200_000);
    expect(amt(jun, 'nhf')).toBe(1_000_000);
    expect(amt(jun, 'nsitf')).toBe(800_000);
    expect(amt(jun, 'itf')).toBe(800_000);
    expect(jun.gross).toBe(880_000_000);
    expect(jun.net).toBe(818_306_800);
    const r = remittanceSchedule(pack, jun, '2026-06-30');
    expect(r.paye.due_date).toBe('2026-07-10');
    expect(r.pension.due_date).toBe('2026-07-09');
  });

  it('variant G: a gratuity under the PRA is exempt: June PAYE 18,933,200', () => {
    const jun = computePayslip(pack, '2026-06', leaver, EMPLOYER, months(pack, 5, jan), { items: terminal(500_000_000, 'pra_gratuity') });
    expect(amt(jun, 'paye')).toBe(18_933_200);
  });

  it('variant C: compensation of NGN 60m: the NGN 10m excess over the NTA s.50 exemption is taxed at payment: June PAYE 251,116,400', () => {
    const jun = computePayslip(pack, '2026-06', leaver, EMPLOYER, months(pack, 5, jan), { items: terminal(6_000_000_000) });
    expect(amt(jun, 'paye')).toBe(251_116_400);
    expect(jun.lines.find((l) => l.code === 'paye')!.trace.inputs).toMatchObject({ compensation_taxable_kobo: '1000000000', annual_tax_kobo: '308282400' });
  });

  it('pay after the employment ended is income of the last month of employment (NTA s.26(2)(b)); regular pay cannot be in it', () => {
    const ytd = computePayslip(pack, '2026-06', leaver, EMPLOYER, months(pack, 5, jan)).ytd_after;
    const aug = computePayslip(pack, '2026-08', leaver, EMPLOYER, ytd, { items: terminal(500_000_000), regular: false, income_month: 6 });
    expect(ytd.paye + amt(aug, 'paye')).toBe(112_099_200);
    expect(() => computePayslip(pack, '2026-08', leaver, EMPLOYER, ytd, { items: terminal(500_000_000), regular: true, income_month: 6 })).toThrow(/income_month|regular/);
  });

  it('a leaver whose exit month restates the year to actual income gets a refund (negative PAYE; reference 1.2 leavers)', () => {
    const who = payee(20_000_000);
    const ytd = months(pack, 2, who);
    const mar = computePayslip(pack, '2026-03', { ...who, months_employed: [1, 2, 3] }, EMPLOYER, ytd);
    expect(amt(mar, 'paye')).toBe(-3_493_000);
    expect(mar.ytd_after.paye).toBe(Number(mar.lines.find((l) => l.code === 'paye')!.trace.inputs.annual_tax_kobo));
  });
});

describe('Example 4: same-year arrears with the May salary (reference irregular pay 1.4)', () => {
  it('May PAYE 13,081,100 (the year restated, method A even under the method-B pack); pension 6,480,000 / 8,100,000; NHF 1,125,000; net 69,313,900', () => {
    const before = payee(40_000_000);
    const after = payee(50_000_000);
    for (const k of [pack, methodA]) {
      const ytd = months(k, 4, before);
      expect(ytd!.paye).toBe(19_366_400);
      const may = computePayslip(k, '2026-05', after, EMPLOYER, ytd, {
        items: [{ code: 'arrears', amount: 40_000_000, components: { basic: 20_000_000, housing: 10_000_000, transport: 6_000_000, other_allowances: 4_000_000 } }],
      });
      expect(amt(may, 'paye')).toBe(13_081_100);
      expect(amt(may, 'pension_employee')).toBe(6_480_000);
      expect(amt(may, 'pension_employer')).toBe(8_100_000);
      expect(amt(may, 'nhf')).toBe(1_125_000);
      expect(amt(may, 'nsitf')).toBe(900_000);
      expect(amt(may, 'itf')).toBe(900_000);
      expect(may.gross).toBe(90_000_000);
      expect(may.net).toBe(69_313_900);
      let y = may.ytd_after;
      for (let m = 6; m <= 12; m++) {
        const c = computePayslip(k, p(m), after, EMPLOYER, y);
        expect(amt(c, 'paye')).toBe(6_489_500);
        y = c.ytd_after;
      }
      expect(y.paye).toBe(77_874_000);
    }
  });

  it('arrears must be given by component, summing to the amount; items need a pack with irregular-pay rules', () => {
    const ytd = months(pack, 4, payee(40_000_000));
    expect(() => computePayslip(pack, '2026-05', payee(50_000_000), EMPLOYER, ytd, { items: [{ code: 'arrears', amount: 1 }] })).toThrow(/components/);
    expect(() => computePayslip(pack, '2026-05', payee(50_000_000), EMPLOYER, ytd, { items: [{ code: 'arrears', amount: 2, components: { basic: 1, housing: 0, transport: 0, other_allowances: 0 } }] })).toThrow(/sum/);
    expect(() => computePayslip(findPack('2026.01.1')!, '2026-05', payee(50_000_000), EMPLOYER, undefined, { items: [{ code: 'bonus', amount: 1 }] })).toThrow(/no rules for one-off/);
  });
});
