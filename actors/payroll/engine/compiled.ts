/**
 * An ng-payroll pack compiled for the hot path (compute.ts): rates parsed, formula texts and trace
 * keys built once per pack, and the percentage line every statutory line is computed by.
 */
import { lcm, mulRateExact, mulRateHalfUp, parseRate, type Rate } from './exact.ts';
import type { IrregularPayParameters, ItemBase, LineCategory, LineCode, PayComponent, PayslipLine, RateParameter, RoundingPolicy, RulePack } from './types.ts';

export interface RateLine {
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

export interface Band {
  lower: number;
  width: number | null;
  rate: Rate;
  /** rate x bandDen, an integer: tax numerator per kobo over the common denominator. */
  scaled: number;
  keys: { taxable: string; rate: string; tax: string };
}

export interface Compiled {
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

export const KOBO_KEYS: Record<PayComponent, string> = {
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

export function compile(pack: RulePack): Compiled {
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

/** Per-payslip string cache: each component and each distinct base is turned into a string once. */
export interface Strings {
  comp: Record<PayComponent, string>;
  lastBase: number;
  lastBaseText: string;
}

export function pctLine(L: RateLine, comp: Record<PayComponent, number>, S: Strings, version: string, rounding: RoundingPolicy, items = 0): PayslipLine {
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
