/**
 * Import record (spec 4.6 POST /v1/sourcing/imports, GET /{import_id}; fields "not shown",
 * docs/gaps.md#sourcing). A CSV of leads or of requisitions, all or nothing: an import with any
 * failing row creates nothing and is recorded rejected with its ValidationReport; otherwise it is
 * completed with the id of each record it created, row by row.
 *
 * status  command  condition  event                     next
 * ------  -------  ---------  ------------------------  --------------------
 * (none)  record   -          sourcing_import.recorded  completed | rejected
 */
import { defineActor, iso, sortKeyTime } from '../../runtime/index.ts';
import { assertNever, type ValidationReport } from '../../kernel/index.ts';
import { IMPORT_PREFIX } from './ids.ts';

export type ImportKind = 'leads' | 'requisitions';

export interface ImportFacts {
  livemode: boolean;
  kind: ImportKind;
  status: 'completed' | 'rejected';
  validation: ValidationReport;
  rows: Array<{ index: number; id: string }>;
}

export interface ImportState extends ImportFacts {
  id: string;
  org: string;
  created_at: number;
}

type ImportEvent = { type: 'sourcing_import.recorded' } & ImportFacts;

export const SourcingImport = defineActor({
  kind: 'sourcing_import',
  prefix: IMPORT_PREFIX,
  creates: ['record'],
  initial: (id: string, org: string): ImportState => ({ id, org, livemode: false, kind: 'leads', status: 'rejected', validation: { entry_count: 0, error_count: 0, warning_count: 0 }, rows: [], created_at: 0 }),
  decide: {
    record(_s: ImportState, cmd: ImportFacts, ctx): ImportEvent[] {
      if (ctx.version > 0) return [];
      return [{ type: 'sourcing_import.recorded', ...cmd }];
    },
  },
  evolve(s: ImportState, e: ImportEvent, meta): ImportState {
    switch (e.type) {
      case 'sourcing_import.recorded': {
        const { type: _t, ...facts } = e;
        return { ...s, ...facts, created_at: meta.at };
      }
      default:
        return assertNever(e.type);
    }
  },
  view: (s: ImportState) => ({
    id: s.id,
    object: 'sourcing_import' as const,
    livemode: s.livemode,
    mocked: false,
    kind: s.kind,
    status: s.status,
    validation: s.validation,
    rows: s.rows,
    created_at: iso(s.created_at),
  }),
  indexes: (s: ImportState) => [{ list: 'all', sortKey: sortKeyTime(s.created_at) }],
});
