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
import { defineActor, iso, sortKeyTime } from '../../../runtime/index.ts';
import { assertNever, type ValidationReport } from '../../../kernel/index.ts';

export type ImportStatus = 'completed' | 'rejected';

export interface ImportState {
  id: string;
  org: string;
  livemode: boolean;
  status: ImportStatus;
  format: 'json' | 'csv';
  validation: ValidationReport;
  rows: Array<{ index: number; payee_ref: string; pay_profile_id: string; roster_entry_id: string }>;
  employer_configured: boolean;
  created_at: number;
}

type Event = { type: 'payroll.import.recorded' } & Omit<ImportState, 'id' | 'org' | 'created_at'>;

export const PayrollImport = defineActor({
  kind: 'payroll_import',
  prefix: 'payroll_import_',
  creates: ['record'],
  initial: (id: string, org: string): ImportState => ({
    id, org, livemode: false, status: 'rejected', format: 'json', validation: { entry_count: 0, error_count: 0, warning_count: 0 }, rows: [], employer_configured: false, created_at: 0,
  }),
  decide: {
    record(_s: ImportState, cmd: Omit<ImportState, 'id' | 'org' | 'created_at'>, ctx): Event[] {
      if (ctx.version > 0) return [];
      return [{ type: 'payroll.import.recorded', ...cmd }];
    },
  },
  evolve(s: ImportState, e: Event, meta): ImportState {
    switch (e.type) {
      case 'payroll.import.recorded': {
        const { type: _t, ...rest } = e;
        return { ...s, ...rest, created_at: meta.at };
      }
      default:
        return assertNever(e.type);
    }
  },
  view: (s: ImportState) => ({
    id: s.id,
    object: 'payroll_import' as const,
    livemode: s.livemode,
    mocked: false,
    status: s.status,
    format: s.format,
    validation: s.validation,
    employer_configured: s.employer_configured,
    created: { pay_profiles: s.rows.length, roster_entries: s.rows.length },
    rows: s.rows,
    created_at: iso(s.created_at),
  }),
  indexes: (s: ImportState) => [{ list: 'all', sortKey: sortKeyTime(s.created_at) }],
});
