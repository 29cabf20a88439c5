/**
 * Imports (spec 4.6 POST /v1/sourcing/imports, GET /{import_id}; the body is "not shown",
 * docs/gaps.md#sourcing): a CSV of leads or of requisitions. Every row is read and checked first
 * and every failing field of every row is named in the ValidationReport; only an import without
 * errors creates anything (all or nothing), one record per row with an id derived from the import.
 *
 * Requisition rows go through the same inference and screening as POST /v1/sourcing/requisitions;
 * a row may leave headcount blank, which is then inferred as 1 and holds publish until confirmed
 * (spec 3). Lead rows go through POST /v1/sourcing/leads' steps.
 */
import { ApiError, type Caller, createDedupe, createdId, errorEntry, parseCsv, type Platform, type ValidationEntry, validationReport } from '../../kernel/index.ts';
import { IMPORT_PREFIX, REQUISITION_PREFIX } from './ids.ts';
import { Lead } from './lead.ts';
import { type LeadBody, leadIdFor, leadSeed } from './leads.ts';
import { Requisition } from './requisition.ts';
import { prepareCreate, type RequisitionBody } from './requisitions.ts';
import { sourcing } from './service.ts';
import { type ImportKind, SourcingImport } from './import.ts';
import { EMPLOYMENT_TYPES, type EmploymentType, PERIODS, type Period } from './taxonomy.ts';

export const MAX_IMPORT_ROWS = 1000;

export const COLUMNS: Record<ImportKind, { required: string[]; optional: string[] }> = {
  requisitions: {
    required: ['job_title'],
    optional: ['headcount', 'occupation_code', 'employment_type', 'compensation_amount', 'compensation_currency', 'compensation_period', 'negotiable', 'location', 'state', 'starts_on', 'description', 'min_experience_years', 'skills', 'licences', 'within_state', 'notes'],
  },
  leads: {
    required: ['requisition_id', 'full_name'],
    optional: ['delivery_id', 'channel_id', 'external_ref', 'phone', 'email', 'state', 'experience_years', 'skills', 'licences'],
  },
};

type Row = Record<string, string>;
const list = (v: string | undefined) => (v ? v.split(';').map((x) => x.trim()).filter(Boolean) : undefined);

/** A requisition row into the create body; problems are pushed to `entries`. */
function requisitionRow(r: Row, index: number, entries: ValidationEntry[]): RequisitionBody & { job_title: string } {
  const bad = (col: string, code: string, detail: string) => entries.push(errorEntry(col, code, detail, index));
  const int = (col: string, min: number, max: number) => {
    const v = r[col];
    if (!v) return undefined;
    if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max) {
      bad(col, 'invalid_value', `${col} must be a whole number from ${min} to ${max}.`);
      return undefined;
    }
    return Number(v);
  };
  const bool = (col: string) => {
    const v = r[col];
    if (!v) return undefined;
    if (v !== 'true' && v !== 'false') bad(col, 'invalid_value', `${col} must be true or false.`);
    return v === 'true';
  };
  if (!r.job_title) bad('job_title', 'required', 'job_title is required.');
  else if (r.job_title.length > 200) bad('job_title', 'too_long', 'job_title is at most 200 characters.');
  const body: RequisitionBody & { job_title: string } = { job_title: r.job_title };
  const headcount = int('headcount', 1, 100_000);
  if (headcount !== undefined) body.headcount = headcount;
  if (r.occupation_code) {
    if (!/^ng-\d{4}$/.test(r.occupation_code)) bad('occupation_code', 'invalid_value', 'occupation_code must look like ng-7411.');
    else body.occupation_code = r.occupation_code;
  }
  if (r.employment_type) {
    if (!(EMPLOYMENT_TYPES as readonly string[]).includes(r.employment_type)) bad('employment_type', 'invalid_value', `employment_type must be one of ${EMPLOYMENT_TYPES.join(', ')}.`);
    else body.employment_type = r.employment_type as EmploymentType;
  }
  const amount = int('compensation_amount', 0, Number.MAX_SAFE_INTEGER);
  if (amount !== undefined) {
    const currency = r.compensation_currency || 'NGN';
    if (!/^[A-Z]{3}$/.test(currency)) bad('compensation_currency', 'invalid_currency', 'compensation_currency must be an ISO 4217 code.');
    let period: Period | undefined;
    if (r.compensation_period) {
      if (!(PERIODS as readonly string[]).includes(r.compensation_period)) bad('compensation_period', 'invalid_value', `compensation_period must be one of ${PERIODS.join(', ')}.`);
      else period = r.compensation_period as Period;
    }
    body.compensation = { amount: { amount, currency }, ...(period ? { period } : {}), ...(r.negotiable ? { negotiable: bool('negotiable') } : {}) };
  } else if (r.compensation_period || r.compensation_currency) bad('compensation_amount', 'required', 'compensation_amount is required with a compensation_period or compensation_currency.');
  if (r.location) body.location = { description: r.location, ...(r.state ? { state: r.state } : {}) };
  else if (r.state) bad('location', 'required', 'location is required with a state.');
  if (r.starts_on) {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(r.starts_on) || Number.isNaN(Date.parse(r.starts_on))) bad('starts_on', 'invalid_value', 'starts_on must be a date YYYY-MM-DD.');
    else body.starts_on = r.starts_on;
  }
  if (r.description) body.description = r.description;
  body.requirements = {
    min_experience_years: int('min_experience_years', 0, 60) ?? null,
    skills: list(r.skills) ?? [],
    licences: list(r.licences) ?? [],
    within_state: bool('within_state') ?? false,
    notes: r.notes || null,
  };
  return body;
}

