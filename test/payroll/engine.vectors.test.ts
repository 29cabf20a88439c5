/**
 * Every public vector of shared/reference/ng-payroll-2026-vectors.json reproduced to the kobo by
 * the engine, each line with its trace (spec 2.9 traces).
 * Earlier months of the tax year are computed first, in order, so the cumulative PAYE method
 * runs on year-to-date figures exactly as a run would; the whole year's PAYE schedule is checked.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  computePayslip,
  findPack,
  remittanceSchedule,
  type LineCode,
  type PayeeInputs,
  type PayslipComputation,
  type RulePack,
  type YearToDate,
} from '../../actors/payroll/engine/index.ts';

interface RateExpect { formula: string; base_kobo: number; rate: string; exact_kobo: string; kobo: number }
interface Vector {
  id: string;
  title: string;
  inputs: {
    tax_year: number; pay_period: string; pay_date: string;
    monthly_basic_kobo: number; monthly_housing_kobo: number; monthly_transport_kobo: number; monthly_other_allowances_kobo: number;
    annual_rent_paid_kobo: number; annual_life_assurance_premium_kobo: number; annual_mortgage_interest_kobo: number;
    state_of_residence: string; employer_headcount: number; employer_turnover_50m_or_more: boolean;
    nhf_contributing: boolean; nhia_enrolled: boolean; months_employed_in_2026: number[];
    pay_by_month_kobo?: Record<string, { basic: number; housing: number; transport: number; other: number }>;
  };
  expected: {
    gross_kobo: number;
    employee_pension: RateExpect; employer_pension: RateExpect; nhf: RateExpect;
    nhia_employee: RateExpect; nhia_employer: RateExpect; nsitf: RateExpect; itf_monthly_accrual: RateExpect;
    paye: {
      month: number; minimum_wage_exempt: boolean;
      projected_annual_gross_kobo: number; projected_annual_statutory_deductions_kobo: number;
      rent_relief_exact_kobo: string; rent_relief_kobo: number; other_reliefs_kobo: number; chargeable_income_kobo: number;
      bands: Array<{ rate: string; taxable_in_band_kobo: string; tax_exact_kobo: string }>;
      annual_tax_exact_kobo: string; annual_tax_kobo: number;
      cumulative_target_exact_kobo: string; cumulative_target_kobo: number;
      paye_ytd_before_kobo: number; paye_month_exact_kobo: string; paye_month_kobo: number;
    };
    paye_kobo: number;
    paye_schedule_kobo: Record<string, number>;
    paye_year_total_kobo: number;
    employee_deductions_total_kobo: number;
    net_pay_kobo: number;
    employer_cost_kobo: number;
    remittance: {
      paye: { authority_jurisdiction: string; authority: string; amount_kobo: number; due_date: string };
      pension: { amount_kobo: number; due_date: string };
      nhf: { amount_kobo: number; due_date: string | null };
      nsitf: { amount_kobo: number; due_date: string | null };
      itf: { monthly_accrual_kobo: number; due_date: string };
    };
  };
}

const vectors = JSON.parse(readFileSync('/work/shared/reference/ng-payroll-2026-vectors.json', 'utf8')) as Vector[];
/** The vectors hold under the first 2026 pack and under the one that added irregular pay. */
const VERSIONS = ['2026.01.1', '2026.11.1'] as const;
const period = (m: number) => `2026-${String(m).padStart(2, '0')}`;

function payeeFor(v: Vector, p: string): PayeeInputs {
  const i = v.inputs;
  const pay = i.pay_by_month_kobo?.[p];
  return {
    monthly_basic: pay ? pay.basic : i.monthly_basic_kobo,
    monthly_housing: pay ? pay.housing : i.monthly_housing_kobo,
    monthly_transport: pay ? pay.transport : i.monthly_transport_kobo,
    monthly_other_allowances: pay ? pay.other : i.monthly_other_allowances_kobo,
    annual_rent_paid: i.annual_rent_paid_kobo,
    annual_life_assurance_premium: i.annual_life_assurance_premium_kobo,
    annual_mortgage_interest: i.annual_mortgage_interest_kobo,
    state_of_residence: i.state_of_residence,
    nhf_contributing: i.nhf_contributing,
    nhia_enrolled: i.nhia_enrolled,
    months_employed: i.months_employed_in_2026,
  };
}

/** The whole tax year in order, each month on the YTD of the months before it. */
function year(pack: RulePack, v: Vector): Map<string, PayslipComputation> {
  const out = new Map<string, PayslipComputation>();
  let ytd: YearToDate | undefined;
  const employer = { headcount: v.inputs.employer_headcount, turnover_50m_or_more: v.inputs.employer_turnover_50m_or_more };
  for (const m of [...v.inputs.months_employed_in_2026].sort((a, b) => a - b)) {
    const c = computePayslip(pack, period(m), payeeFor(v, period(m)), employer, ytd);
    out.set(period(m), c);
    ytd = c.ytd_after;
  }
  return out;
}

const line = (c: PayslipComputation, code: LineCode) => c.lines.find((l) => l.code === code);

const RATE_LINES: Array<[keyof Vector['expected'], LineCode]> = [
  ['employee_pension', 'pension_employee'],
  ['employer_pension', 'pension_employer'],
  ['nhf', 'nhf'],
  ['nhia_employee', 'nhia_employee'],
  ['nhia_employer', 'nhia_employer'],
  ['nsitf', 'nsitf'],
  ['itf_monthly_accrual', 'itf'],
];

