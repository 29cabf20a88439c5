/**
 * PAYE of one payslip under the cumulative method (compute.ts builds the other lines first; method
 * of shared/reference/ng-payroll-2026.md section 9, steps 2 and 3, and of the irregular-pay reference):
 *
 * - employed months: k counts employed months up to the income month, n all of them;
 * - projected annual income: YTD + this payslip + this month's regular pay x the months still to
 *   be paid, and the deductible statutory lines likewise (ROUNDED lines);
 * - annual tax: reliefs off, the bands over what is left, exact, then rounded half up; under method B
 *   also without the one-offs;
 * - cumulative PAYE: target = round_half_up(annual tax x k / n); PAYE = target - PAYE already deducted.
 *
 * The trace's inputs are written in one fixed order, the order a payslip's JSON shows them in.
 */
import { formatExact, halfUp, mulRateExact, mulRateHalfUp, subExact } from './exact.ts';
import { type Compiled, pctLine, type RateLine, type Strings } from './compiled.ts';
import type { IrregularPayParameters, ItemBase, PayComponent, PayeeInputs, PayslipLine, YearToDate } from './types.ts';

/** What the pay items of a payslip add to its gross, to the bases and to PAYE by treatment. */
export interface ItemTotals {
  /** The payslip's gross with the items added. */
  gross: number;
  base: Record<ItemBase, number>;
  arrearsTaxable: number;
  oneOff: number;
  compensation: number;
  exempt: number;
}

/** What PAYE reads of the payslip built so far. */
export interface PayeFacts {
  period: string;
  incomeMonth: number;
  paysRegular: boolean;
  hasItems: boolean;
  regularComp: Record<PayComponent, number>;
  monthlyGross: number;
  pensionApplies: boolean;
  pensionEe: PayslipLine | null;
  nhf: PayslipLine | null;
  nhiaEe: PayslipLine | null;
  items: ItemTotals;
}

/** PAYE's line and the year-to-date figures it moves. */
export interface Paye {
  line: PayslipLine;
  amount: number;
  oneOffPaye: number;
  incomePeriod: string;
  taxableRegularAfter: number;
  oneOffAfter: number;
  compensationAfter: number;
}

/** The year's income and deductions projected from this payslip. */
interface Projection {
  incomePeriod: string;
  /** Regular months counted so far (k, less this one when its regular pay is still to come). */
  kp: number;
  future: number;
  ytdDeductions: number;
  monthDeductions: number;
  projDeductions: number;
  taxableRegularAfter: number;
  projRegular: number;
  compensationAfter: number;
  compensationThreshold: number;
  compensationTaxable: number;
  oneOffAfter: number;
  projGross: number;
}

/** The annual tax with every income, and on the regular income alone where method B needs it. */
interface AnnualTax {
  exactN: number | bigint;
  annual: number;
  methodB: boolean;
  regularChargeable: number;
  regularExactN: number | bigint;
  regular: number;
}

const pad2 = (m: number) => (m < 10 ? `0${m}` : String(m));
const mulDivHalfUp = (a: number, k: number, n: number) => (Number.isSafeInteger(a * k) ? halfUp(a * k, n) : halfUp(BigInt(a) * BigInt(k), n));
const mulDivExact = (a: number, k: number, n: number) => (Number.isSafeInteger(a * k) ? formatExact(a * k, n) : formatExact(BigInt(a) * BigInt(k), BigInt(n)));