function leadRow(r: Row, index: number, entries: ValidationEntry[]): LeadBody {
  const bad = (col: string, code: string, detail: string) => entries.push(errorEntry(col, code, detail, index));
  if (!r.requisition_id) bad('requisition_id', 'required', 'requisition_id is required.');
  if (!r.full_name) bad('full_name', 'required', 'full_name is required.');
  let years: number | undefined;
  if (r.experience_years) {
    if (!/^\d+$/.test(r.experience_years) || Number(r.experience_years) > 70) bad('experience_years', 'invalid_value', 'experience_years must be a whole number from 0 to 70.');
    else years = Number(r.experience_years);
  }
  return {
    requisition_id: r.requisition_id,
    ...(r.delivery_id ? { delivery_id: r.delivery_id } : {}),
    ...(r.channel_id ? { channel_id: r.channel_id } : {}),
    ...(r.external_ref ? { external_ref: r.external_ref } : {}),
    candidate: { full_name: r.full_name, phone: r.phone || null, email: r.email || null, state: r.state || null, experience_years: years ?? null, skills: list(r.skills) ?? [], licences: list(r.licences) ?? [] },
  };
}

export async function runImport(platform: Platform, caller: Caller, body: { kind: ImportKind; csv: string }) {
  const svc = sourcing(platform);
  const id = createdId(caller, IMPORT_PREFIX);
  const entries: ValidationEntry[] = [];
  const { rows: all, error } = parseCsv(body.csv);
  if (error) entries.push(errorEntry('/csv', 'csv_unreadable', error));
  const cols = COLUMNS[body.kind];
  const header = (all[0] ?? []).map((h) => h.trim());
  if (all.length === 0) entries.push(errorEntry('/csv', 'empty_file', 'The CSV has no header row.'));
  for (const c of cols.required) if (all.length && !header.includes(c)) entries.push(errorEntry('/csv', 'missing_column', `The CSV header has no ${c} column.`));
  for (const h of header) if (![...cols.required, ...cols.optional].includes(h)) entries.push(errorEntry('/csv', 'unknown_column', `Unknown CSV column ${h} for ${body.kind}.`));
  const data = all.slice(1);
  if (data.length > MAX_IMPORT_ROWS) throw new ApiError('validation_failed', `An import takes at most ${MAX_IMPORT_ROWS} rows; this one has ${data.length}.`);
  if (entries.length) return record(platform, caller, id, body.kind, data.length, entries, []);
  const rows: Row[] = data.map((cells, i) => {
    if (cells.length !== header.length) entries.push(errorEntry('/csv', 'column_count', `Row ${i + 1} has ${cells.length} fields; the header has ${header.length}.`, i + 1));
    return Object.fromEntries(header.map((h, j) => [h, (cells[j] ?? '').trim()]));
  });
  const now = platform.clock.now();
  const created: Array<{ index: number; id: string }> = [];
  if (body.kind === 'requisitions') {
    const prepared = rows.map((r, i) => {
      const b = requisitionRow(r, i + 1, entries);
      try {
        return b.job_title ? prepareCreate(svc, b, now) : undefined;
      } catch (e) {
        for (const x of (e as ApiError).details?.validation?.entries ?? []) entries.push({ ...x, index: i + 1, field: x.field === '/location/state' ? 'state' : x.field });
        return undefined;
      }
    });
    if (entries.some((e) => e.severity === 'error')) return record(platform, caller, id, body.kind, rows.length, entries, []);
    for (const [i, p] of prepared.entries()) {
      const rid = createdId({ org: caller.org, idempotencyKey: id }, REQUISITION_PREFIX, String(i));
      await platform.system.ask(Requisition, rid, 'create', { ...p!, livemode: caller.livemode }, { ...caller, dedupeId: `import:${id}`, noReply: true });
      created.push({ index: i + 1, id: rid });
    }
  } else {
    const seeds = await Promise.all(rows.map(async (r, i) => {
      const b = leadRow(r, i + 1, entries);
      if (!b.requisition_id || !b.candidate.full_name) return undefined;
      try {
        return await leadSeed(platform, caller, b);
      } catch (e) {
        const err = e as ApiError;
        if (!(err instanceof ApiError) || err.status >= 500) throw e;
        entries.push(errorEntry('requisition_id', err.code === 'not_found' || err.code === 'organisation_mismatch' ? 'unknown_record' : 'not_allowed', err.message, i + 1));
        return undefined;
      }
    }));
    if (entries.some((e) => e.severity === 'error')) return record(platform, caller, id, body.kind, rows.length, entries, []);
    for (const [i, seed] of seeds.entries()) {
      const lid = leadIdFor({ org: caller.org, livemode: caller.livemode, idempotencyKey: id }, seed!, String(i));
      await platform.system.ask(Lead, lid, 'receive', seed!, { ...caller, dedupeId: `import:${id}`, noReply: true });
      created.push({ index: i + 1, id: lid });
    }
  }
  return record(platform, caller, id, body.kind, rows.length, entries, created);
}

function record(platform: Platform, caller: Caller, id: string, kind: ImportKind, count: number, entries: ValidationEntry[], rows: Array<{ index: number; id: string }>) {
  const status = entries.some((e) => e.severity === 'error') ? 'rejected' : 'completed';
  return platform.system.ask(SourcingImport, id, 'record', { livemode: caller.livemode, kind, status, validation: validationReport(count, entries), rows }, { ...caller, dedupeId: createDedupe(caller) });
}

