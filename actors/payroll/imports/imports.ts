/** Runs a payee import (see import.ts for the record and rows.ts for the rows). */
import type { ActorSystem } from '../../../runtime/index.ts';
import { createDedupe, createdId, type Caller, errorEntry, type ValidationEntry, validationReport } from '../../../kernel/index.ts';
import { checkEmployer, Employer, employerIdFor, type EmployerSettings } from '../employer.ts';
import { IMPORT_PREFIX, PAY_PROFILE_PREFIX, ROSTER_ENTRY_PREFIX } from '../payroll-ids.ts';
import { PayProfile } from '../pay-profile.ts';
import { RosterEntry } from '../roster-entry.ts';
import { PayrollImport, type ImportState } from './import.ts';
import { csvRows, normaliseRow, type ImportRow } from './rows.ts';

export interface ImportBody {
  format: 'json' | 'csv';
  rows?: unknown[];
  csv?: string;
  employer?: Partial<Omit<EmployerSettings, 'maker_checker_threshold'>> & { maker_checker_threshold?: number | { amount: number; currency: string } };
}

const CHUNK = 2_000;
/** Rows per import: keeps the import's one journal event well under a JetStream message (the
 * request size limit allows fewer JSON rows anyway); a larger payroll imports in several requests. */
export const MAX_IMPORT_ROWS = 5_000;
/** Which pay profile holds a payee_ref in an organisation (the roster's uniqueness). */
export const refKey = (org: string, ref: string) => `payroll:payee_ref:${org}:${ref}`;

export async function runImport(system: ActorSystem, caller: Caller, body: ImportBody): Promise<unknown> {
  const { org } = caller;
  const entries: ValidationEntry[] = [];
  let raw: unknown[] = [];
  if (body.format === 'csv') {
    const parsed = csvRows(body.csv ?? '');
    raw = parsed.rows;
    entries.push(...parsed.entries);
  } else raw = body.rows ?? [];
  if (raw.length > MAX_IMPORT_ROWS) {
    entries.push(errorEntry('/rows', 'too_many_rows', `An import takes at most ${MAX_IMPORT_ROWS} rows; this one has ${raw.length}. Split it into several imports.`, MAX_IMPORT_ROWS + 1));
    raw = raw.slice(0, MAX_IMPORT_ROWS);
  }

  const rows: ImportRow[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < raw.length; i++) {
    const { row, entries: bad } = normaliseRow(raw[i], i + 1);
    entries.push(...bad);
    if (!row) continue;
    // A payee_ref this very import made before its answer was lost (same Idempotency-Key, same row)
    // is the import resuming, not a duplicate: its records are made again under the same ids.
    const existing = await system.stores.kv.get(refKey(org, row.payee_ref));
    const resumed = existing !== undefined && caller.idempotencyKey !== undefined && existing === createdId(caller, PAY_PROFILE_PREFIX, `row ${rows.length + 1}`);
    if (seen.has(row.payee_ref) || (existing !== undefined && !resumed)) {
      entries.push(errorEntry(`/rows/${i}/payee_ref`, 'duplicate_payee_ref', `payee_ref ${row.payee_ref} is already on the roster or earlier in this import.`, i + 1));
      continue;
    }
    seen.add(row.payee_ref);
    rows.push(row);
  }
  let employer: Partial<EmployerSettings> | undefined;
  if (body.employer) {
    const t = body.employer.maker_checker_threshold;
    employer = { ...body.employer, maker_checker_threshold: typeof t === 'object' && t !== null ? t.amount : t };
    entries.push(...checkEmployer(employer, 1));
    if (typeof t === 'object' && t !== null && t.currency !== 'NGN') entries.push(errorEntry('/employer/maker_checker_threshold/currency', 'unsupported_currency', 'maker_checker_threshold must be in NGN.'));
  }

  // With an Idempotency-Key every record of the import has an id derived from it, and each create
  // carries its dedupe id: an import run again after its answer was lost makes nothing twice.
  const id = createdId(caller, IMPORT_PREFIX);
  const opts = { ...caller, dedupeId: createDedupe(caller) };
  const errors = entries.filter((e) => e.severity === 'error');
  const record: Omit<ImportState, 'id' | 'org' | 'created_at'> = {
    livemode: caller.livemode,
    status: errors.length ? 'rejected' : 'completed',
    format: body.format,
    validation: validationReport(raw.length, entries),
    rows: [],
    employer_configured: false,
  };
  if (!errors.length) {
    if (employer) {
      await system.ask(Employer, employerIdFor(org), 'configure', { ...employer, livemode: caller.livemode }, opts);
      record.employer_configured = true;
    }
    for (let i = 0; i < rows.length; i += CHUNK) {
      const chunk = rows.slice(i, i + CHUNK);
      const made = await Promise.all(chunk.map(async (row, j) => {
        const profileId = createdId(caller, PAY_PROFILE_PREFIX, `row ${i + j + 1}`);
        const entryId = createdId(caller, ROSTER_ENTRY_PREFIX, `row ${i + j + 1}`);
        await system.stores.kv.set(refKey(org, row.payee_ref), profileId);
        await system.ask(PayProfile, profileId, 'create', { payee_ref: row.payee_ref, name: row.name, inputs: row.inputs, bank_identifier: row.bank_identifier, ...(row.bank_account ? { bank_account: row.bank_account } : {}), livemode: caller.livemode }, opts);
        await system.ask(RosterEntry, entryId, 'create', { payee_ref: row.payee_ref, pay_profile_id: profileId, starts_on: row.starts_on, ends_on: row.ends_on, livemode: caller.livemode }, opts);
        return { index: i + j + 1, payee_ref: row.payee_ref, pay_profile_id: profileId, roster_entry_id: entryId };
      }));
      record.rows.push(...made);
    }
  }
  return system.ask(PayrollImport, id, 'record', record, opts);
}
