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
 * The hot path compiles each pack once (compiled.ts: rates parsed, formula texts and trace keys
 * built) and allocates per payslip only the lines, their traces and the strings the traces must
 * hold. Steps 2 and 3 are paye.ts; this file builds the other lines and the totals.
 */
import { ApiError, validationReport, type ValidationEntry } from '../../../kernel/index.ts';
import { compile, type Compiled, KOBO_KEYS, pctLine, type RateLine, type Strings } from './compiled.ts';
import { computePaye, type ItemTotals, type Paye } from './paye.ts';
import { PAY_ITEM_CODES } from './types.ts';
import type {
  EmployerContributionCode,
  EmployerInputs,
  ItemBase,
  LineCode,
  PayComponent,
  PayeeInputs,
  PayItem,
  PayItemCode,
  PayslipComputation,
  PayslipLine,
  PayslipOptions,
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

const EARNINGS: ReadonlyArray<{ code: PayComponent; label: string; inputs: (s: string) => Record<string, string>; formula: string }> = [
  { code: 'basic', label: 'Basic salary', inputs: (s) => ({ monthly_basic_kobo: s }), formula: 'monthly basic salary (pay profile input)' },
  { code: 'housing', label: 'Housing allowance', inputs: (s) => ({ monthly_housing_kobo: s }), formula: 'monthly housing allowance (pay profile input)' },
  { code: 'transport', label: 'Transport allowance', inputs: (s) => ({ monthly_transport_kobo: s }), formula: 'monthly transport allowance (pay profile input)' },
  { code: 'other_allowances', label: 'Other allowances', inputs: (s) => ({ monthly_other_allowances_kobo: s }), formula: 'monthly other cash allowances (pay profile input)' },
];

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

const ZERO_COMP: Readonly<Record<PayComponent, number>> = Object.freeze({ basic: 0, housing: 0, transport: 0, other_allowances: 0 });
const COMPONENTS: readonly PayComponent[] = ['basic', 'housing', 'transport', 'other_allowances'];
const NO_ITEMS: readonly PayItem[] = Object.freeze([]);

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
  checkInputs(C, period, payee, employer, ytd, items, paysRegular, incomeMonth, periodMonth);
  const before = fullYearToDate(ytd ?? emptyYearToDate(C.taxYear));

  const regularComp: Record<PayComponent, number> = {
    basic: payee.monthly_basic,
    housing: payee.monthly_housing,
    transport: payee.monthly_transport,
    other_allowances: payee.monthly_other_allowances,
  };
  const comp = paysRegular ? regularComp : ZERO_COMP;
  const S = componentStrings(comp);
  const lines: PayslipLine[] = [];
  const regularGross = paysRegular ? regularEarningLines(C, comp, S, lines) : 0;
  const itemTotals = payItemLines(C, items, lines, regularGross);
  const gross = itemTotals.gross;
  const pensionApplies = employer.headcount >= C.pensionMinHeadcount;
  const statutory = statutoryLines(C, payee, employer, comp, S, itemTotals.base, paysRegular, pensionApplies);
  const paye = computePaye(C, payee, before, {
    period,
    incomeMonth,
    paysRegular,
    hasItems: items.length > 0,
    regularComp,
    monthlyGross: regularComp.basic + regularComp.housing + regularComp.transport + regularComp.other_allowances,
    pensionApplies,
    pensionEe: statutory.pensionEe,
    nhf: statutory.nhf,
    nhiaEe: statutory.nhiaEe,
    items: itemTotals,
  });
  const totals = appendDeductionsAndContributions(lines, paye, statutory);
  const net = gross - totals.deductions;
  return {
    period,
    tax_year: C.taxYear,
    lines,
    gross,
    net,
    total_deductions: totals.deductions,
    employer_contributions: totals.employerContributions,
    ytd_before: ytd ?? emptyYearToDate(C.taxYear),
    ytd_after: yearToDateAfter(C, before, period, gross, net, statutory, paye, paysRegular),
    rule_pack: pack.ref,
    inputs: { payee, employer, items: items as PayItem[], regular: paysRegular, income_month: incomeMonth },
  };
}

/** Refuses the payslip naming every bad field; options are checked only once the period is valid. */
function checkInputs(
  C: Compiled, period: string, payee: PayeeInputs, employer: EmployerInputs, ytd: YearToDate | undefined,
  items: readonly PayItem[], paysRegular: boolean, incomeMonth: number, periodMonth: number,
): void {
  const bad = validatePeriod(period, C.taxYear, C.from, C.to, ytd);
  const badOptions = bad.length ? [] : validateOptions(C, items, paysRegular, incomeMonth, periodMonth);
  const badPayee = validatePayee(payee, 1, bad.length || badOptions.length ? undefined : incomeMonth);
  const badEmployer = validateEmployer(employer, 1);
  if (bad.length || badOptions.length || badPayee.length || badEmployer.length) refuse([...bad, ...badOptions, ...badPayee, ...badEmployer]);
}

/** Each component turned into a string once per payslip, for every trace that shows it. */
function componentStrings(comp: Record<PayComponent, number>): Strings {
  return {
    comp: {
      basic: String(comp.basic),
      housing: String(comp.housing),
      transport: String(comp.transport),
      other_allowances: String(comp.other_allowances),
    },
    lastBase: -1,
    lastBaseText: '',
  };
}

/** The regular monthly pay's earning lines (basic always, the others when paid); returns their sum. */
function regularEarningLines(C: Compiled, comp: Record<PayComponent, number>, S: Strings, lines: PayslipLine[]): number {
  let gross = 0;
  for (const e of EARNINGS) {
    const amount = comp[e.code];
    gross += amount;
    if (amount === 0 && e.code !== 'basic') continue;
    const s = S.comp[e.code];
    lines.push({
      code: e.code,
      label: e.label,
      category: 'earning',
      amount,
      trace: { formula: e.formula, inputs: e.inputs(s), exact: s, rounding: C.rounding, rule_pack_version: C.version },
    });
  }
  return gross;
}