/** PAYE's line for the payslip, with the year-to-date figures the next payslip reads. */
export function computePaye(C: Compiled, payee: PayeeInputs, before: Required<YearToDate>, f: PayeFacts): Paye {
  // A leaver's months end at the exit month, so there n = k and the target is the tax on actual income.
  const { k, n } = employedMonths(payee.months_employed, f.incomeMonth);
  const p = projectAnnualIncome(C, payee, before, f, k, n);
  const rent = payee.annual_rent_paid;
  const rentCapped = rentReliefCapped(C, rent);
  const rentRelief = rentCapped ? C.rentCap : mulRateHalfUp(rent, C.rentRate);
  const rentReliefExact = rentCapped ? C.rentCapText : mulRateExact(rent, C.rentRate);
  const otherReliefs = C.annualReliefs ? payee.annual_life_assurance_premium + payee.annual_mortgage_interest : 0;
  const reliefs = p.projDeductions + rentRelief + otherReliefs;
  const chargeable = Math.max(0, p.projGross - reliefs);
  const exempt = C.mwAnnual ? p.projRegular <= C.mwThreshold * 12 : f.monthlyGross <= C.mwThreshold;
  const inputs: Record<string, string> = {
    tax_year: C.taxYearText,
    month_k: String(k),
    months_employed_n: String(n),
    remaining_months: String(n - k + 1),
    monthly_gross_kobo: String(f.monthlyGross),
    ytd_gross_kobo: String(before.taxable_regular + before.taxable_one_off),
    ytd_statutory_deductions_kobo: String(p.ytdDeductions),
    monthly_statutory_deductions_kobo: String(p.monthDeductions),
    projected_annual_gross_kobo: String(p.projGross),
    projected_annual_statutory_deductions_kobo: String(p.projDeductions),
    annual_rent_paid_kobo: String(rent),
    rent_relief_rate: C.rentRate.text,
    rent_relief_cap_kobo: C.rentCapText,
    rent_relief_exact_kobo: rentReliefExact,
    rent_relief_kobo: String(rentRelief),
    other_reliefs_kobo: String(otherReliefs),
    chargeable_income_kobo: String(chargeable),
  };
  const tax = annualTax(C, chargeable, p, reliefs, exempt, inputs);
  // Cumulative target over the regular months counted; method B adds the one-offs' whole extra tax.
  const target = mulDivHalfUp(tax.regular, p.kp, n);
  const regularPayeBefore = tax.methodB ? before.paye - before.paye_one_off : before.paye;
  const oneOffPaye = tax.methodB ? tax.annual - tax.regular - before.paye_one_off : 0;
  const amount = target - regularPayeBefore + oneOffPaye;
  inputs.minimum_wage_exempt = exempt ? 'true' : 'false';
  inputs.minimum_wage_threshold_monthly_gross_kobo = C.mwThresholdText;
  inputs.annual_tax_exact_kobo = formatExact(tax.exactN, C.bandDen);
  inputs.annual_tax_kobo = String(tax.annual);
  inputs.cumulative_target_exact_kobo = mulDivExact(tax.regular, p.kp, n);
  inputs.cumulative_target_kobo = String(target);
  inputs.paye_ytd_before_kobo = String(before.paye);
  if (C.irregular) irregularInputs(inputs, C.irregular, C.bandDen, before, f, p, tax, regularPayeBefore, oneOffPaye);
  const line: PayslipLine = {
    code: 'paye',
    label: 'PAYE income tax',
    category: 'deduction',
    amount,
    trace: {
      formula: tax.methodB && p.oneOffAfter !== 0 ? C.payeFormulaB : C.payeFormula,
      inputs,
      exact: subExactBig(tax.regular, p.kp, n, regularPayeBefore - oneOffPaye),
      rounding: C.rounding,
      rule_pack_version: C.version,
    },
  };
  return { line, amount, oneOffPaye, incomePeriod: p.incomePeriod, taxableRegularAfter: p.taxableRegularAfter, oneOffAfter: p.oneOffAfter, compensationAfter: p.compensationAfter };
}

/** k: distinct employed months up to the income month; n: all of them (months outside 1..12 ignored). */
function employedMonths(employed: readonly number[], incomeMonth: number): { k: number; n: number } {
  let k = 0;
  let n = 0;
  for (let i = 0; i < employed.length; i++) {
    const m = employed[i];
    if (m >= 1 && m <= 12 && employed.indexOf(m) === i) {
      n++;
      if (m <= incomeMonth) k++;
    }
  }
  return { k, n };
}

