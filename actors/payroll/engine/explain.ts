/**
 * Plain words from a payslip's traces (spec 4.8 explanation) and line-by-line differences between
 * two computations (spec 4.8 replay; simulate against a draft pack).
 */
import cc from 'currency-codes';
import type { ComputationDifference, LineCode, PayslipComputation, PayslipLine } from './types.ts';
import { LINE_ORDER } from './compute.ts';

const DIGITS = cc.code('NGN')?.digits ?? 2;
const UNIT = 10 ** DIGITS;

/** kobo -> "NGN 1,234.56" (minor units per major unit from ISO 4217 data). */
export function naira(kobo: number): string {
  const neg = kobo < 0;
  const a = Math.abs(kobo);
  const whole = Math.floor(a / UNIT);
  const frac = String(a - whole * UNIT).padStart(DIGITS, '0');
  return `${neg ? '-' : ''}NGN ${whole.toLocaleString('en-US')}${DIGITS ? '.' + frac : ''}`;
}

function explainLine(l: PayslipLine): string {
  const t = l.trace;
  const i = t.inputs;
  switch (l.category) {
    case 'earning':
      return `${l.label}: ${naira(l.amount)}, the ${t.formula}.`;
    case 'deduction':
    case 'employer_contribution': {
      if (l.code === 'paye') return explainPaye(l);
      const who = l.category === 'deduction' ? 'deducted from pay' : 'paid by the employer on top of pay';
      const exact = t.exact === String(l.amount) ? '' : ` The exact amount is ${t.exact} kobo, rounded half up to ${l.amount} kobo (${t.rounding}).`;
      return `${l.label}: ${naira(l.amount)} ${who}, ${t.formula} = ${i.rate} x ${naira(Number(i.base_kobo))}.${exact}`;
    }
  }
}

function explainPaye(l: PayslipLine): string {
  const i = l.trace.inputs;
  const n = (k: string) => naira(Number(i[k]));
  const parts: string[] = [];
  parts.push(
    `PAYE income tax: ${naira(l.amount)}. Your pay for the year is projected at ${n('projected_annual_gross_kobo')} ` +
      `(${n('ytd_gross_kobo')} paid so far this year plus ${n('monthly_gross_kobo')} for each of the ${i.remaining_months} remaining employed months).`,
  );
  parts.push(
    `Deducted from it: statutory contributions ${n('projected_annual_statutory_deductions_kobo')}, rent relief ${n('rent_relief_kobo')} ` +
      `(${i.rent_relief_rate} of rent ${n('annual_rent_paid_kobo')}, at most ${n('rent_relief_cap_kobo')}) and other reliefs ${n('other_reliefs_kobo')}, ` +
      `leaving chargeable income of ${n('chargeable_income_kobo')}.`,
  );
  const bands: string[] = [];
  for (let b = 1; i[`band_${b}_taxable_kobo`] !== undefined; b++) {
    if (i[`band_${b}_taxable_kobo`] === '0') continue;
    bands.push(`${n(`band_${b}_taxable_kobo`)} at ${i[`band_${b}_rate`]}`);
  }
  if (i.minimum_wage_exempt === 'true') {
    parts.push(`Monthly gross pay of ${n('monthly_gross_kobo')} is at or below the minimum-wage threshold of ${n('minimum_wage_threshold_monthly_gross_kobo')}, so the income is exempt and the tax for the year is nil.`);
  } else {
    parts.push(`Tax on the Fourth Schedule bands (${bands.join('; ') || 'nothing above the nil band'}) is ${i.annual_tax_exact_kobo} kobo for the year, rounded half up to ${n('annual_tax_kobo')}.`);
  }
  if (i.one_off_paye_kobo !== undefined) {
    // Method B (reference irregular pay 1.2): one-off pay is taxed in the month it is paid.
    parts.push(
      `One-off pay this year (${n('ytd_taxable_one_off_kobo')} before this payslip, ${naira(Number(i.one_off_taxable_kobo) + Number(i.compensation_taxable_kobo))} on it) is income of the day it is paid: ` +
        `without it the tax for the year would be ${n('regular_annual_tax_kobo')}, so the one-off part is ${n('annual_tax_kobo')} less that, less ${n('one_off_paye_ytd_before_kobo')} already deducted on one-offs: ${n('one_off_paye_kobo')}.`,
    );
    parts.push(
      `On regular pay, ${i.regular_months_counted_k} of ${i.months_employed_n} months are counted by now, so its tax due is ${i.regular_annual_tax_kobo} x ${i.regular_months_counted_k}/${i.months_employed_n} = ${i.cumulative_target_exact_kobo} kobo, ` +
        `rounded to ${n('cumulative_target_kobo')}, less ${n('regular_paye_ytd_before_kobo')} already deducted on regular pay; with the one-off part this payslip's PAYE is ${naira(l.amount)}` +
        (l.amount < 0 ? ', refunded through this payslip.' : '.'),
    );
    return parts.join(' ');
  }
  const k = i.regular_months_counted_k ?? i.month_k;
  parts.push(
    `This is month ${i.month_k} of ${i.months_employed_n} employed months${k !== i.month_k ? ` (${k} with regular pay counted so far)` : ''}, so tax due by now is ${i.annual_tax_kobo} x ${k}/${i.months_employed_n} = ${i.cumulative_target_exact_kobo} kobo, ` +
      `rounded to ${n('cumulative_target_kobo')}; less ${n('paye_ytd_before_kobo')} already deducted this year leaves ${naira(l.amount)}` +
      (l.amount < 0 ? ', refunded through this payslip.' : '.'),
  );
  return parts.join(' ');
}

/** Sentences built only from the computation's lines and traces. */
export function explain(c: PayslipComputation): string[] {
  const out: string[] = [];
  out.push(`Payslip for ${c.period} computed under rule pack ${c.rule_pack.pack_id} ${c.rule_pack.version} (${c.rule_pack.content_hash}).`);
  for (const l of c.lines) out.push(explainLine(l));
  out.push(`Gross pay ${naira(c.gross)} less deductions ${naira(c.total_deductions)} gives net pay ${naira(c.net)}.`);
  out.push(`The employer also contributes ${naira(c.employer_contributions)}; employer cost is ${naira(c.gross + c.employer_contributions)}.`);
  return out;
}

function amounts(c: PayslipComputation): Map<LineCode, number> {
  const m = new Map<LineCode, number>();
  for (const l of c.lines) m.set(l.code, (m.get(l.code) ?? 0) + l.amount);
  return m;
}

/**
 * Lines whose amounts differ (a line absent on one side counts as 0), in payslip order, then the
 * totals that differ. Empty when the two are identical to the kobo.
 */
export function diffComputations(a: PayslipComputation, b: PayslipComputation): ComputationDifference[] {
  const A = amounts(a);
  const B = amounts(b);
  const out: ComputationDifference[] = [];
  for (const code of LINE_ORDER) {
    const x = A.get(code) ?? 0;
    const y = B.get(code) ?? 0;
    if (x !== y) out.push({ code, a: x, b: y });
  }
  for (const code of ['gross', 'net', 'total_deductions', 'employer_contributions'] as const) {
    if (a[code] !== b[code]) out.push({ code, a: a[code], b: b[code] });
  }
  return out;
}