/**
 * Pay items: one earning line per code; each adds to the bases its rule names, and to PAYE by
 * its treatment (reference irregular pay 1.2, 1.3). `gross` is the payslip's gross before them.
 */
function payItemLines(C: Compiled, items: readonly PayItem[], lines: PayslipLine[], gross: number): ItemTotals {
  const t: ItemTotals = { gross, base: { pension: 0, nhf: 0, nhia: 0, nsitf: 0, itf: 0 }, arrearsTaxable: 0, oneOff: 0, compensation: 0, exempt: 0 };
  const irregular = C.irregular;
  if (items.length === 0 || !irregular) return t;
  const byCode = itemsByCode(items);
  for (const code of PAY_ITEM_CODES) {
    const acc = byCode.get(code);
    if (!acc) continue;
    const rule = irregular.items[code];
    t.gross += acc.amount;
    for (const b of rule.bases) {
      if (rule.by_component && acc.comps) {
        const L = b === 'pension' ? C.pensionEe : b === 'nhf' ? C.nhf : b === 'nhia' ? C.nhiaEe : b === 'nsitf' ? C.nsitf : C.itf;
        for (const c of L.base) t.base[b] += acc.comps[c];
      } else t.base[b] += acc.amount;
    }
    if (rule.paye === 'regular') t.arrearsTaxable += acc.amount;
    else if (rule.paye === 'one_off') t.oneOff += acc.amount;
    else if (rule.paye === 'compensation') t.compensation += acc.amount;
    else t.exempt += acc.amount;
    const inputs: Record<string, string> = { amount_kobo: String(acc.amount), paye_treatment: rule.paye, bases: rule.bases.join('+') || 'none' };
    if (acc.comps) for (const k of COMPONENTS) inputs[KOBO_KEYS[k]] = String(acc.comps[k]);
    lines.push({
      code,
      label: rule.label,
      category: 'earning',
      amount: acc.amount,
      trace: { formula: `${rule.label.toLowerCase()} (pay item of the run; PAYE ${rule.paye}, in the bases of ${rule.bases.join(', ') || 'no statutory line'})`, inputs, exact: String(acc.amount), rounding: C.rounding, rule_pack_version: C.version },
    });
  }
  return t;
}

/** The items summed by code (a payslip shows one line per code), components too where given. */
function itemsByCode(items: readonly PayItem[]): Map<PayItemCode, { amount: number; comps: Record<PayComponent, number> | null }> {
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
  return byCode;
}

/** The percentage lines: the employee's deductions (null where they do not apply) and the employer's contributions. */
interface StatutoryLines {
  pensionEe: PayslipLine | null;
  nhf: PayslipLine | null;
  nhiaEe: PayslipLine | null;
  employer: PayslipLine[];
}

function statutoryLines(
  C: Compiled, payee: PayeeInputs, employer: EmployerInputs, comp: Record<PayComponent, number>, S: Strings,
  itemBase: Record<ItemBase, number>, paysRegular: boolean, pensionApplies: boolean,
): StatutoryLines {
  // A payslip that pays no regular pay shows only the lines its items give a base to.
  const keep = (L: PayslipLine) => paysRegular || Number(L.trace.inputs.base_kobo) !== 0;
  const line = (L: RateLine) => pctLine(L, comp, S, C.version, C.rounding, itemBase[L.itemBase]);
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
  return { pensionEe, nhf, nhiaEe, employer: employerLines };
}

/** Appends PAYE, the employee's deductions and the employer's lines after the earnings; totals are sums of lines. */
function appendDeductionsAndContributions(lines: PayslipLine[], paye: Paye, s: StatutoryLines): { deductions: number; employerContributions: number } {
  const firstDeduction = lines.length;
  lines.push(paye.line);
  if (s.pensionEe) lines.push(s.pensionEe);
  if (s.nhf) lines.push(s.nhf);
  if (s.nhiaEe) lines.push(s.nhiaEe);
  let deductions = 0;
  for (let i = firstDeduction; i < lines.length; i++) deductions += lines[i].amount;
  let employerContributions = 0;
  for (const l of s.employer) {
    employerContributions += l.amount;
    lines.push(l);
  }
  return { deductions, employerContributions };
}

/** The year to date this payslip leaves: the next payslip's `ytd`. */
function yearToDateAfter(
  C: Compiled, before: Required<YearToDate>, period: string, gross: number, net: number, s: StatutoryLines, paye: Paye, paysRegular: boolean,
): Required<YearToDate> {
  return {
    tax_year: C.taxYear,
    last_period: period,
    payslips: before.payslips + 1,
    gross: before.gross + gross,
    pension_employee: before.pension_employee + (s.pensionEe ? s.pensionEe.amount : 0),
    nhf: before.nhf + (s.nhf ? s.nhf.amount : 0),
    nhia_employee: before.nhia_employee + (s.nhiaEe ? s.nhiaEe.amount : 0),
    paye: before.paye + paye.amount,
    net: before.net + net,
    taxable_regular: paye.taxableRegularAfter,
    taxable_one_off: paye.oneOffAfter,
    compensation: paye.compensationAfter,
    paye_one_off: before.paye_one_off + paye.oneOffPaye,
    regular_through: paysRegular ? paye.incomePeriod : before.regular_through,
  };
}

/** Employer-contribution codes, for callers grouping lines. */
export const EMPLOYER_CODES: readonly EmployerContributionCode[] = ['pension_employer', 'nhia_employer', 'nsitf', 'itf'];
