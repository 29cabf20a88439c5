/**
 * The import's operation (spec 4.9 POST /v1/remittance/imports): a CSV file (csv.ts) read into an
 * instruction set (source external_file); any failing row rejects the whole file and makes no set.
 * import.ts is the record.
 */
import { type Caller, derivedId, type Platform, validationReport } from '../../../kernel/index.ts';
import { linesFromCsv } from './csv.ts';
import { RemittanceImport } from './import.ts';
import { checkSubmission, receiveAndValidate, type Submission } from './instruction-sets.ts';
import { SET_PREFIX, type Receive } from './instruction-set.ts';

/** POST /v1/remittance/imports: a CSV file; any failing row rejects the whole file and makes no set. */
export async function importInstructionSet(platform: Platform, caller: Caller, body: Submission & { csv: string }, importId: string, dedupeId: string | undefined) {
  checkSubmission(body);
  const parsed = linesFromCsv(body.csv);
  const setId = derivedId(SET_PREFIX, [caller.org, 'import', importId]);
  if (parsed.lines) {
    const r: Receive = { source: 'external_file', livemode: caller.livemode, period: body.period, run_id: body.run_id ?? null, pay_date: body.pay_date ?? null, import_id: importId, lines: parsed.lines };
    await receiveAndValidate(platform, caller, setId, r, dedupeId && `${dedupeId}:set`);
  }
  const failedRows = new Set(parsed.entries.map((e) => e.index)).size;
  const validation = { ...validationReport(parsed.rowCount, parsed.entries), error_count: failedRows };
  return platform.system.ask(RemittanceImport, importId, 'record', {
    livemode: caller.livemode, status: parsed.lines ? 'completed' : 'rejected', format: 'csv', row_count: parsed.rowCount, period: body.period, validation, instruction_set_id: parsed.lines ? setId : null,
  }, { org: caller.org, requestId: caller.requestId, principal: caller.principal, dedupeId });
}

