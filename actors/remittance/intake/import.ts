/**
 * Instruction-set import record (spec 4.9 GET /v1/remittance/imports/{import_id}; fields not shown:
 * docs/gaps.md, "Remittance: intake, authorities, obligations"). All or nothing: a file with any
 * failing row makes no instruction set and is recorded rejected with its ValidationReport; a
 * readable file is recorded completed with the id of the set it submitted (source external_file).
 *
 * status   command  condition  event                       next
 * -------  -------  ---------  --------------------------  ---------------------
 * (none)   record   -          remittance.import.recorded  completed | rejected
 */
import { defineActor, iso, sortKeyTime } from '../../../runtime/index.ts';
import { assertNever, type ValidationReport } from '../../../kernel/index.ts';

export const IMPORT_PREFIX = 'remit_authority_rail_import_';
export type ImportStatus = 'completed' | 'rejected';

export interface ImportState {
  id: string;
  org: string;
  livemode: boolean;
  status: ImportStatus;
  format: 'csv';
  row_count: number;
  period: string;
  validation: ValidationReport;
  instruction_set_id: string | null;
  created_at: number;
}

type Recorded = Omit<ImportState, 'id' | 'org' | 'created_at'>;
type Event = { type: 'remittance.import.recorded' } & Recorded;

export const RemittanceImport = defineActor({
  kind: 'remittance_import',
  prefix: IMPORT_PREFIX,
  creates: ['record'],
  initial: (id: string, org: string): ImportState => ({
    id, org, livemode: false, status: 'rejected', format: 'csv', row_count: 0, period: '', validation: { entry_count: 0, error_count: 0, warning_count: 0 }, instruction_set_id: null, created_at: 0,
  }),
  decide: {
    record(_s: ImportState, cmd: Recorded, ctx): Event[] {
      if (ctx.version > 0) return [];
      return [{ type: 'remittance.import.recorded', ...cmd }];
    },
  },
  evolve(s: ImportState, e: Event, meta): ImportState {
    switch (e.type) {
      case 'remittance.import.recorded': {
        const { type: _t, ...rest } = e;
        return { ...s, ...rest, created_at: meta.at };
      }
      default:
        return assertNever(e.type);
    }
  },
  view: (s: ImportState) => ({
    id: s.id,
    object: 'remittance_import' as const,
    livemode: s.livemode,
    mocked: false,
    status: s.status,
    format: s.format,
    period: s.period,
    row_count: s.row_count,
    validation: s.validation,
    instruction_set_id: s.instruction_set_id,
    created_at: iso(s.created_at),
  }),
  indexes: (s: ImportState) => [{ list: 'all', sortKey: sortKeyTime(s.created_at) }],
});
