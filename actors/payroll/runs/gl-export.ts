/**
 * General-ledger export of an executed run (spec 4.8 POST/GET .../gl_export; shape not shown,
 * docs/gaps.md#payroll): the run's ledger posting as CSV, one row per line, so an outside ledger
 * can import exactly what this platform's ledger recorded.
 */
import type { Caller, Platform } from '../../../kernel/index.ts';
import { chartEntry, type PostingRequest } from '../../ledger/index.ts';
import type { PayslipRecord } from '../payslips/record.ts';
import { loadPayslips } from '../payslips/storage.ts';
import { buildPosting, reversalOf } from './ledger-posting.ts';
import { runState } from './runs.ts';
import { Run, type RunState } from './run.ts';

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

/** The GL export CSV of an executed run; a correction's starts with its reversal of the corrected run. */
export async function glExportOf(p: Platform, s: RunState, exportId: string): Promise<string> {
  let reversal: PostingRequest | undefined;
  if (s.corrects_run_id && s.reversal_posting_id) {
    const target = await p.system.state(Run, s.corrects_run_id, s.org);
    const old = buildPosting(target.id, target.period, target.livemode, await loadPayslips(p.system, target));
    if (old && target.ledger_posting_id) reversal = reversalOf(old, target.ledger_posting_id, '');
  }
  return glExportCsv(s, await loadPayslips(p.system, s), exportId, reversal);
}

/** POST .../gl_export: the run records a new export, answered as the export (not the CSV). */
export async function exportGl(p: Platform, c: Caller, runId: string) {
  await p.system.ask(Run, runId, 'export_gl', {}, c);
  const s = await runState(p, c, runId);
  const last = s.gl_exports[s.gl_exports.length - 1];
  return { id: last.id, object: 'gl_export', livemode: s.livemode, mocked: false, run_id: s.id, format: 'csv', created_at: new Date(last.created_at).toISOString() };
}
