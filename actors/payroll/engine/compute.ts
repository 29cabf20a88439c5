/**
 * Gross-to-net for one payee and one monthly period under an ng-payroll pack (spec 2.9;
 * method of shared/reference/ng-payroll-2026.md section 9).
 *
 * 1. Monthly lines: each percentage line is base x rate, exact, then rounded half up to the kobo
 *    on its own (rounding policy half_up_per_line_kobo).
 * 2. Annual tax: projected annual gross = YTD gross + this month's gross x remaining employed
 *    months (this one included); projected deductions likewise from the ROUNDED deductible lines;
 *    rent relief = min(rate x rent, cap) rounded half up; chargeable = max(0, gross - deductions -
 *    reliefs); tax = sum over the bands, exact; 0 under the minimum-wage exemption; rounded half up.
 * 3. Monthly PAYE (cumulative): target = round_half_up(annual tax x k / n) for the k-th of n
 *    employed months; PAYE = target - PAYE already deducted (negative is a refund).
 * 4. Net = gross - deductions; employer contributions are separate lines. Totals are sums of lines.
 *
 * The hot path compiles each pack once (rates parsed, formula texts and trace keys built) and
 * allocates per payslip only the lines, their traces and the strings the traces must hold.
 */
import { ApiError, validationReport } from '../../../kernel/index.ts';
import { formatExact, halfUp, lcm, mulRateExact, mulRateHalfUp, parseRate, subExact, type Rate } from './exact.ts';
import type {
  EmployerContributionCode,
  EmployerInputs,
  LineCategory,
  LineCode,
  PayComponent,
  PayeeInputs,
  PayslipComputation,
  PayslipLine,
  RateParameter,
  RoundingPolicy,
  RulePack,
  YearToDate,
} from './types.ts';
import { validateEmployer, validatePayee, validatePeriod } from './validate.ts';

/** Fixed order of lines on a payslip. */
export const LINE_ORDER: readonly LineCode[] = [
  'basic', 'housing', 'transport', 'other_allowances',
  'paye', 'pension_employee', 'nhf', 'nhia_employee',
  'pension_employer', 'nhia_employer', 'nsitf', 'itf',
];

interface RateLine {
  code: LineCode;
  label: string;
  category: LineCategory;
  rate: Rate;
  base: PayComponent[];
  baseKeys: string[];
  formula: string;
}

interface Band {
  lower: number;
  width: number | null;
  rate: Rate;
  /** rate x bandDen, an integer: tax numerator per kobo over the common denominator. */
  scaled: number;
  keys: { taxable: string; rate: string; tax: string };
}

interface Compiled {
  version: string;
  rounding: RoundingPolicy;
  taxYear: number;
  from: string;
  to: string | null;
  pensionEe: RateLine;
  pensionEr: RateLine;
  pensionMinHeadcount: number;
  nhf: RateLine;
  nhiaEe: RateLine;
  nhiaEr: RateLine;
  nsitf: RateLine;
  itf: RateLine;
  itfMinHeadcount: number;
  bands: Band[];
  bandDen: number;
  rentRate: Rate;
  rentCap: number;
  mwThreshold: number;
  mwAnnual: boolean;
  deductPension: boolean;
  deductNhf: boolean;
  deductNhia: boolean;
  annualReliefs: boolean;
  payeFormula: string;
  taxYearText: string;
  rentCapText: string;
  mwThresholdText: string;
}

const EARNINGS: ReadonlyArray<{ code: PayComponent; label: string; inputs: (s: string) => Record<string, string>; formula: string }> = [
  { code: 'basic', label: 'Basic salary', inputs: (s) => ({ monthly_basic_kobo: s }), formula: 'monthly basic salary (pay profile input)' },
  { code: 'housing', label: 'Housing allowance', inputs: (s) => ({ monthly_housing_kobo: s }), formula: 'monthly housing allowance (pay profile input)' },
  { code: 'transport', label: 'Transport allowance', inputs: (s) => ({ monthly_transport_kobo: s }), formula: 'monthly transport allowance (pay profile input)' },
  { code: 'other_allowances', label: 'Other allowances', inputs: (s) => ({ monthly_other_allowances_kobo: s }), formula: 'monthly other cash allowances (pay profile input)' },
];

