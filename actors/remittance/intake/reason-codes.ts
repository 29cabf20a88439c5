/**
 * The published codes of instruction-set validation (spec 2.1 ValidationReport, spec 3 "Remittance
 * instruction set": accept needs every discrepancy resolved or overridden with a reason code).
 * Both lists are data, served by GET /v1/remittance/reason_codes; the spec shows neither
 * (docs/gaps.md, "Remittance: intake, authorities, obligations").
 *
 * A discrepancy is an error of the report: it blocks accept until overridden. A warning is
 * reported and blocks nothing.
 */
export interface CodeInfo {
  code: string;
  description: string;
}

export const DISCREPANCY_CODES = {
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
} as const;
export type DiscrepancyCode = keyof typeof DISCREPANCY_CODES;

export const WARNING_CODES = {
  nothing_to_remit: 'A line of zero: the levy does not apply; its due date is null and no obligation is made.',
  authority_name_unconfirmed: 'The authority\u2019s official name is unconfirmed in the authority data (reference [U]).',
  due_date_unconfirmed: 'The levy\u2019s due date is unconfirmed in the calendar (NSITF, NHIA): due_date is null.',
} as const;
export type WarningCode = keyof typeof WARNING_CODES;

export const OVERRIDE_REASON_CODES = {
  confirmed_with_authority: 'The authority confirmed the figure or the recipient outside the platform.',
  confirmed_with_employee: 'The employee confirmed the detail (their PFA, or their State of residence on 1 January).',
  correction_to_follow: 'A correction run or a later instruction set carries the difference.',
  adjusted_outside_platform: 'The figures were adjusted in a system of record outside the platform, and the set is right.',
  remitted_outside_platform: 'The line is remitted outside the platform; no leg will pay it.',
  other: 'Another reason, written in note (required).',
} as const;
export type OverrideReasonCode = keyof typeof OVERRIDE_REASON_CODES;
export const OVERRIDE_CODES = Object.keys(OVERRIDE_REASON_CODES) as OverrideReasonCode[];

export function reasonCodeList(): Array<CodeInfo & { object: 'remittance_reason_code'; kind: 'discrepancy' | 'warning' | 'override' }> {
  const of = (kind: 'discrepancy' | 'warning' | 'override', m: Record<string, string>) => Object.entries(m).map(([code, description]) => ({ object: 'remittance_reason_code' as const, kind, code, description }));
  return [...of('discrepancy', DISCREPANCY_CODES), ...of('warning', WARNING_CODES), ...of('override', OVERRIDE_REASON_CODES)];
}
