/**
 * The run's ledger posting (spec 2.3, 2.9), a sum of payslip lines whose lines sum to zero, and
 * the reversal a correction run posts first for the run it corrects (spec 1 rule 4).
 */
import type { PostingRequest } from '../../ledger/index.ts';
import { codeTotals, type PayslipRecord } from '../payslips/record.ts';

/** Expense against liabilities (spec 2.9): debits = gross + employer contributions = credits. */
export function buildPosting(runId: string, period: string, livemode: boolean, records: readonly PayslipRecord[]): PostingRequest | undefined {
  const t = codeTotals(records);
  let net = 0;
  let gross = 0;
  for (const r of records) {
    net += r.net;
    gross += r.gross; // regular pay and pay items alike
  }
  const signed: Array<[string, number]> = [
    // positive = debit
    ['expense.salaries', gross],
    ['expense.employer_pension', t.pension_employer],
    ['expense.nsitf', t.nsitf],
    ['expense.itf', t.itf],
    ['expense.nhia_employer', t.nhia_employer],
    ['liability.net_pay', -net],
    ['liability.paye', -t.paye],
    ['liability.pension', -(t.pension_employee + t.pension_employer)],
    ['liability.nhf', -t.nhf],
    ['liability.nhia', -(t.nhia_employee + t.nhia_employer)],
    ['liability.nsitf', -t.nsitf],
    ['liability.itf', -t.itf],
  ];
  const lines = signed.filter(([, v]) => v !== 0).map(([account_code, v]) => ({ account_code, debit: v > 0 ? v : 0, credit: v < 0 ? -v : 0 }));
  if (lines.length < 2) return undefined;
  return { currency: 'NGN', lines, memo: `Payroll run ${runId} for ${period}`, livemode, reverses_id: null };
}

/** The reversal of a posting request: every line on the other side, naming the posting reversed. */
export function reversalOf(req: PostingRequest, reversesId: string, memo: string): PostingRequest {
  return { ...req, memo, reverses_id: reversesId, lines: req.lines.map((l) => ({ account_code: l.account_code, debit: l.credit, credit: l.debit })) };
}
