/**
 * Payee import record (spec 4.8 GET /v1/payroll/imports/{import_id}; fields not shown, filled in
 * docs/gaps.md#payroll). All or nothing: an import with any failing row creates no payee and is
 * recorded rejected with its ValidationReport; otherwise it is completed with one pay profile and
 * one roster entry per row.
 *
 * status   command  condition  event                       next
 * -------  -------  ---------  --------------------------  ------------------------
 * (none)   record   -          payroll.import.recorded     completed | rejected
 */
import { defineActor, iso } from '../../../runtime/index.ts';
import { emptyReport, oneShotRecord, type OneShotState, recordView, type ValidationReport } from '../../../kernel/index.ts';

export type ImportStatus = 'completed' | 'rejected';

export interface ImportFacts {
  livemode: boolean;
  status: ImportStatus;
  format: 'json' | 'csv';
  validation: ValidationReport;
  rows: Array<{ index: number; payee_ref: string; pay_profile_id: string; roster_entry_id: string }>;
  employer_configured: boolean;
}

export type ImportState = OneShotState & ImportFacts;

export const PayrollImport = defineActor({
  kind: 'payroll_import',
  prefix: 'payroll_import_',
  ...oneShotRecord('payroll.import.recorded', (): ImportFacts => ({ livemode: false, status: 'rejected', format: 'json', validation: emptyReport(), rows: [], employer_configured: false })),
  view: (s: ImportState) => (recordView('payroll_import', s.id, s.livemode, false, {
    status: s.status,
    format: s.format,
    validation: s.validation,
    employer_configured: s.employer_configured,
    created: { pay_profiles: s.rows.length, roster_entries: s.rows.length },
    rows: s.rows,
    created_at: iso(s.created_at),
  })),
});