describe.each(VERSIONS)('ng-payroll 2026 public vectors reproduced to the kobo with traces under pack %s (spec 2.9)', (version) => {
  const pack = findPack(version)!;
  it('covers every vector in the reference file', () => {
    expect(vectors.length).toBeGreaterThanOrEqual(13);
  });

  describe.each(vectors.map((v) => [v.id, v] as const))('%s', (_id, v) => {
    const all = year(pack, v);
    const c = all.get(v.inputs.pay_period)!;
    const e = v.expected;

    it('gross, deductions, net and employer cost equal the vector; totals are sums of lines', () => {
      expect(c.gross).toBe(e.gross_kobo);
      expect(c.total_deductions).toBe(e.employee_deductions_total_kobo);
      expect(c.net).toBe(e.net_pay_kobo);
      expect(c.gross + c.employer_contributions).toBe(e.employer_cost_kobo);
      const sum = (cat: string) => c.lines.filter((l) => l.category === cat).reduce((s, l) => s + l.amount, 0);
      expect(sum('earning')).toBe(c.gross);
      expect(sum('deduction')).toBe(c.total_deductions);
      expect(sum('employer_contribution')).toBe(c.employer_contributions);
      expect(c.net).toBe(c.gross - c.total_deductions);
    });

    it.each(RATE_LINES)('line %s: amount, base, rate, exact value and formula in the trace', (key, code) => {
      const x = e[key] as RateExpect;
      const l = line(c, code);
      if (x.formula.startsWith('not applicable')) {
        expect(l).toBeUndefined();
        expect(x.kobo).toBe(0);
        return;
      }
      expect(l).toBeDefined();
      expect(l!.amount).toBe(x.kobo);
      expect(l!.trace.exact).toBe(x.exact_kobo);
      expect(l!.trace.inputs.base_kobo).toBe(String(x.base_kobo));
      expect(l!.trace.inputs.rate).toBe(x.rate);
      expect(l!.trace.formula).toBe(x.formula);
      expect(l!.trace.rounding).toBe('half_up_per_line_kobo');
      expect(l!.trace.rule_pack_version).toBe(version);
    });

    it('PAYE line: cumulative method figures in the trace, exact month value, amount', () => {
      const l = line(c, 'paye')!;
      const p = e.paye;
      const t = l.trace.inputs;
      expect(l.amount).toBe(e.paye_kobo);
      expect(l.amount).toBe(p.paye_month_kobo);
      expect(l.trace.exact).toBe(p.paye_month_exact_kobo);
      expect(t.month_k).toBe(String(p.month));
      expect(t.minimum_wage_exempt).toBe(String(p.minimum_wage_exempt));
      expect(t.projected_annual_gross_kobo).toBe(String(p.projected_annual_gross_kobo));
      expect(t.projected_annual_statutory_deductions_kobo).toBe(String(p.projected_annual_statutory_deductions_kobo));
      expect(t.rent_relief_exact_kobo).toBe(p.rent_relief_exact_kobo);
      expect(t.rent_relief_kobo).toBe(String(p.rent_relief_kobo));
      expect(t.other_reliefs_kobo).toBe(String(p.other_reliefs_kobo));
      expect(t.chargeable_income_kobo).toBe(String(p.chargeable_income_kobo));
      p.bands.forEach((b, i) => {
        expect(t[`band_${i + 1}_rate`]).toBe(b.rate);
        expect(t[`band_${i + 1}_taxable_kobo`]).toBe(b.taxable_in_band_kobo);
        expect(t[`band_${i + 1}_tax_exact_kobo`]).toBe(b.tax_exact_kobo);
      });
      expect(t.annual_tax_exact_kobo).toBe(p.annual_tax_exact_kobo);
      expect(t.annual_tax_kobo).toBe(String(p.annual_tax_kobo));
      expect(t.cumulative_target_exact_kobo).toBe(p.cumulative_target_exact_kobo);
      expect(t.cumulative_target_kobo).toBe(String(p.cumulative_target_kobo));
      expect(t.paye_ytd_before_kobo).toBe(String(p.paye_ytd_before_kobo));
      expect(l.trace.rounding).toBe('half_up_per_line_kobo');
      expect(l.trace.rule_pack_version).toBe(version);
      expect(l.trace.formula).toMatch(/cumulative target/);
    });

    it('the whole year: monthly PAYE schedule and year total (cumulative method, reference 9 step 3)', () => {
      const schedule: Record<string, number> = {};
      for (const [p, m] of all) schedule[p] = line(m, 'paye')!.amount;
      expect(schedule).toEqual(e.paye_schedule_kobo);
      const last = [...all.values()].at(-1)!;
      expect(last.ytd_after.paye).toBe(e.paye_year_total_kobo);
    });

    it('remittance: PAYE authority of residence, amounts and due dates (reference 8)', () => {
      const r = remittanceSchedule(pack, c, v.inputs.pay_date);
      const x = e.remittance;
      expect(r.paye).toMatchObject({ jurisdiction: x.paye.authority_jurisdiction, authority: x.paye.authority, amount: x.paye.amount_kobo, due_date: x.paye.due_date });
      expect(r.pension.amount).toBe(x.pension.amount_kobo);
      expect(r.pension.due_date).toBe(x.pension.due_date);
      expect(r.nhf.amount).toBe(x.nhf.amount_kobo);
      expect(r.nhf.due_date).toBe(x.nhf.due_date);
      expect(r.nsitf.amount).toBe(x.nsitf.amount_kobo);
      expect(r.nsitf.due_date).toBe(x.nsitf.due_date);
      expect(r.itf.monthly_accrual).toBe(x.itf.monthly_accrual_kobo);
      expect(r.itf.due_date).toBe(x.itf.due_date);
    });
  });
});
