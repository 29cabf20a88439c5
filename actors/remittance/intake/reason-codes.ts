/**
 * The published codes of instruction-set validation (spec 2.1 ValidationReport, spec 3 "Remittance
 * instruction set": accept needs every discrepancy resolved or overridden with a reason code):
 * one table by kind, a code and its meaning a row. The table is data, served in its order by
 * GET /v1/remittance/reason_codes; the spec shows none of it (docs/gaps.md, "Remittance: intake,
 * authorities, obligations").
 *
 * A discrepancy is an error of the report: it blocks accept until overridden with an override
 * reason. A warning is reported and blocks nothing.
 */
export const REASON_CODES = {
  discrepancy: {
    run_totals_mismatch: 'The set\u2019s total differs from the run\u2019s deductions plus employer contributions (to the minor unit).',
    totals_mismatch: 'totals.total differs from the sum of the set\u2019s lines.',
    run_not_found: 'run_id names no payroll run of this organisation.',
    run_not_executed: 'The run named has not executed; its figures are not final.',
    period_mismatch: 'The set\u2019s period differs from the run\u2019s.',
    unknown_authority: 'A PAYE line names no State IRS or the FCT-IRS (jurisdiction or authority_id).',
    authority_jurisdiction_mismatch: 'A PAYE line\u2019s authority_id is another jurisdiction\u2019s authority.',
    unknown_pension_administrator: 'A pension line names no licensed pension fund administrator (including contributions with no PFA on file).',
    pension_split_mismatch: 'A pension line\u2019s employee_amount plus employer_amount differs from its amount.',
    duplicate_line: 'A second line for the same State, PFA or levy.',
    currency_mismatch: 'A line is not in the set\u2019s currency (NGN).',
    negative_amount: 'A line\u2019s amount is below zero.',
  },
  warning: {
    nothing_to_remit: 'A line of zero: the levy does not apply; its due date is null and no obligation is made.',
    authority_name_unconfirmed: 'The authority\u2019s official name is unconfirmed in the authority data (reference [U]).',
    due_date_unconfirmed: 'The levy\u2019s due date is unconfirmed in the calendar (NSITF, NHIA): due_date is null.',
  },
  override: {
    confirmed_with_authority: 'The authority confirmed the figure or the recipient outside the platform.',
    confirmed_with_employee: 'The employee confirmed the detail (their PFA, or their State of residence on 1 January).',
    correction_to_follow: 'A correction run or a later instruction set carries the difference.',
    adjusted_outside_platform: 'The figures were adjusted in a system of record outside the platform, and the set is right.',
    remitted_outside_platform: 'The line is remitted outside the platform; no leg will pay it.',
    other: 'Another reason, written in note (required).',
  },
} as const;
export type ReasonCodeKind = keyof typeof REASON_CODES;
export type DiscrepancyCode = keyof typeof REASON_CODES.discrepancy;
export type WarningCode = keyof typeof REASON_CODES.warning;
export type OverrideReasonCode = keyof typeof REASON_CODES.override;

export interface ReasonCode {
  object: 'remittance_reason_code';
  kind: ReasonCodeKind;
  code: string;
  description: string;
}

export function reasonCodeList(): ReasonCode[] {
  return (Object.keys(REASON_CODES) as ReasonCodeKind[]).flatMap((kind) =>
    Object.entries(REASON_CODES[kind]).map(([code, description]): ReasonCode => ({ object: 'remittance_reason_code', kind, code, description })));
}
