/**
 * The chart of accounts an organisation starts with (spec 2.3; the chart is "not shown", so this
 * is a gap filled minimally and listed in docs/gaps.md#ledger). No endpoint creates an account
 * (spec 1 rule 5), so this list is every account a posting may name. Codes are dotted and start
 * with the kind, so the spec's "code order" groups accounts by kind.
 */

/** Spec 2.3: asset, liability, expense or equity; no others. */
export type LedgerAccountKind = 'asset' | 'liability' | 'expense' | 'equity';

export interface ChartEntry {
  code: string;
  kind: LedgerAccountKind;
  currency: string;
  /** What the account holds, for the gaps file and the GL export (not a spec field). */
  description: string;
}

/** An account of the starting chart: its kind is the first part of its code, its currency NGN (payroll pays in naira). */
const naira = (code: `${LedgerAccountKind}.${string}`, description: string): ChartEntry => ({ code, kind: code.slice(0, code.indexOf('.')) as LedgerAccountKind, currency: 'NGN', description });

/** Payroll's accounts (spec 2.9: expense against liabilities) and the bank that pays them out. */
export const STARTING_CHART: readonly ChartEntry[] = [
  naira('asset.bank', 'Cash at bank that pays salaries and remittances.'),
  naira('expense.employer_pension', "Employer's pension contribution (PRA 2014 s.4)."),
  naira('expense.itf', 'Industrial Training Fund levy accrual.'),
  naira('expense.nhia_employer', "Employer's NHIA contribution."),
  naira('expense.nsitf', "NSITF Employees' Compensation Fund contribution."),
  naira('expense.salaries', 'Gross pay: earnings lines of payslips.'),
  naira('liability.itf', 'ITF levy owed.'),
  naira('liability.net_pay', 'Net pay owed to payees.'),
  naira('liability.nhf', 'NHF contributions owed to FMBN.'),
  naira('liability.nhia', 'NHIA contributions owed (employee and employer).'),
  naira('liability.nsitf', 'NSITF contributions owed.'),
  naira('liability.paye', 'PAYE owed to state tax authorities.'),
  naira('liability.pension', 'Pension contributions owed to PFCs (employee and employer).'),
];

const byCode = new Map(STARTING_CHART.map((e) => [e.code, e]));

export const chartEntry = (code: string): ChartEntry | undefined => byCode.get(code);