/** The year's gross and deductible lines projected over the employed months still to be paid. */
function projectAnnualIncome(C: Compiled, payee: PayeeInputs, before: Required<YearToDate>, f: PayeFacts, k: number, n: number): Projection {
  const incomePeriod = `${f.period.slice(0, 4)}-${pad2(f.incomeMonth)}`;
  // Regular pay of the income month already counted by an earlier payslip of the month (an
  // off-cycle run paid after the salary run), now, or still to come.
  const regularBefore = before.regular_through !== null && before.regular_through >= incomePeriod;
  const regularCounted = regularBefore || f.paysRegular;
  const kp = regularCounted ? k : k - 1;
  const future = n - k + (regularCounted ? 0 : 1);
  const payslipDeductions = deductible(C, f.pensionEe, f.nhf, f.nhiaEe);
  const monthDeductions = !f.paysRegular || f.hasItems ? regularMonthDeductions(C, payee, f) : payslipDeductions;
  const ytdDeductions =
    (C.deductPension ? before.pension_employee : 0) + (C.deductNhf ? before.nhf : 0) + (C.deductNhia ? before.nhia_employee : 0);
  const taxableRegularAfter = before.taxable_regular + (f.paysRegular ? f.monthlyGross : 0) + f.items.arrearsTaxable;
  const projRegular = taxableRegularAfter + f.monthlyGross * future;
  const projDeductions = ytdDeductions + payslipDeductions + monthDeductions * future;
  const compensationAfter = before.compensation + f.items.compensation;
  const compensationThreshold = C.irregular?.compensation_exempt_kobo ?? 0;
  const compensationTaxable = Math.max(0, compensationAfter - compensationThreshold) - Math.max(0, before.compensation - compensationThreshold);
  const oneOffAfter = before.taxable_one_off + f.items.oneOff + compensationTaxable;
  return {
    incomePeriod, kp, future, ytdDeductions, monthDeductions, projDeductions, taxableRegularAfter, projRegular,
    compensationAfter, compensationThreshold, compensationTaxable, oneOffAfter, projGross: projRegular + oneOffAfter,
  };
}

/** The deductible statutory lines' sum (the pack names which lines reduce chargeable income). */
function deductible(C: Compiled, ee: PayslipLine | null, nh: PayslipLine | null, hi: PayslipLine | null): number {
  return (C.deductPension && ee ? ee.amount : 0) + (C.deductNhf && nh ? nh.amount : 0) + (C.deductNhia && hi ? hi.amount : 0);
}

/** The month's regular deductions, for the months still to be paid: the items' share left out. */
function regularMonthDeductions(C: Compiled, payee: PayeeInputs, f: PayeFacts): number {
  const c = f.regularComp;
  const R: Strings = { comp: { basic: String(c.basic), housing: String(c.housing), transport: String(c.transport), other_allowances: String(c.other_allowances) }, lastBase: -1, lastBaseText: '' };
  const reg = (L: RateLine) => pctLine(L, c, R, C.version, C.rounding);
  return deductible(C, f.pensionApplies ? reg(C.pensionEe) : null, payee.nhf_contributing ? reg(C.nhf) : null, payee.nhia_enrolled ? reg(C.nhiaEe) : null);
}

/** Whether rate x rent reaches the cap, compared exactly (BigInt past 2^53). */
function rentReliefCapped(C: Compiled, rent: number): boolean {
  const rentN = rent * C.rentRate.p;
  return Number.isSafeInteger(rentN) ? rentN >= C.rentCap * C.rentRate.q : BigInt(rent) * BigInt(C.rentRate.p) >= BigInt(C.rentCap) * BigInt(C.rentRate.q);
}

