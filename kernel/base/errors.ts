/**
 * The one error type and the one catalogue of codes (spec 7).
 *
 * Every refusal the platform makes is an ApiError whose code is in CATALOGUE; the gateway maps it
 * to the wire in one place. Codes the spec names are used exactly; the ones it leaves "not named"
 * (400, 401, 404) are ours and listed in docs/gaps.md.
 */

export interface ValidationEntry {
  index: number;
  severity: 'error' | 'warning';
  code: string;
  detail: string;
  /** Where in the submission: a JSON pointer such as /readings/3/position/latitude. */
  field?: string;
}

/** Spec 2.1 ValidationReport. */
export interface ValidationReport {
  entry_count: number;
  error_count: number;
  warning_count: number;
  entries?: ValidationEntry[];
}

export const CATALOGUE = {
  invalid_request: { status: 400, spec: false, doc: 'The request could not be read (unreadable JSON, bad header).' },
  validation_failed: { status: 400, spec: false, doc: 'A value was refused; `validation` names every failing field.' },
  invalid_money_amount: { status: 400, spec: true, doc: 'A money amount was not a whole number of minor units.' },
  idempotency_key_missing: { status: 400, spec: false, doc: 'This POST requires an Idempotency-Key header.' },
  idempotency_key_invalid: { status: 400, spec: false, doc: 'The Idempotency-Key is empty or longer than 255 characters.' },
  idempotency_key_reused: { status: 400, spec: true, doc: 'The Idempotency-Key was used before with a different request.' },
  unauthenticated: { status: 401, spec: false, doc: 'No valid credential was sent.' },
  forbidden: { status: 403, spec: true, doc: 'The credential lacks the required scope; the message names it.' },
  organisation_mismatch: { status: 403, spec: true, doc: 'The record belongs to another organisation.' },
  sandbox_record_limit_reached: { status: 403, spec: false, doc: 'The organisation\'s sandbox holds as many records as its sandbox policy allows, so the record this request would create was not created. Records already made can still be read and acted on.' },
  not_found: { status: 404, spec: false, doc: 'No record or route with that identifier.' },
  method_not_allowed: { status: 405, spec: false, doc: 'The path exists but not for this method.' },
  conflict: { status: 409, spec: true, doc: 'The record is not in a state that allows this; retrieve it and check its status.' },
  payload_too_large: { status: 413, spec: false, doc: 'The request body is larger than the limit.' },
  unsupported_media_type: { status: 415, spec: false, doc: 'The request body must be application/json.' },
  consent_token_missing: { status: 422, spec: true, doc: 'No verifiable consent token for this purpose.' },
  engagement_not_current: { status: 422, spec: true, doc: 'The engagement is not executed and current.' },
  rate_limited: { status: 429, spec: false, doc: 'Too many requests for this credential, organisation or address; wait the Retry-After seconds, then send again. Nothing was applied.' },
  sandbox_work_limit_reached: { status: 429, spec: false, doc: 'The organisation (or this node, for every sandbox organisation) runs as many memory-heavy operations at once as the sandbox policy allows; wait the Retry-After seconds, then send again. Nothing was applied.' },
  overloaded: { status: 503, spec: false, doc: 'The record is busy; retry after a short wait. Nothing was applied.' },
  unavailable: { status: 503, spec: false, doc: 'A dependency is unreachable; retry. Nothing was applied.' },
  outcome_unknown: { status: 503, spec: false, doc: 'A node or store went quiet after the request was sent: it may have been applied. Retry with the same Idempotency-Key; the retry replays or completes it, never applies it twice.' },
  internal_error: { status: 500, spec: false, doc: 'An unexpected fault; nothing was applied. Reported with the request id.' },
} as const satisfies Record<string, { status: number; spec: boolean; doc: string }>;

export type ErrorCode = keyof typeof CATALOGUE;

export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: { validation?: ValidationReport; retryable?: boolean; [k: string]: unknown },
  ) {
    super(message);
    this.status = CATALOGUE[code].status;
  }

  /**
   * Whether sending the same request again can succeed: by default only a 503 (`overloaded`,
   * `unavailable`: a busy record or an unreachable dependency, nothing applied; `outcome_unknown`:
   * maybe applied, and a retry with the same Idempotency-Key is safe). Any other
   * refusal, `internal_error` included (a deterministic fault such as a handler bug answers the
   * same again), is final unless its creator says otherwise with `details.retryable`.
   */
  get retryable(): boolean {
    return this.details?.retryable ?? this.status === 503;
  }
}

export const isApiError = (e: unknown): e is ApiError => e instanceof ApiError;

/**
 * A refusal (4xx): the command was judged and refused, and sending it again changes nothing. Work
 * the platform retries on its own (reactions, reminders) stops at a refusal but retries a fault
 * (5xx), even one a client is told not to retry, and parks it after the last attempt.
 */
export const isRefusal = (e: unknown): e is ApiError => e instanceof ApiError && e.status < 500;

/** A ValidationReport from error entries (every entry is one failing field or row). */
export function validationReport(entryCount: number, entries: ValidationEntry[]): ValidationReport {
  const errors = entries.filter((e) => e.severity === 'error').length;
  return { entry_count: entryCount, error_count: errors, warning_count: entries.length - errors, entries };
}

/**
 * An error entry: `field` is the JSON pointer it names (undefined when it names none, and then the
 * entry has no field key), `index` the row or item it counts as, 1 for a request's own fields.
 */
export function errorEntry(field: string | undefined, code: string, detail: string, index = 1): ValidationEntry {
  return field === undefined ? { index, severity: 'error', code, detail } : { index, severity: 'error', code, detail, field };
}

/** `message` defaults to the one entry's detail, or to a count of the entries. */
export function validationError(entries: ValidationEntry[], entryCount = entries.length, message?: string): ApiError {
  const msg = message ?? (entries.length === 1 ? entries[0].detail : `${entries.length} values were refused; see validation.entries`);
  return new ApiError('validation_failed', msg, { validation: validationReport(entryCount, entries) });
}

/** The refusal of one request field: a ValidationReport of one error entry, index 1. */
export const fieldError = (field: string, code: string, detail: string, message?: string): ApiError =>
  validationError([errorEntry(field, code, detail)], 1, message);

/**
 * The answer when a request's work may have been applied but its result is not known: a node or
 * store went quiet after the request reached it. `unavailable` would claim nothing was applied.
 */
export const outcomeUnknown = (what: string) =>
  new ApiError('outcome_unknown', `${what}; the change may have been applied. Retry with the same Idempotency-Key: the retry replays or completes it, never applies it twice.`, { retryable: true });

export const notFound = (what: string, id: string) => new ApiError('not_found', `No ${what} with id ${id}.`);
export const conflict = (msg: string) => new ApiError('conflict', msg);

export function assertNever(x: never): never {
  throw new Error(`unreachable: ${JSON.stringify(x)}`);
}
