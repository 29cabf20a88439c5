/**
 * Types of the ng-payroll rule pack and the gross-to-net engine (spec 2.9, 9).
 *
 * Money is an integer count of kobo everywhere (spec 1 rule 3). Rates are decimal strings in the
 * pack ("0.08"), never floats. Exact values in traces are exact decimal strings ("308642.5") or,
 * when the decimal does not terminate, reduced rationals ("22444331/6"); both are in kobo.
 */

/** Spec 2.9 RulePackReference. */
export interface RulePackReference {
  pack_id: 'ng-payroll';
  /** YYYY.MM.N; an active version never changes (spec 9). */
  version: string;
  /** `sha256:` + hex digest of the canonical form of the pack (see packs.ts canonicalForm). */
  content_hash: string;
}

export type RulePackStatus = 'active' | 'draft';

/** Named rounding policy; the law prescribes none (reference 9), so it is project policy. */
export type RoundingPolicy = 'half_up_per_line_kobo';

/** How the minimum-wage exemption is measured: reference 2.3 marks this [U]. */
export type MinimumWageMeasure = 'monthly_gross' | 'annual_projected_gross';

/** Monthly pay components a percentage line may be based on. */
export type PayComponent = 'basic' | 'housing' | 'transport' | 'other_allowances';

/** Monthly PAYE method: reference 9 step 3 (cumulative projection). Only one is implemented. */
export type PayeMethod = 'cumulative_projection';

export interface RateParameter {
  /** Decimal string, e.g. "0.08". */
  rate: string;
  /** Components summed into the base. */
  base: PayComponent[];
  /** Plain-words name of the base for traces and explanations. */
  base_label: string;
}

export interface TaxBand {
  /** Width of the band in kobo; null for the open top band. */
  width_kobo: number | null;
  rate: string;
}

/** The data of the pack (JSON), interpreted by compute.ts. */
export interface RulePackParameters {
  currency: 'NGN';
  tax_year: number;
  rounding: RoundingPolicy;
  paye: {
    method: PayeMethod;
    /** NTA 2025 Fourth Schedule, lowest band first. */
    bands: TaxBand[];
    rent_relief: { rate: string; cap_kobo: number };
    minimum_wage_exemption: { threshold_monthly_gross_kobo: number; measure: MinimumWageMeasure };
    /** Which employee deductions reduce chargeable income (NTA s.30(2)(a)). */
    deductible_lines: Array<'pension_employee' | 'nhf' | 'nhia_employee'>;
    /** Life assurance premium and mortgage interest applied through PAYE (reference 11.11 [U]). */
    apply_annual_reliefs: boolean;
  };
  pension: {
    employee: RateParameter;
    employer: RateParameter;
    /** PRA 2014 s.120 / s.2(2): reference 3 marks the headcount [U]; default 3. */
    min_headcount: number;
  };
  nhf: RateParameter;
  nhia: { employee: RateParameter; employer: RateParameter };
  nsitf: RateParameter;
  itf: RateParameter & { min_headcount: number };
  remittance: {
    /** PAYE due on this day of the month after payment. */
    paye_due_day: number;
    /** Pension due this many working days after the pay date. */
    pension_due_working_days: number;
    /** Public holidays (YYYY-MM-DD) excluded from working days; data, not code (reference 8). */
    holidays: string[];
    /** NHF due the same day of the next month (clamped to its last day). */
    nhf_due: 'same_day_next_month';
    /** ITF annual levy due on this month-day of the following year. */
    itf_due_month_day: string;
    /** Unconfirmed due dates are null (reference 8 [U]). */
    nsitf_due: null;
    nhia_due: null;
    pension_recipient: string;
    nhf_recipient: string;
    nsitf_recipient: string;
    itf_recipient: string;
    nhia_recipient: string;
  };
  /** State of residence (ISO 3166-2:NG) -> PAYE authority name. */
  tax_authorities: Record<string, string>;
  /** One-off and terminal pay (reference ng-payroll-2026-irregular-pay.md); packs without it compute regular pay only. */
  irregular_pay?: IrregularPayParameters;
}

/** Which statutory lines a pay item's amount joins (reference irregular pay 1.3). */
export type ItemBase = 'pension' | 'nhf' | 'nhia' | 'nsitf' | 'itf';