/** Method B taxes the one-offs' whole extra annual tax in the month paid, so it needs the tax without them too. */
function annualTax(C: Compiled, chargeable: number, p: Projection, reliefs: number, exempt: boolean, inputs: Record<string, string>): AnnualTax {
  let exactN = bandTax(C, chargeable, inputs);
  if (exempt) exactN = 0;
  const annual = halfUp(exactN, C.bandDen);
  const methodB = C.irregular !== null && C.irregular.one_off_method === 'increment_in_month_paid';
  if (!methodB || p.oneOffAfter === 0) return { exactN, annual, methodB, regularChargeable: chargeable, regularExactN: exactN, regular: annual };
  const regularChargeable = Math.max(0, p.projRegular - reliefs);
  const regularExactN = exempt ? 0 : bandTax(C, regularChargeable, null);
  return { exactN, annual, methodB, regularChargeable, regularExactN, regular: halfUp(regularExactN, C.bandDen) };
}

/** Annual tax on a chargeable income over the pack's bands: the exact numerator over C.bandDen. */
function bandTax(C: Compiled, chargeable: number, inputs: Record<string, string> | null): number | bigint {
  let left = chargeable;
  let taxN: number | bigint = 0;
  for (const b of C.bands) {
    const taxable = b.width === null ? left : Math.min(left, b.width);
    left -= taxable;
    if (inputs) {
      inputs[b.keys.taxable] = String(taxable);
      inputs[b.keys.rate] = b.rate.text;
      inputs[b.keys.tax] = mulRateExact(taxable, b.rate);
    }
    const add = taxable * b.scaled;
    if (typeof taxN === 'number' && Number.isSafeInteger(add) && Number.isSafeInteger(taxN + add)) taxN += add;
    else taxN = BigInt(taxN) + BigInt(taxable) * BigInt(b.scaled);
  }
  return taxN;
}

/** The trace inputs a pack with irregular pay adds, so the explanation can show how items were taxed. */
function irregularInputs(
  inputs: Record<string, string>, irregular: IrregularPayParameters, bandDen: number, before: Required<YearToDate>,
  f: PayeFacts, p: Projection, tax: AnnualTax, regularPayeBefore: number, oneOffPaye: number,
): void {
  inputs.one_off_method = irregular.one_off_method;
  inputs.income_month = String(f.incomeMonth);
  inputs.regular_months_counted_k = String(p.kp);
  inputs.regular_pay_in_this_payslip = f.paysRegular ? 'true' : 'false';
  inputs.ytd_taxable_regular_kobo = String(before.taxable_regular);
  inputs.ytd_taxable_one_off_kobo = String(before.taxable_one_off);
  inputs.arrears_taxable_kobo = String(f.items.arrearsTaxable);
  inputs.one_off_taxable_kobo = String(f.items.oneOff);
  inputs.compensation_kobo = String(f.items.compensation);
  inputs.compensation_exempt_limit_kobo = String(p.compensationThreshold);
  inputs.compensation_taxable_kobo = String(p.compensationTaxable);
  inputs.exempt_items_kobo = String(f.items.exempt);
  inputs.projected_annual_regular_gross_kobo = String(p.projRegular);
  if (!tax.methodB) return;
  inputs.regular_chargeable_income_kobo = String(tax.regularChargeable);
  inputs.regular_annual_tax_exact_kobo = formatExact(tax.regularExactN, bandDen);
  inputs.regular_annual_tax_kobo = String(tax.regular);
  inputs.regular_paye_ytd_before_kobo = String(regularPayeBefore);
  inputs.one_off_paye_ytd_before_kobo = String(before.paye_one_off);
  inputs.one_off_paye_kobo = String(oneOffPaye);
}

/** a x k / n - m, exact (may be negative: a refund). */
function subExactBig(a: number, k: number, n: number, m: number): string {
  if (Number.isSafeInteger(a * k) && Number.isSafeInteger(m * n)) return subExact(a * k, n, m);
  const big = BigInt(a) * BigInt(k) - BigInt(m) * BigInt(n);
  return big < 0n ? '-' + formatExact(-big, BigInt(n)) : formatExact(big, BigInt(n));
}
