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
import { ApiError, validationReport, type ValidationEntry } from '../../../kernel/index.ts';
import { formatExact, halfUp, lcm, mulRateExact, mulRateHalfUp, parseRate, subExact, type Rate } from './exact.ts';
import { PAY_ITEM_CODES } from './types.ts';
import type {
  EmployerContributionCode,
  IrregularPayParameters,
  ItemBase,
  PayItem,
  PayItemCode,
  PayslipOptions,
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
import { MAX_KOBO, validateEmployer, validatePayee, validatePeriod } from './validate.ts';

/**
 * Every line code, each with a fixed position (payslip records keep amounts by position). Regular
 * pay, deductions and employer contributions first, as payslips order them; the pay items of
 * irregular pay were added after, so records made before them keep their positions. A payslip
 * lists its lines earnings first (regular, then items), then deductions, then contributions.
 */
export const LINE_ORDER: readonly LineCode[] = [
  'basic', 'housing', 'transport', 'other_allowances',
  'paye', 'pension_employee', 'nhf', 'nhia_employee',
  'pension_employer', 'nhia_employer', 'nsitf', 'itf',
  ...PAY_ITEM_CODES,
];

interface RateLine {
  code: LineCode;
  /** Which item bases add to this line's base. */
  itemBase: ItemBase;
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
  payeFormulaB: string;
  irregular: IrregularPayParameters | null;
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

function rateLine(code: LineCode, itemBase: ItemBase, label: string, category: LineCategory, p: RateParameter, note = ''): RateLine {
  const rate = parseRate(p.rate);
  const baseText = p.base.length > 1 && !/\s/.test(p.base_label) ? `(${p.base_label})` : p.base_label;
  return { code, itemBase, label, category, rate, base: p.base.slice(), baseKeys: p.base.map((c) => KOBO_KEYS[c]), formula: `${percent(rate)} x ${baseText}${note}` };
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
    pensionEe: rateLine('pension_employee', 'pension', 'Pension (employee)', 'deduction', P.pension.employee),
    pensionEr: rateLine('pension_employer', 'pension', 'Pension (employer)', 'employer_contribution', P.pension.employer),
    pensionMinHeadcount: P.pension.min_headcount,
    nhf: rateLine('nhf', 'nhf', 'National Housing Fund', 'deduction', P.nhf),
    nhiaEe: rateLine('nhia_employee', 'nhia', 'Health insurance (employee)', 'deduction', P.nhia.employee),
    nhiaEr: rateLine('nhia_employer', 'nhia', 'Health insurance (employer)', 'employer_contribution', P.nhia.employer),
    nsitf: rateLine('nsitf', 'nsitf', 'NSITF employees\' compensation', 'employer_contribution', P.nsitf, ' (employer only)'),
    itf: rateLine('itf', 'itf', 'ITF levy (monthly accrual)', 'employer_contribution', P.itf, ` (1/12 of ${percent(parseRate(P.itf.rate))} annual payroll)`),
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
    irregular: P.irregular_pay ?? null,
    taxYearText: String(P.tax_year),
    rentCapText: String(P.paye.rent_relief.cap_kobo),
    mwThresholdText: String(P.paye.minimum_wage_exemption.threshold_monthly_gross_kobo),
    payeFormula:
      'annual tax on projected chargeable income (NTA 2025 s.58, Fourth Schedule); ' +
      'cumulative target = round(annual_tax_kobo x k/n); month = target - PAYE already deducted',
    payeFormulaB:
      'annual tax with and without one-off pay (NTA 2025 s.58, Fourth Schedule; one-offs income of the day paid, s.26(2)); ' +
      'regular target = round(regular_annual_tax_kobo x k/n); month = regular target - regular PAYE already deducted ' +
      '+ (annual_tax_kobo - regular_annual_tax_kobo - one-off PAYE already deducted)',
  };
  compiled.set(pack, c);
  return c;
}

/**
 * The YearToDate before the first payslip of a tax year. The fields of irregular pay are left
 * out: a year to date given without them (a joiner's earlier pay) is read as regular pay only.
 */
export function emptyYearToDate(taxYear: number): YearToDate {
  return { tax_year: taxYear, last_period: null, payslips: 0, gross: 0, pension_employee: 0, nhf: 0, nhia_employee: 0, paye: 0, net: 0 };
}

/** A YearToDate with every field, reading a record made before irregular pay as regular pay only. */
export function fullYearToDate(y: YearToDate): Required<YearToDate> {
  return {
    ...y,
    taxable_regular: y.taxable_regular ?? y.gross,
    taxable_one_off: y.taxable_one_off ?? 0,
    compensation: y.compensation ?? 0,
    paye_one_off: y.paye_one_off ?? 0,
    regular_through: y.regular_through === undefined ? y.last_period : y.regular_through,
  };
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

function pctLine(L: RateLine, comp: Record<PayComponent, number>, S: Strings, version: string, rounding: RoundingPolicy, items = 0): PayslipLine {
  let base = items;
  const inputs: Record<string, string> = {};
  for (let i = 0; i < L.base.length; i++) {
    const c = L.base[i];
    base += comp[c];
    if (L.base.length > 1) inputs[L.baseKeys[i]] = S.comp[c];
  }
  if (items !== 0) inputs.pay_items_kobo = String(items);
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
    trace: { formula: items !== 0 ? `${L.formula} + pay items in its base` : L.formula, inputs, exact: mulRateExact(base, L.rate), rounding, rule_pack_version: version },
  };
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

const mulDivHalfUp = (a: number, k: number, n: number) => (Number.isSafeInteger(a * k) ? halfUp(a * k, n) : halfUp(BigInt(a) * BigInt(k), n));
const mulDivExact = (a: number, k: number, n: number) => (Number.isSafeInteger(a * k) ? formatExact(a * k, n) : formatExact(BigInt(a) * BigInt(k), BigInt(n)));

const ZERO_COMP: Readonly<Record<PayComponent, number>> = Object.freeze({ basic: 0, housing: 0, transport: 0, other_allowances: 0 });
const COMPONENTS: readonly PayComponent[] = ['basic', 'housing', 'transport', 'other_allowances'];
const NO_ITEMS: readonly PayItem[] = Object.freeze([]);
const pad2 = (m: number) => (m < 10 ? `0${m}` : String(m));

/** Every problem with the items and options of a payslip (reference irregular pay). */
function validateOptions(C: Compiled, items: readonly PayItem[], regular: unknown, incomeMonth: unknown, month: number): ValidationEntry[] {
  const out: ValidationEntry[] = [];
  const bad = (code: string, detail: string, field: string) => out.push({ index: 1, severity: 'error', code, detail, field });
  if (typeof regular !== 'boolean') bad('invalid_type', 'regular must be true or false.', '/regular');
  if (!Number.isInteger(incomeMonth) || (incomeMonth as number) < 1 || (incomeMonth as number) > month) {
    bad('invalid_income_month', `income_month must be a month from 1 to the period's month (${month}).`, '/income_month');
  } else if (incomeMonth !== month && regular === true) {
    bad('invalid_income_month', 'pay after the employment ended (income_month before the period) cannot include the regular monthly pay.', '/regular');
  }
  out.push(...validateItems(C, items));
  return out;
}

/** Every problem with a list of pay items under a pack (indexes are item positions, from 1). */
export function checkPayItems(pack: RulePack, items: readonly PayItem[]): ValidationEntry[] {
  return validateItems(compile(pack), items);
}

function validateItems(C: Compiled, items: readonly PayItem[]): ValidationEntry[] {
  const out: ValidationEntry[] = [];
  let at1 = 1;
  const bad = (code: string, detail: string, field: string) => out.push({ index: at1, severity: 'error', code, detail, field });
  if (!Array.isArray(items)) {
    bad('invalid_type', 'items must be an array.', '/items');
    return out;
  }
  if (items.length > 0 && C.irregular === null) {
    bad('irregular_pay_not_in_rule_pack', `rule pack ${C.version} has no rules for one-off pay items; pin a pack that has them.`, '/items');
    return out;
  }
  items.forEach((it, i) => {
    at1 = i + 1;
    const at = `/items/${i}`;
    const rule = it && typeof it === 'object' && (PAY_ITEM_CODES as readonly unknown[]).includes(it.code) ? C.irregular?.items[it.code as PayItemCode] : undefined;
    if (!rule) {
      bad('unknown_pay_item', `items[${i}].code must be one of ${PAY_ITEM_CODES.join(', ')}.`, `${at}/code`);
      return;
    }
    if (!Number.isSafeInteger(it.amount) || it.amount < 0 || it.amount > MAX_KOBO) {
      bad(Number.isFinite(it.amount) && !Number.isInteger(it.amount) ? 'invalid_money_amount' : 'value_out_of_range', `items[${i}].amount must be a whole number of kobo from 0 to ${MAX_KOBO}.`, `${at}/amount`);
      return;
    }
    if (rule.by_component) {
      const c = it.components;
      if (!c || typeof c !== 'object') {
        bad('components_required', `items[${i}] (${it.code}) is given by pay component: components {basic, housing, transport, other_allowances} are required.`, `${at}/components`);
        return;
      }
      let sum = 0;
      for (const k of COMPONENTS) {
        const v = c[k];
        if (!Number.isSafeInteger(v) || v < 0 || v > MAX_KOBO) {
          bad(Number.isFinite(v) && !Number.isInteger(v) ? 'invalid_money_amount' : 'invalid_type', `items[${i}].components.${k} must be a whole number of kobo >= 0.`, `${at}/components/${k}`);
          return;
        }
        sum += v;
      }
      if (sum !== it.amount) bad('components_mismatch', `items[${i}].components sum to ${sum} kobo, not the amount ${it.amount}.`, `${at}/components`);
    } else if (it.components !== undefined) {
      bad('components_not_allowed', `items[${i}] (${it.code}) is not given by pay component; leave components out.`, `${at}/components`);
    }
  });
  return out;
}

/**
 * One payslip. `ytd` holds the payee's earlier payslips of the same tax year under the
 * cumulative method (those of the same period included, when an earlier run of the month paid
 * them); omitted means none. `options` adds one-off items, leaves out the regular monthly pay
 * (a bonus or off-cycle payslip) or dates the income to the last month of employment.
 * Throws ApiError (invalid_money_amount or validation_failed with a ValidationReport naming every
 * bad field) on bad inputs.
 */
export function computePayslip(
  pack: RulePack,
  period: string,
  payee: PayeeInputs,
  employer: EmployerInputs,
  ytd?: YearToDate,
  options?: PayslipOptions,
): PayslipComputation {
  const C = compile(pack);
  const items = options?.items ?? NO_ITEMS;
  const paysRegular = options?.regular ?? true;
  const periodMonth = Number(period.slice(5, 7));
  const incomeMonth = options?.income_month ?? periodMonth;
  const bad = validatePeriod(period, C.taxYear, C.from, C.to, ytd);
  const badOptions = bad.length ? [] : validateOptions(C, items, paysRegular, incomeMonth, periodMonth);
  const badPayee = validatePayee(payee, 1, bad.length || badOptions.length ? undefined : incomeMonth);
  const badEmployer = validateEmployer(employer, 1);
  if (bad.length || badOptions.length || badPayee.length || badEmployer.length) refuse([...bad, ...badOptions, ...badPayee, ...badEmployer]);
  const before = fullYearToDate(ytd ?? emptyYearToDate(C.taxYear));
  const version = C.version;
  const rounding = C.rounding;
  const irregular = C.irregular;

  const regularComp: Record<PayComponent, number> = {
    basic: payee.monthly_basic,
    housing: payee.monthly_housing,
    transport: payee.monthly_transport,
    other_allowances: payee.monthly_other_allowances,
  };
  const comp = paysRegular ? regularComp : ZERO_COMP;
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
  const monthlyGross = regularComp.basic + regularComp.housing + regularComp.transport + regularComp.other_allowances;
  if (paysRegular) {
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
  }

  // Pay items: one earning line per code; each adds to the bases its rule names, and to PAYE by
  // its treatment (reference irregular pay 1.2, 1.3).
  const itemBase: Record<ItemBase, number> = { pension: 0, nhf: 0, nhia: 0, nsitf: 0, itf: 0 };
  let arrearsTaxable = 0;
  let oneOff = 0;
  let compensation = 0;
  let exemptItems = 0;
  if (items.length > 0 && irregular) {
    const byCode = new Map<PayItemCode, { amount: number; comps: Record<PayComponent, number> | null }>();
    for (const it of items) {
      const acc = byCode.get(it.code) ?? { amount: 0, comps: null };
      acc.amount += it.amount;
      if (it.components) {
        acc.comps ??= { basic: 0, housing: 0, transport: 0, other_allowances: 0 };
        for (const k of COMPONENTS) acc.comps[k] += it.components[k];
      }
      byCode.set(it.code, acc);
    }
    for (const code of PAY_ITEM_CODES) {
      const acc = byCode.get(code);
      if (!acc) continue;
      const rule = irregular.items[code];
      gross += acc.amount;
      for (const b of rule.bases) {
        if (rule.by_component && acc.comps) {
          const L = b === 'pension' ? C.pensionEe : b === 'nhf' ? C.nhf : b === 'nhia' ? C.nhiaEe : b === 'nsitf' ? C.nsitf : C.itf;
          for (const c of L.base) itemBase[b] += acc.comps[c];
        } else itemBase[b] += acc.amount;
      }
      if (rule.paye === 'regular') arrearsTaxable += acc.amount;
      else if (rule.paye === 'one_off') oneOff += acc.amount;
      else if (rule.paye === 'compensation') compensation += acc.amount;
      else exemptItems += acc.amount;
      const inputs: Record<string, string> = { amount_kobo: String(acc.amount), paye_treatment: rule.paye, bases: rule.bases.join('+') || 'none' };
      if (acc.comps) for (const k of COMPONENTS) inputs[KOBO_KEYS[k]] = String(acc.comps[k]);
      earnings.push({
        code,
        label: rule.label,
        category: 'earning',
        amount: acc.amount,
        trace: { formula: `${rule.label.toLowerCase()} (pay item of the run; PAYE ${rule.paye}, in the bases of ${rule.bases.join(', ') || 'no statutory line'})`, inputs, exact: String(acc.amount), rounding, rule_pack_version: version },
      });
    }
  }

  // A payslip that pays no regular pay shows only the lines its items give a base to.
  const keep = (L: PayslipLine) => paysRegular || Number(L.trace.inputs.base_kobo) !== 0;
  const pensionApplies = employer.headcount >= C.pensionMinHeadcount;
  const line = (L: RateLine) => pctLine(L, comp, S, version, rounding, itemBase[L.itemBase]);
  const opt = (L: PayslipLine) => (keep(L) ? L : null);
  const pensionEe = pensionApplies ? opt(line(C.pensionEe)) : null;
  const nhf = payee.nhf_contributing ? opt(line(C.nhf)) : null;
  const nhiaEe = payee.nhia_enrolled ? opt(line(C.nhiaEe)) : null;
  const employerLines: PayslipLine[] = [];
  const push = (L: PayslipLine) => {
    if (keep(L)) employerLines.push(L);
  };
  if (pensionApplies) push(line(C.pensionEr));
  if (payee.nhia_enrolled) push(line(C.nhiaEr));
  push(line(C.nsitf));
  if (employer.headcount >= C.itfMinHeadcount || employer.turnover_50m_or_more) push(line(C.itf));

  // PAYE, cumulative projection. k counts employed months up to the income month, n all of them;
  // a leaver's months end at the exit month, so there n = k and the target is the tax on actual income.
  const employed = payee.months_employed;
  let k = 0;
  let n = 0;
  for (let i = 0; i < employed.length; i++) {
    const m = employed[i];
    if (m >= 1 && m <= 12 && employed.indexOf(m) === i) {
      n++;
      if (m <= incomeMonth) k++;
    }
  }
  const incomePeriod = `${period.slice(0, 4)}-${pad2(incomeMonth)}`;
  // Regular pay of the income month already counted by an earlier payslip of the month (an
  // off-cycle run paid after the salary run), now, or still to come.
  const regularBefore = before.regular_through !== null && before.regular_through >= incomePeriod;
  const regularCounted = regularBefore || paysRegular;
  const kp = regularCounted ? k : k - 1;
  const future = n - k + (regularCounted ? 0 : 1);
  const deductible = (ee: PayslipLine | null, nh: PayslipLine | null, hi: PayslipLine | null) =>
    (C.deductPension && ee ? ee.amount : 0) + (C.deductNhf && nh ? nh.amount : 0) + (C.deductNhia && hi ? hi.amount : 0);
  const payslipDeductions = deductible(pensionEe, nhf, nhiaEe);
  // The month's regular deductions, for the months still to be paid (the items' share left out).
  let monthDeductions = payslipDeductions;
  if (!paysRegular || items.length > 0) {
    const R: Strings = { comp: { basic: String(regularComp.basic), housing: String(regularComp.housing), transport: String(regularComp.transport), other_allowances: String(regularComp.other_allowances) }, lastBase: -1, lastBaseText: '' };
    const reg = (L: RateLine) => pctLine(L, regularComp, R, version, rounding);
    monthDeductions = deductible(pensionApplies ? reg(C.pensionEe) : null, payee.nhf_contributing ? reg(C.nhf) : null, payee.nhia_enrolled ? reg(C.nhiaEe) : null);
  }
  const ytdDeductions =
    (C.deductPension ? before.pension_employee : 0) + (C.deductNhf ? before.nhf : 0) + (C.deductNhia ? before.nhia_employee : 0);
  const taxableRegularAfter = before.taxable_regular + (paysRegular ? monthlyGross : 0) + arrearsTaxable;
  const projRegular = taxableRegularAfter + monthlyGross * future;
  const projDeductions = ytdDeductions + payslipDeductions + monthDeductions * future;
  const compensationAfter = before.compensation + compensation;
  const threshold = irregular?.compensation_exempt_kobo ?? 0;
  const compensationTaxable = Math.max(0, compensationAfter - threshold) - Math.max(0, before.compensation - threshold);
  const oneOffAfter = before.taxable_one_off + oneOff + compensationTaxable;
  const projGross = projRegular + oneOffAfter;

  const rent = payee.annual_rent_paid;
  const rentN = rent * C.rentRate.p;
  const rentCapped = Number.isSafeInteger(rentN) ? rentN >= C.rentCap * C.rentRate.q : BigInt(rent) * BigInt(C.rentRate.p) >= BigInt(C.rentCap) * BigInt(C.rentRate.q);
  const rentRelief = rentCapped ? C.rentCap : mulRateHalfUp(rent, C.rentRate);
  const rentReliefExact = rentCapped ? C.rentCapText : mulRateExact(rent, C.rentRate);
  const otherReliefs = C.annualReliefs ? payee.annual_life_assurance_premium + payee.annual_mortgage_interest : 0;
  const reliefs = projDeductions + rentRelief + otherReliefs;
  const chargeable = Math.max(0, projGross - reliefs);

  const exempt = C.mwAnnual ? projRegular <= C.mwThreshold * 12 : monthlyGross <= C.mwThreshold;
  const payeInputs: Record<string, string> = {
    tax_year: C.taxYearText,
    month_k: String(k),
    months_employed_n: String(n),
    remaining_months: String(n - k + 1),
    monthly_gross_kobo: String(monthlyGross),
    ytd_gross_kobo: String(before.taxable_regular + before.taxable_one_off),
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
  let taxN = bandTax(C, chargeable, payeInputs);
  if (exempt) taxN = 0;
  const annualTax = halfUp(taxN, C.bandDen);
  // Method B taxes the one-offs' whole extra annual tax in the month paid; the regular part (and
  // method A's whole) is the cumulative target over the regular months counted.
  const methodB = irregular !== null && irregular.one_off_method === 'increment_in_month_paid';
  let regularTax = annualTax;
  let regularTaxN: number | bigint = taxN;
  let regularChargeable = chargeable;
  if (methodB && oneOffAfter !== 0) {
    regularChargeable = Math.max(0, projRegular - reliefs);
    regularTaxN = exempt ? 0 : bandTax(C, regularChargeable, null);
    regularTax = halfUp(regularTaxN, C.bandDen);
  }
  const target = mulDivHalfUp(regularTax, kp, n);
  const regularPayeBefore = methodB ? before.paye - before.paye_one_off : before.paye;
  const oneOffPaye = methodB ? annualTax - regularTax - before.paye_one_off : 0;
  const paye = target - regularPayeBefore + oneOffPaye;
  payeInputs.minimum_wage_exempt = exempt ? 'true' : 'false';
  payeInputs.minimum_wage_threshold_monthly_gross_kobo = C.mwThresholdText;
  payeInputs.annual_tax_exact_kobo = formatExact(taxN, C.bandDen);
  payeInputs.annual_tax_kobo = String(annualTax);
  payeInputs.cumulative_target_exact_kobo = mulDivExact(regularTax, kp, n);
  payeInputs.cumulative_target_kobo = String(target);
  payeInputs.paye_ytd_before_kobo = String(before.paye);
  if (irregular) {
    payeInputs.one_off_method = irregular.one_off_method;
    payeInputs.income_month = String(incomeMonth);
    payeInputs.regular_months_counted_k = String(kp);
    payeInputs.regular_pay_in_this_payslip = paysRegular ? 'true' : 'false';
    payeInputs.ytd_taxable_regular_kobo = String(before.taxable_regular);
    payeInputs.ytd_taxable_one_off_kobo = String(before.taxable_one_off);
    payeInputs.arrears_taxable_kobo = String(arrearsTaxable);
    payeInputs.one_off_taxable_kobo = String(oneOff);
    payeInputs.compensation_kobo = String(compensation);
    payeInputs.compensation_exempt_limit_kobo = String(threshold);
    payeInputs.compensation_taxable_kobo = String(compensationTaxable);
    payeInputs.exempt_items_kobo = String(exemptItems);
    payeInputs.projected_annual_regular_gross_kobo = String(projRegular);
    if (methodB) {
      payeInputs.regular_chargeable_income_kobo = String(regularChargeable);
      payeInputs.regular_annual_tax_exact_kobo = formatExact(regularTaxN, C.bandDen);
      payeInputs.regular_annual_tax_kobo = String(regularTax);
      payeInputs.regular_paye_ytd_before_kobo = String(regularPayeBefore);
      payeInputs.one_off_paye_ytd_before_kobo = String(before.paye_one_off);
      payeInputs.one_off_paye_kobo = String(oneOffPaye);
    }
  }
  const payeLine: PayslipLine = {
    code: 'paye',
    label: 'PAYE income tax',
    category: 'deduction',
    amount: paye,
    trace: {
      formula: methodB && oneOffAfter !== 0 ? C.payeFormulaB : C.payeFormula,
      inputs: payeInputs,
      exact: subExactBig(regularTax, kp, n, regularPayeBefore - oneOffPaye),
      rounding,
      rule_pack_version: version,
    },
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
    ytd_before: ytd ?? emptyYearToDate(C.taxYear),
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
      taxable_regular: taxableRegularAfter,
      taxable_one_off: oneOffAfter,
      compensation: compensationAfter,
      paye_one_off: before.paye_one_off + oneOffPaye,
      regular_through: paysRegular ? incomePeriod : before.regular_through,
    },
    rule_pack: pack.ref,
    inputs: { payee, employer, items: items as PayItem[], regular: paysRegular, income_month: incomeMonth },
  };
}

/** a x k / n - m, exact (may be negative: a refund). */
function subExactBig(a: number, k: number, n: number, m: number): string {
  if (Number.isSafeInteger(a * k) && Number.isSafeInteger(m * n)) return subExact(a * k, n, m);
  const big = BigInt(a) * BigInt(k) - BigInt(m) * BigInt(n);
  return big < 0n ? '-' + formatExact(-big, BigInt(n)) : formatExact(big, BigInt(n));
}

/** Employer-contribution codes, for callers grouping lines. */
export const EMPLOYER_CODES: readonly EmployerContributionCode[] = ['pension_employer', 'nhia_employer', 'nsitf', 'itf'];
