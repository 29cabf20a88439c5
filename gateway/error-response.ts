/**
 * The one place an error becomes bytes on the wire (spec 7; the body shape is a spec gap, chosen
 * in docs/gaps.md#gateway):
 *
 *   { "error": { "code": "forbidden", "message": "...", "request_id": "req_...",
 *                "retryable": false, "validation": ValidationReport? } }
 *
 * A store or transport failing (stores isStoreFault) is a retryable 503: `unavailable` where
 * nothing was applied, `outcome_unknown` once the request's handler ran and may have written. Any
 * other thrown value that is not an ApiError is a fault: it answers 500 internal_error (nothing
 * about the fault leaks) and is logged with its request id.
 */
import { ApiError, isApiError, logOf, outcomeUnknown } from '../kernel/index.ts';
import { isStoreFault } from '../stores/index.ts';
import { REQUEST_ID_HEADER } from './headers.ts';
import type { WireResponse } from './wire.ts';

const GATEWAY_LOG = logOf('gateway');

export interface ErrorBody {
  error: {
    code: string;
    message: string;
    request_id: string;
    retryable: boolean;
    validation?: unknown;
  };
}

/** `mayHaveWritten`: the handler of a request that may change something ran (and threw). */
export function toApiError(e: unknown, requestId: string, mayHaveWritten = false): ApiError {
  if (isApiError(e)) return e;
  if (isStoreFault(e)) {
    GATEWAY_LOG.warn(`store fault: ${(e as Error).name}: ${(e as Error).message}`, { request_id: requestId });
    return mayHaveWritten ? outcomeUnknown('A store did not answer while the request ran') : new ApiError('unavailable', 'A store did not answer; nothing was applied. Retry.', { retryable: true });
  }
  GATEWAY_LOG.error('internal error', e, { request_id: requestId });
  return new ApiError('internal_error', `An unexpected fault; nothing was applied. Quote request ${requestId} when reporting it.`);
}

export function errorBody(e: ApiError, requestId: string): ErrorBody {
  const body: ErrorBody = { error: { code: e.code, message: e.message, request_id: requestId, retryable: e.retryable } };
  if (e.details?.validation) body.error.validation = e.details.validation;
  return body;
}

export function errorResponse(e: unknown, requestId: string, extraHeaders?: Record<string, string>, mayHaveWritten = false): WireResponse {
  const err = toApiError(e, requestId, mayHaveWritten);
  // RFC 9110 10.2.3: a refusal that says when to come back (a full password queue, an account's failed sign-ins) says it in Retry-After.
  const wait = err.details?.retryAfterSeconds;
  const retryAfter = typeof wait === 'number' && Number.isInteger(wait) && wait > 0 ? { 'retry-after': String(wait) } : undefined;
  return {
    status: err.status,
    headers: { 'content-type': 'application/json', [REQUEST_ID_HEADER]: requestId, ...retryAfter, ...extraHeaders },
    body: JSON.stringify(errorBody(err, requestId)),
  };
}
