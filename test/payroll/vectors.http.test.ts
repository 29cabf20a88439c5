/**
 * Every public vector of ng-payroll-2026-vectors.json reproduced to the kobo through the HTTP API:
 * import the payee, run the earlier months of the year where the vector needs year-to-date
 * figures, then calculate and execute the vector's month and read the payslip lines.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/http.ts';
import { calculatedRun, executedRun, importPayees, payslipsOf, post } from './support.ts';

interface Expected { kobo: number; exact_kobo: string }
interface Vector {
  id: string;
  title: string;
  inputs: Record<string, any>;
  expected: Record<string, any> & { gross_kobo: number; paye_kobo: number; net_pay_kobo: number; employee_pension: Expected; employer_pension: Expected; nhf: Expected; nhia_employee: Expected; nhia_employer: Expected; nsitf: Expected; itf_monthly_accrual: Expected };
}

const vectors: Vector[] = JSON.parse(readFileSync(new URL('../../../shared/reference/ng-payroll-2026-vectors.json', import.meta.url), 'utf8'));

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const pad = (m: number) => String(m).padStart(2, '0');

describe('ng-payroll 2026 vectors through the HTTP API (spec 2.9, 4.8)', () => {
  for (const v of vectors) {
    it(`${v.id} - ${v.title}: every line to the kobo, each with its trace`, async () => {
      const org = await h.register();
      const i = v.inputs;
      const month = Number(String(i.pay_period).slice(5, 7));
      const payAt = (m: number) => i.pay_by_month_kobo?.[`2026-${pad(m)}`] ?? { basic: i.monthly_basic_kobo, housing: i.monthly_housing_kobo, transport: i.monthly_transport_kobo, other: i.monthly_other_allowances_kobo };
      const first = payAt(1);
      const employed = i.months_employed_in_2026 as number[];
      const imported = await importPayees(h, org.key, [{
        payee_ref: `${v.id}-payee`,
        monthly_basic: first.basic, monthly_housing: first.housing, monthly_transport: first.transport, monthly_other_allowances: first.other,
        annual_rent_paid: i.annual_rent_paid_kobo, annual_life_assurance_premium: i.annual_life_assurance_premium_kobo, annual_mortgage_interest: i.annual_mortgage_interest_kobo,
        state_of_residence: i.state_of_residence, nhf_contributing: i.nhf_contributing, nhia_enrolled: i.nhia_enrolled,
        starts_on: `2026-${pad(employed[0])}-01`, ends_on: employed[employed.length - 1] === 12 ? null : `2026-${pad(employed[employed.length - 1])}-28`,
      }], { headcount: i.employer_headcount, turnover_50m_or_more: i.employer_turnover_50m_or_more, maker_checker_threshold: 1e15 });
      const profileId = imported.rows[0].pay_profile_id;

      let current = first;
      const setPay = async (m: number) => {
        const p = payAt(m);
        if (p.basic === current.basic && p.housing === current.housing && p.transport === current.transport && p.other === current.other) return;
        const r = await h.request('PATCH', `/v1/pay_profiles/${profileId}`, { key: org.key, body: {
          monthly_basic: { amount: p.basic, currency: 'NGN' }, monthly_housing: { amount: p.housing, currency: 'NGN' },
          monthly_transport: { amount: p.transport, currency: 'NGN' }, monthly_other_allowances: { amount: p.other, currency: 'NGN' },
        } });
        expect(r.status, r.text).toBe(200);
        current = p;
      };
      for (const m of employed.filter((x) => x < month)) {
        await setPay(m);
        await executedRun(h, org.key, `2026-${pad(m)}`);
      }
      await setPay(month);
      const run = await calculatedRun(h, org.key, i.pay_period);
      const [slip] = await payslipsOf(h, org.key, run.id);
      const byCode = new Map<string, any>(slip.lines.map((l: any) => [l.code, l]));
      const amount = (code: string) => byCode.get(code)?.amount.amount ?? 0;
      const e = v.expected;

      expect(slip.gross.amount).toBe(e.gross_kobo);
      expect(amount('paye')).toBe(e.paye_kobo);
      expect(amount('pension_employee')).toBe(e.employee_pension.kobo);
      expect(amount('pension_employer')).toBe(e.employer_pension.kobo);
      expect(amount('nhf')).toBe(e.nhf.kobo);
      expect(amount('nhia_employee')).toBe(e.nhia_employee.kobo);
      expect(amount('nhia_employer')).toBe(e.nhia_employer.kobo);
      expect(amount('nsitf')).toBe(e.nsitf.kobo);
      expect(amount('itf')).toBe(e.itf_monthly_accrual.kobo);
      expect(slip.net.amount).toBe(e.net_pay_kobo);
      expect(e.paye.paye_ytd_before_kobo).toBe(slip.year_to_date.paye.amount - amount('paye'));
      for (const [code, exp] of [['pension_employee', e.employee_pension], ['pension_employer', e.employer_pension], ['nhf', e.nhf], ['nsitf', e.nsitf], ['itf', e.itf_monthly_accrual]] as const) {
        if (exp.kobo !== 0 || byCode.has(code)) expect(byCode.get(code).trace.exact, code).toBe(exp.exact_kobo);
      }
      expect(byCode.get('paye').trace.exact).toBe(e.paye.paye_month_exact_kobo);
      for (const l of slip.lines) {
        expect(l.trace.formula.length).toBeGreaterThan(0);
        expect(Object.keys(l.trace.inputs).length).toBeGreaterThan(0);
        expect(l.trace.exact).toMatch(/^-?\d+(\.\d+)?(\/\d+)?$/);
        expect(l.trace.rounding).toBe('half_up_per_line_kobo');
        expect(l.trace.rule_pack_version).toBe(run.rule_pack.version);
      }
      // totals are sums of lines
      const sum = (cat: string) => slip.lines.filter((l: any) => l.category === cat).reduce((a: number, l: any) => a + l.amount.amount, 0);
      expect(sum('earning')).toBe(slip.gross.amount);
      expect(sum('deduction')).toBe(slip.total_deductions.amount);
      expect(sum('employer_contribution')).toBe(slip.employer_contributions.amount);

      // execute the vector's month too; the issued payslip keeps the same figures
      for (const step of ['submit', 'approve', 'execute']) expect((await post(h, org.key, `/v1/payroll/runs/${run.id}/${step}`)).status).toBe(200);
      const after = await h.request('GET', `/v1/payroll/payslips/${slip.id}`, { key: org.key });
      expect(after.body.status).toBe('final');
      expect(after.body.net.amount).toBe(e.net_pay_kobo);
    });
  }
});
