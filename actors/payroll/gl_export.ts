/**
 * General-ledger export of an executed run (spec 4.8 POST/GET .../gl_export; shape not shown,
 * docs/gaps.md#payroll): the run's ledger posting as CSV, one row per line, so an outside ledger
 * can import exactly what this platform's ledger recorded.
 */
import { chartEntry, type PostingRequest } from '../ledger/index.ts';
import { buildPosting } from './instruction_set.ts';
import type { RunState } from './run.ts';
import type { PayslipRecord } from './payslip_record.ts';

export const GL_COLUMNS = ['export_id', 'run_id', 'period', 'posting_id', 'line', 'account_code', 'account_kind', 'debit', 'credit', 'currency'] as const;

const cell = (v: string | number) => {
  const s = String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};

/** A correction's export starts with the reversal of the corrected run's posting. */
export function glExportCsv(s: RunState, payslips: readonly PayslipRecord[], exportId: string, reversal?: PostingRequest): string {
  const rows: string[] = [GL_COLUMNS.join(',')];
  const add = (postingId: string | null, posting: PostingRequest | undefined) =>
    posting?.lines.forEach((l, i) => {
      rows.push([exportId, s.id, s.period, postingId ?? '', i + 1, l.account_code, chartEntry(l.account_code)?.kind ?? '', l.debit, l.credit, posting.currency].map(cell).join(','));
    });
  if (reversal) add(s.reversal_posting_id, reversal);
  add(s.ledger_posting_id, buildPosting(s.id, s.period, s.livemode, payslips));
  return rows.join('\r\n') + '\r\n';
}
