/** The payee import's operation (spec 4.8 POST /v1/payroll/imports): import.ts is the record, rows.ts reads the rows. */
import { createDedupe, createdId, type Caller, errorEntry, keyValue, type Platform, type ValidationEntry, validationReport } from '../../../kernel/index.ts';
import { checkEmployer, Employer, employerIdFor, type EmployerSettings } from '../employer.ts';
import { IMPORT_PREFIX, PAY_PROFILE_PREFIX, ROSTER_ENTRY_PREFIX } from '../payroll-ids.ts';
import { PayProfile } from '../pay-profile.ts';
import { RosterEntry } from '../roster-entry.ts';
import { PayrollImport, type ImportFacts } from './import.ts';
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

/**
 * Checks every row and the employer settings, then (when nothing fails) makes one pay profile and
 * one roster entry per row and records the import; all or nothing (spec 2.1).
 */
export async function runImport(platform: Platform, caller: Caller, body: ImportBody): Promise<unknown> {
  const { system } = platform;
  const { raw, entries } = rawRows(body);
  const rows = await uniqueRows(platform, caller, raw, entries);
  const employer = employerOf(body, entries);
  // With an Idempotency-Key every record of the import has an id derived from it, and each create
  // carries its dedupe id: an import run again after its answer was lost makes nothing twice.
  const id = createdId(caller, IMPORT_PREFIX);
  const opts = { ...caller, dedupeId: createDedupe(caller) };
  const errors = entries.filter((e) => e.severity === 'error');
  const record: ImportFacts = {
    livemode: caller.livemode,
    status: errors.length ? 'rejected' : 'completed',
    format: body.format,
    validation: validationReport(raw.length, entries),
    rows: [],
    employer_configured: false,
  };
  if (!errors.length) {
    if (employer) {
      await system.ask(Employer, employerIdFor(caller.org), 'configure', { ...employer, livemode: caller.livemode }, opts);
      record.employer_configured = true;
    }
    for (let i = 0; i < rows.length; i += CHUNK) record.rows.push(...(await makePayees(platform, caller, rows.slice(i, i + CHUNK), i, opts)));
  }
  return system.ask(PayrollImport, id, 'record', record, opts);
}

/** The rows as given (JSON, or read from the CSV), cut at MAX_IMPORT_ROWS with the excess reported. */
function rawRows(body: ImportBody): { raw: unknown[]; entries: ValidationEntry[] } {
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
  return { raw, entries };
}

/** The rows that read well and name a payee_ref not yet on the roster nor earlier in the import. */
async function uniqueRows(platform: Platform, caller: Caller, raw: unknown[], entries: ValidationEntry[]): Promise<ImportRow[]> {
  const rows: ImportRow[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < raw.length; i++) {
    const { row, entries: bad } = normaliseRow(raw[i], i + 1);
    entries.push(...bad);
    if (!row) continue;
    // A payee_ref this very import made before its answer was lost (same Idempotency-Key, same row)
    // is the import resuming, not a duplicate: its records are made again under the same ids.
    const existing = await keyValue(platform).get(refKey(caller.org, row.payee_ref));
    const resumed = existing !== undefined && caller.idempotencyKey !== undefined && existing === createdId(caller, PAY_PROFILE_PREFIX, `row ${rows.length + 1}`);
    if (seen.has(row.payee_ref) || (existing !== undefined && !resumed)) {
      entries.push(errorEntry(`/rows/${i}/payee_ref`, 'duplicate_payee_ref', `payee_ref ${row.payee_ref} is already on the roster or earlier in this import.`, i + 1));
      continue;
    }
    seen.add(row.payee_ref);
    rows.push(row);
  }
  return rows;
}

/** The employer settings given with the import, checked (the threshold may come as Money in NGN). */
function employerOf(body: ImportBody, entries: ValidationEntry[]): Partial<EmployerSettings> | undefined {
  if (!body.employer) return undefined;
  const t = body.employer.maker_checker_threshold;
  const employer = { ...body.employer, maker_checker_threshold: typeof t === 'object' && t !== null ? t.amount : t };
  entries.push(...checkEmployer(employer, 1));
  if (typeof t === 'object' && t !== null && t.currency !== 'NGN') entries.push(errorEntry('/employer/maker_checker_threshold/currency', 'unsupported_currency', 'maker_checker_threshold must be in NGN.'));
  return employer;
}

/** One chunk of rows (the first is row `from + 1`): each payee's pay profile and roster entry. */
async function makePayees(platform: Platform, caller: Caller, chunk: ImportRow[], from: number, opts: Caller & { dedupeId?: string }): Promise<ImportFacts['rows']> {
  const { system } = platform;
  return Promise.all(chunk.map(async (row, j) => {
    const profileId = createdId(caller, PAY_PROFILE_PREFIX, `row ${from + j + 1}`);
    const entryId = createdId(caller, ROSTER_ENTRY_PREFIX, `row ${from + j + 1}`);
    await keyValue(platform).set(refKey(caller.org, row.payee_ref), profileId);
    await system.ask(PayProfile, profileId, 'create', { payee_ref: row.payee_ref, name: row.name, inputs: row.inputs, ...(row.bank_account ? { bank_account: row.bank_account } : {}), livemode: caller.livemode }, opts);
    await system.ask(RosterEntry, entryId, 'create', { payee_ref: row.payee_ref, pay_profile_id: profileId, starts_on: row.starts_on, ends_on: row.ends_on, livemode: caller.livemode }, opts);
    return { index: from + j + 1, payee_ref: row.payee_ref, pay_profile_id: profileId, roster_entry_id: entryId };
  }));
}