const KOBO_KEYS: Record<PayComponent, string> = {
  basic: 'basic_kobo', housing: 'housing_kobo', transport: 'transport_kobo', other_allowances: 'other_allowances_kobo',
};

function percent(r: Rate): string {
  // The rate text is a decimal; x100 by moving the point, exactly.
  const [w, f = ''] = r.text.split('.');
  const digits = (w + f.padEnd(2, '0')).replace(/^0+(?=\d)/, '');
  const cut = digits.length - Math.max(0, f.length - 2);
  const whole = digits.slice(0, cut) || '0';
  const frac = digits.slice(cut).replace(/0+$/, '');
  return frac ? `${whole}.${frac}%` : `${whole}%`;
}

function rateLine(code: LineCode, label: string, category: LineCategory, p: RateParameter, note = ''): RateLine {
  const rate = parseRate(p.rate);
  const baseText = p.base.length > 1 && !/\s/.test(p.base_label) ? `(${p.base_label})` : p.base_label;
  return { code, label, category, rate, base: p.base.slice(), baseKeys: p.base.map((c) => KOBO_KEYS[c]), formula: `${percent(rate)} x ${baseText}${note}` };
}

const compiled = new WeakMap<RulePack, Compiled>();

function compile(pack: RulePack): Compiled {
  let c = compiled.get(pack);
  if (c) return c;
  const P = pack.parameters;
  const bandRates = P.paye.bands.map((b) => parseRate(b.rate));
  const bandDen = bandRates.reduce((d, r) => lcm(d, r.q), 1);
  let lower = 0;
  const bands: Band[] = P.paye.bands.map((b, i) => {
    const band: Band = {
      lower,
      width: b.width_kobo,
      rate: bandRates[i],
      scaled: (bandRates[i].p * bandDen) / bandRates[i].q,
      keys: { taxable: `band_${i + 1}_taxable_kobo`, rate: `band_${i + 1}_rate`, tax: `band_${i + 1}_tax_exact_kobo` },
    };
    lower += b.width_kobo ?? 0;
    return band;
  });
  const ded = new Set(P.paye.deductible_lines);
  c = {
    version: pack.ref.version,
    rounding: P.rounding,
    taxYear: P.tax_year,
    from: pack.effective_from,
    to: pack.effective_to,
    pensionEe: rateLine('pension_employee', 'Pension (employee)', 'deduction', P.pension.employee),
    pensionEr: rateLine('pension_employer', 'Pension (employer)', 'employer_contribution', P.pension.employer),
    pensionMinHeadcount: P.pension.min_headcount,
    nhf: rateLine('nhf', 'National Housing Fund', 'deduction', P.nhf),
    nhiaEe: rateLine('nhia_employee', 'Health insurance (employee)', 'deduction', P.nhia.employee),
    nhiaEr: rateLine('nhia_employer', 'Health insurance (employer)', 'employer_contribution', P.nhia.employer),
    nsitf: rateLine('nsitf', 'NSITF employees\' compensation', 'employer_contribution', P.nsitf, ' (employer only)'),
    itf: rateLine('itf', 'ITF levy (monthly accrual)', 'employer_contribution', P.itf, ` (1/12 of ${percent(parseRate(P.itf.rate))} annual payroll)`),
    itfMinHeadcount: P.itf.min_headcount,
    bands,
    bandDen,
    rentRate: parseRate(P.paye.rent_relief.rate),
    rentCap: P.paye.rent_relief.cap_kobo,
    mwThreshold: P.paye.minimum_wage_exemption.threshold_monthly_gross_kobo,
    mwAnnual: P.paye.minimum_wage_exemption.measure === 'annual_projected_gross',
    deductPension: ded.has('pension_employee'),
    deductNhf: ded.has('nhf'),
    deductNhia: ded.has('nhia_employee'),
    annualReliefs: P.paye.apply_annual_reliefs,
    taxYearText: String(P.tax_year),
    rentCapText: String(P.paye.rent_relief.cap_kobo),
    mwThresholdText: String(P.paye.minimum_wage_exemption.threshold_monthly_gross_kobo),
    payeFormula:
      'annual tax on projected chargeable income (NTA 2025 s.58, Fourth Schedule); ' +
      'cumulative target = round(annual_tax_kobo x k/n); month = target - PAYE already deducted',
  };
  compiled.set(pack, c);
  return c;
}

