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
import { defineActor, iso } from '../../../runtime/index.ts';
import { emptyReport, oneShotRecord, type OneShotState, recordView, type ValidationReport } from '../../../kernel/index.ts';

export const IMPORT_PREFIX = 'remit_authority_rail_import_';
export type ImportStatus = 'completed' | 'rejected';

export interface ImportFacts {
  livemode: boolean;
  status: ImportStatus;
  format: 'csv';
  row_count: number;
  period: string;
  validation: ValidationReport;
  instruction_set_id: string | null;
}

export type ImportState = OneShotState & ImportFacts;

export const RemittanceImport = defineActor({
  kind: 'remittance_import',
  prefix: IMPORT_PREFIX,
  ...oneShotRecord('remittance.import.recorded', (): ImportFacts => ({ livemode: false, status: 'rejected', format: 'csv', row_count: 0, period: '', validation: emptyReport(), instruction_set_id: null })),
  view: (s: ImportState) => (recordView('remittance_import', s.id, s.livemode, false, {
    status: s.status,
    format: s.format,
    period: s.period,
    row_count: s.row_count,
    validation: s.validation,
    instruction_set_id: s.instruction_set_id,
    created_at: iso(s.created_at),
  })),
});