/**
 * How a pay item meets PAYE (reference irregular pay 1.1, 1.2):
 *   regular       restates the year as if paid on time (same-year arrears; cumulative method A)
 *   one_off       income of the day paid (NTA s.26(2)); taxed by irregular_pay.one_off_method
 *   exempt        not income (PRA 2014 s.10(3), NTA s.163(1)(i))
 *   compensation  compensation for loss of employment: exempt up to compensation_exempt_kobo for
 *                 the year, the excess a one-off deducted at payment (NTA s.50)
 */
export type ItemPaye = 'regular' | 'one_off' | 'exempt' | 'compensation';

export interface ItemRule {
  label: string;
  paye: ItemPaye;
  bases: ItemBase[];
  /** The item is given by pay component (arrears of basic, housing, ...); a base line takes only its own components. */
  by_component: boolean;
}

/**
 * Monthly PAYE method for one-off pay; the law prescribes none (reference irregular pay 1.2, [U]).
 *   increment_in_month_paid  method B: the whole extra annual tax the one-off causes, in the month paid
 *   cumulative_respread      method A: the one-off joins the cumulative projection, spread over k/n
 */
export type OneOffMethod = 'increment_in_month_paid' | 'cumulative_respread';

export interface IrregularPayParameters {
  one_off_method: OneOffMethod;
  /** NTA s.50(1): compensation for loss of employment up to this (kobo) is not chargeable. */
  compensation_exempt_kobo: number;
  items: Record<PayItemCode, ItemRule>;
}

export type PayItemCode =
  | 'bonus' | 'thirteenth_month' | 'leave_allowance' | 'overtime' | 'arrears' | 'unused_leave'
  | 'notice_pay' | 'gratuity' | 'pra_gratuity' | 'compensation_for_loss_of_employment';

export const PAY_ITEM_CODES: readonly PayItemCode[] = [
  'bonus', 'thirteenth_month', 'leave_allowance', 'overtime', 'arrears', 'unused_leave',
  'notice_pay', 'gratuity', 'pra_gratuity', 'compensation_for_loss_of_employment',
];

/** One amount paid on a payslip besides the regular monthly pay. */
export interface PayItem {
  code: PayItemCode;
  /** kobo, integer >= 0; for an item by component, the sum of its components. */
  amount: number;
  /** Items by component (arrears) only: the amount per pay component, kobo. */
  components?: Record<PayComponent, number>;
}

/** What a payslip pays besides the payee's recorded inputs (recorded with it, so a replay recomputes). */
export interface PayslipOptions {
  /** One-off and terminal items; default none. */
  items?: PayItem[];
  /** Whether the payslip pays the month's regular pay; default true. */
  regular?: boolean;
  /**
   * Month (1-12) of the tax year whose income the payslip is: the period's month, or for pay after
   * the employment ended, the last month of employment (NTA s.26(2)(b)). Default the period's month.
   */
  income_month?: number;
}

export interface UnconfirmedPoint {
  /** Dotted path of the parameter that carries the assumption. */
  parameter: string;
  note: string;
}

export interface RulePack {
  ref: RulePackReference;
  status: RulePackStatus;
  /** First day (YYYY-MM-DD) of pay periods this pack applies to. */
  effective_from: string;
  /** Last day, or null when open. */
  effective_to: string | null;
  description: string;
  parameters: RulePackParameters;
  /** Points the reference marks [U], each carried by a parameter. */
  unconfirmed: UnconfirmedPoint[];
}

/** One payee's inputs for one period, money in kobo (integers); shaped after the vectors' inputs. */
export interface PayeeInputs {
  monthly_basic: number;
  monthly_housing: number;
  monthly_transport: number;
  monthly_other_allowances: number;
  /** Rent attributable to the tax year (reference 2.2). */
  annual_rent_paid: number;
  annual_life_assurance_premium: number;
  annual_mortgage_interest: number;
  /** ISO 3166-2:NG code of the state of residence on 1 January, e.g. NG-LA, NG-FC. */
  state_of_residence: string;
  nhf_contributing: boolean;
  nhia_enrolled: boolean;
  /** Pension fund administrator identifier (instruction-set grouping); null when none. */
  pension_administrator?: string | null;
  /** Months (1-12) of the tax year in which the payee is employed; must include the period's month. */
  months_employed: number[];
}