/** The YearToDate before the first payslip of a tax year. */
export function emptyYearToDate(taxYear: number): YearToDate {
  return { tax_year: taxYear, last_period: null, payslips: 0, gross: 0, pension_employee: 0, nhf: 0, nhia_employee: 0, paye: 0, net: 0 };
}

function refuse(entries: ReturnType<typeof validatePayee>): never {
  const money = entries.find((e) => e.code === 'invalid_money_amount');
  const report = validationReport(entries.length, entries);
  if (money) throw new ApiError('invalid_money_amount', money.detail, { validation: report });
  throw new ApiError('validation_failed', entries.length === 1 ? entries[0].detail : `${entries.length} values were refused; see validation.entries`, { validation: report });
}

/** Per-payslip string cache: each component and each distinct base is turned into a string once. */
interface Strings {
  comp: Record<PayComponent, string>;
  lastBase: number;
  lastBaseText: string;
}

function pctLine(L: RateLine, comp: Record<PayComponent, number>, S: Strings, version: string, rounding: RoundingPolicy): PayslipLine {
  let base = 0;
  const inputs: Record<string, string> = {};
  for (let i = 0; i < L.base.length; i++) {
    const c = L.base[i];
    base += comp[c];
    if (L.base.length > 1) inputs[L.baseKeys[i]] = S.comp[c];
  }
  if (base !== S.lastBase) {
    S.lastBase = base;
    S.lastBaseText = String(base);
  }
  inputs.base_kobo = S.lastBaseText;
  inputs.rate = L.rate.text;
  return {
    code: L.code,
    label: L.label,
    category: L.category,
    amount: mulRateHalfUp(base, L.rate),
    trace: { formula: L.formula, inputs, exact: mulRateExact(base, L.rate), rounding, rule_pack_version: version },
  };
}

/**
 * One payslip. `ytd` holds the payee's earlier payslips of the same tax year under the
 * cumulative method; omitted means none. Throws ApiError (invalid_money_amount or
 * validation_failed with a ValidationReport naming every bad field) on bad inputs.
 */
