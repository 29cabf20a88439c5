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

/** Payroll's accounts (spec 2.9: expense against liabilities) and the bank that pays them out. */
export const STARTING_CHART: readonly ChartEntry[] = [
  { code: 'asset.bank', kind: 'asset', currency: 'NGN', description: 'Cash at bank that pays salaries and remittances.' },
  { code: 'expense.employer_pension', kind: 'expense', currency: 'NGN', description: "Employer's pension contribution (PRA 2014 s.4)." },
  { code: 'expense.itf', kind: 'expense', currency: 'NGN', description: 'Industrial Training Fund levy accrual.' },
  { code: 'expense.nhia_employer', kind: 'expense', currency: 'NGN', description: "Employer's NHIA contribution." },
  { code: 'expense.nsitf', kind: 'expense', currency: 'NGN', description: "NSITF Employees' Compensation Fund contribution." },
  { code: 'expense.salaries', kind: 'expense', currency: 'NGN', description: 'Gross pay: earnings lines of payslips.' },
  { code: 'liability.itf', kind: 'liability', currency: 'NGN', description: 'ITF levy owed.' },
  { code: 'liability.net_pay', kind: 'liability', currency: 'NGN', description: 'Net pay owed to payees.' },
  { code: 'liability.nhf', kind: 'liability', currency: 'NGN', description: 'NHF contributions owed to FMBN.' },
  { code: 'liability.nhia', kind: 'liability', currency: 'NGN', description: 'NHIA contributions owed (employee and employer).' },
  { code: 'liability.nsitf', kind: 'liability', currency: 'NGN', description: 'NSITF contributions owed.' },
  { code: 'liability.paye', kind: 'liability', currency: 'NGN', description: 'PAYE owed to state tax authorities.' },
  { code: 'liability.pension', kind: 'liability', currency: 'NGN', description: 'Pension contributions owed to PFCs (employee and employer).' },
];

const byCode = new Map(STARTING_CHART.map((e) => [e.code, e]));

export const chartEntry = (code: string): ChartEntry | undefined => byCode.get(code);