export interface EmployerInputs {
  headcount: number;
  turnover_50m_or_more: boolean;
}

/** Year-to-date figures the cumulative PAYE method needs (from earlier payslips of the tax year). */
export interface YearToDate {
  tax_year: number;
  /** Period (YYYY-MM) of the latest payslip counted, or null at the start of the year. */
  last_period: string | null;
  /** Payslips counted. */
  payslips: number;
  /** Cash paid: every earning line. */
  gross: number;
  pension_employee: number;
  nhf: number;
  nhia_employee: number;
  paye: number;
  net: number;
  /** Regular pay and same-year arrears (taxable); absent on records made before irregular pay: gross. */
  taxable_regular?: number;
  /** One-off taxable pay (compensation above the exempt amount included); absent: 0. */
  taxable_one_off?: number;
  /** Compensation for loss of employment paid (before the exemption); absent: 0. */
  compensation?: number;
  /** The part of `paye` that taxed one-offs (method B); absent: 0. */
  paye_one_off?: number;
  /** Latest period (YYYY-MM) whose regular pay is counted; absent: last_period. */
  regular_through?: string | null;
}

export type EarningCode = 'basic' | 'housing' | 'transport' | 'other_allowances' | PayItemCode;
export type DeductionCode = 'paye' | 'pension_employee' | 'nhf' | 'nhia_employee';
export type EmployerContributionCode = 'pension_employer' | 'nhia_employer' | 'nsitf' | 'itf';
export type LineCode = EarningCode | DeductionCode | EmployerContributionCode;
export type LineCategory = 'earning' | 'deduction' | 'employer_contribution';

/** Spec 2.9: every payslip line carries a trace. */
export interface Trace {
  formula: string;
  /** Every input of the formula as a string (integers in kobo, rates as decimals). */
  inputs: Record<string, string>;
  /** Exact value before rounding, in kobo: decimal ("308642.5") or reduced rational ("22444331/6"). */
  exact: string;
  rounding: RoundingPolicy;
  rule_pack_version: string;
}

export interface PayslipLine {
  code: LineCode;
  label: string;
  category: LineCategory;
  /** kobo, integer. A PAYE line may be negative when the cumulative method refunds over-deduction. */
  amount: number;
  trace: Trace;
}

export interface PayslipComputation {
  /** YYYY-MM */
  period: string;
  tax_year: number;
  /** Lines that apply, in a fixed order: earnings, deductions, employer contributions. */
  lines: PayslipLine[];
  /** Sum of earning lines. */
  gross: number;
  /** gross - total_deductions. */
  net: number;
  /** Sum of deduction lines. */
  total_deductions: number;
  /** Sum of employer-contribution lines. */
  employer_contributions: number;
  ytd_before: YearToDate;
  ytd_after: YearToDate;
  rule_pack: RulePackReference;
  /** The recorded inputs, so a replay can recompute (spec 4.8 replay). */
  inputs: { payee: PayeeInputs; employer: EmployerInputs; items: PayItem[]; regular: boolean; income_month: number };
}

/** One difference between two computations (replay, simulate). Codes are line codes or totals. */
export interface ComputationDifference {
  code: LineCode | 'gross' | 'net' | 'total_deductions' | 'employer_contributions';
  a: number;
  b: number;
}

/** Due dates and recipients of one payslip's statutory amounts (reference 8). */
export interface RemittanceSchedule {
  paye: { jurisdiction: string; authority: string; amount: number; due_date: string };
  /** due_date null where the line does not apply (no contribution on this payslip). */
  pension: { to: string; administrator: string | null; employee: number; employer: number; amount: number; due_date: string | null };
  nhf: { to: string; amount: number; due_date: string | null };
  nsitf: { to: string; amount: number; due_date: string | null };
  itf: { to: string; monthly_accrual: number; due_date: string | null };
  nhia: { to: string; employee: number; employer: number; amount: number; due_date: string | null };
}

/** What the PDF shows beside the computation; all optional except the id. */
export interface PayslipDocumentMeta {
  payslip_id: string;
  payee_name?: string;
  payee_reference?: string;
  organisation_name?: string;
  run_id?: string;
  /** RFC 3339; also the PDF's creation date so the same payslip gives the same bytes. */
  issued_at?: string;
}