export function computePayslip(
  pack: RulePack,
  period: string,
  payee: PayeeInputs,
  employer: EmployerInputs,
  ytd?: YearToDate,
): PayslipComputation {
  const C = compile(pack);
  const bad = validatePeriod(period, C.taxYear, C.from, C.to, ytd);
  const badPayee = validatePayee(payee, 1, Number(period.slice(5, 7)));
  const badEmployer = validateEmployer(employer, 1);
  if (bad.length || badPayee.length || badEmployer.length) refuse([...bad, ...badPayee, ...badEmployer]);
  const before = ytd ?? emptyYearToDate(C.taxYear);
  const version = C.version;
  const rounding = C.rounding;
  const month = Number(period.slice(5, 7));

  const comp: Record<PayComponent, number> = {
    basic: payee.monthly_basic,
    housing: payee.monthly_housing,
    transport: payee.monthly_transport,
    other_allowances: payee.monthly_other_allowances,
  };
  const S: Strings = {
    comp: {
      basic: String(comp.basic),
      housing: String(comp.housing),
      transport: String(comp.transport),
      other_allowances: String(comp.other_allowances),
    },
    lastBase: -1,
    lastBaseText: '',
  };
  const earnings: PayslipLine[] = [];
  let gross = 0;
  for (const e of EARNINGS) {
    const amount = comp[e.code];
    gross += amount;
    if (amount === 0 && e.code !== 'basic') continue;
    const s = S.comp[e.code];
    earnings.push({
      code: e.code,
      label: e.label,
      category: 'earning',
      amount,
      trace: { formula: e.formula, inputs: e.inputs(s), exact: s, rounding, rule_pack_version: version },
    });
  }

  const pensionApplies = employer.headcount >= C.pensionMinHeadcount;
  const pensionEe = pensionApplies ? pctLine(C.pensionEe, comp, S, version, rounding) : null;
  const nhf = payee.nhf_contributing ? pctLine(C.nhf, comp, S, version, rounding) : null;
  const nhiaEe = payee.nhia_enrolled ? pctLine(C.nhiaEe, comp, S, version, rounding) : null;
  const employerLines: PayslipLine[] = [];
  if (pensionApplies) employerLines.push(pctLine(C.pensionEr, comp, S, version, rounding));
  if (payee.nhia_enrolled) employerLines.push(pctLine(C.nhiaEr, comp, S, version, rounding));
  employerLines.push(pctLine(C.nsitf, comp, S, version, rounding));
  if (employer.headcount >= C.itfMinHeadcount || employer.turnover_50m_or_more) employerLines.push(pctLine(C.itf, comp, S, version, rounding));

  // PAYE, cumulative projection.
  const employed = payee.months_employed;
  let k = 0;
  let n = 0;
  for (let i = 0; i < employed.length; i++) {
    const m = employed[i];
    if (m >= 1 && m <= 12 && employed.indexOf(m) === i) {
      n++;
      if (m <= month) k++;
    }
  }
  const remaining = n - k + 1;
  const monthDeductions =
    (C.deductPension && pensionEe ? pensionEe.amount : 0) +
    (C.deductNhf && nhf ? nhf.amount : 0) +
    (C.deductNhia && nhiaEe ? nhiaEe.amount : 0);
  const ytdDeductions =
    (C.deductPension ? before.pension_employee : 0) + (C.deductNhf ? before.nhf : 0) + (C.deductNhia ? before.nhia_employee : 0);
  const projGross = before.gross + gross * remaining;
  const projDeductions = ytdDeductions + monthDeductions * remaining;

  const rent = payee.annual_rent_paid;
  const rentN = rent * C.rentRate.p;
  const rentCapped = Number.isSafeInteger(rentN) ? rentN >= C.rentCap * C.rentRate.q : BigInt(rent) * BigInt(C.rentRate.p) >= BigInt(C.rentCap) * BigInt(C.rentRate.q);
  const rentRelief = rentCapped ? C.rentCap : mulRateHalfUp(rent, C.rentRate);
  const rentReliefExact = rentCapped ? C.rentCapText : mulRateExact(rent, C.rentRate);
  const otherReliefs = C.annualReliefs ? payee.annual_life_assurance_premium + payee.annual_mortgage_interest : 0;
  const chargeable = Math.max(0, projGross - projDeductions - rentRelief - otherReliefs);

  const exempt = C.mwAnnual ? projGross <= C.mwThreshold * 12 : gross <= C.mwThreshold;
  const payeInputs: Record<string, string> = {
    tax_year: C.taxYearText,
    month_k: String(k),
    months_employed_n: String(n),
    remaining_months: String(remaining),
    monthly_gross_kobo: S.lastBase === gross ? S.lastBaseText : String(gross),
    ytd_gross_kobo: String(before.gross),
    ytd_statutory_deductions_kobo: String(ytdDeductions),
    monthly_statutory_deductions_kobo: String(monthDeductions),
    projected_annual_gross_kobo: String(projGross),
    projected_annual_statutory_deductions_kobo: String(projDeductions),
    annual_rent_paid_kobo: String(rent),
    rent_relief_rate: C.rentRate.text,
    rent_relief_cap_kobo: C.rentCapText,
    rent_relief_exact_kobo: rentReliefExact,
    rent_relief_kobo: String(rentRelief),
    other_reliefs_kobo: String(otherReliefs),
    chargeable_income_kobo: String(chargeable),
  };
  let left = chargeable;
  let taxN: number | bigint = 0;
  for (const b of C.bands) {
    const taxable = b.width === null ? left : Math.min(left, b.width);
    left -= taxable;
    payeInputs[b.keys.taxable] = String(taxable);
    payeInputs[b.keys.rate] = b.rate.text;
    payeInputs[b.keys.tax] = mulRateExact(taxable, b.rate);
    const add = taxable * b.scaled;
    if (typeof taxN === 'number' && Number.isSafeInteger(add) && Number.isSafeInteger(taxN + add)) taxN += add;
    else taxN = BigInt(taxN) + BigInt(taxable) * BigInt(b.scaled);
  }
  if (exempt) taxN = 0;
  const annualTax = halfUp(taxN, C.bandDen);
  const targetN = annualTax * k;
  const target = Number.isSafeInteger(targetN) ? halfUp(targetN, n) : halfUp(BigInt(annualTax) * BigInt(k), n);
  const paye = target - before.paye;
  payeInputs.minimum_wage_exempt = exempt ? 'true' : 'false';
  payeInputs.minimum_wage_threshold_monthly_gross_kobo = C.mwThresholdText;
  payeInputs.annual_tax_exact_kobo = formatExact(taxN, C.bandDen);
  payeInputs.annual_tax_kobo = String(annualTax);
  payeInputs.cumulative_target_exact_kobo = Number.isSafeInteger(targetN) ? formatExact(targetN, n) : formatExact(BigInt(annualTax) * BigInt(k), BigInt(n));
  payeInputs.cumulative_target_kobo = String(target);
  payeInputs.paye_ytd_before_kobo = String(before.paye);
  const payeLine: PayslipLine = {
    code: 'paye',
    label: 'PAYE income tax',
    category: 'deduction',
    amount: paye,
    trace: { formula: C.payeFormula, inputs: payeInputs, exact: subExact(targetN, n, before.paye), rounding, rule_pack_version: version },
  };

  const lines: PayslipLine[] = earnings;
  const firstDeduction = lines.length;
  lines.push(payeLine);
  if (pensionEe) lines.push(pensionEe);
  if (nhf) lines.push(nhf);
  if (nhiaEe) lines.push(nhiaEe);
  let totalDeductions = 0;
  for (let i = firstDeduction; i < lines.length; i++) totalDeductions += lines[i].amount;
  let employerContributions = 0;
  for (const l of employerLines) {
    employerContributions += l.amount;
    lines.push(l);
  }
  const net = gross - totalDeductions;
  return {
    period,
    tax_year: C.taxYear,
    lines,
    gross,
    net,
    total_deductions: totalDeductions,
    employer_contributions: employerContributions,
    ytd_before: before,
    ytd_after: {
      tax_year: C.taxYear,
      last_period: period,
      payslips: before.payslips + 1,
      gross: before.gross + gross,
      pension_employee: before.pension_employee + (pensionEe ? pensionEe.amount : 0),
      nhf: before.nhf + (nhf ? nhf.amount : 0),
      nhia_employee: before.nhia_employee + (nhiaEe ? nhiaEe.amount : 0),
      paye: before.paye + paye,
      net: before.net + net,
    },
    rule_pack: pack.ref,
    inputs: { payee, employer },
  };
}

/** Employer-contribution codes, for callers grouping lines. */
export const EMPLOYER_CODES: readonly EmployerContributionCode[] = ['pension_employer', 'nhia_employer', 'nsitf', 'itf'];
