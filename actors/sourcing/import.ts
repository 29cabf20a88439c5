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
import { defineActor, iso } from '../../runtime/index.ts';
import { emptyReport, oneShotRecord, type OneShotState, recordView, type ValidationReport } from '../../kernel/index.ts';
import { IMPORT_PREFIX } from './ids.ts';

export type ImportKind = 'leads' | 'requisitions';

export interface ImportFacts {
  livemode: boolean;
  kind: ImportKind;
  status: 'completed' | 'rejected';
  validation: ValidationReport;
  rows: Array<{ index: number; id: string }>;
}

export type ImportState = OneShotState & ImportFacts;

export const SourcingImport = defineActor({
  kind: 'sourcing_import',
  prefix: IMPORT_PREFIX,
  ...oneShotRecord('sourcing_import.recorded', (): ImportFacts => ({ livemode: false, kind: 'leads', status: 'rejected', validation: emptyReport(), rows: [] })),
  view: (s: ImportState) => (recordView('sourcing_import', s.id, s.livemode, false, {
    kind: s.kind,
    status: s.status,
    validation: s.validation,
    rows: s.rows,
    created_at: iso(s.created_at),
  })),
});
