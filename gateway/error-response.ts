/**
 * The one place an error becomes bytes on the wire (spec 7; the body shape is a spec gap, chosen
 * in docs/gaps.md#gateway):
 *
 *   { "error": { "code": "forbidden", "message": "...", "request_id": "req_...",
 *                "retryable": false, "validation": ValidationReport? } }
 *
 * Any thrown value that is not an ApiError is a fault: it answers 500 internal_error (nothing about
 * the fault leaks) and is logged with its request id.
 */
import { ApiError, isApiError } from '../kernel/index.ts';
import { REQUEST_ID_HEADER } from './headers.ts';
import type { WireResponse } from './wire.ts';

export interface ErrorBody {
  error: {
    code: string;
    message: string;
    request_id: string;
    retryable: boolean;
    validation?: unknown;
  };
}

export function toApiError(e: unknown, requestId: string): ApiError {
  if (isApiError(e)) return e;
  console.error(`[gateway] ${requestId} internal error:`, e);
  return new ApiError('internal_error', `An unexpected fault; nothing was applied. Quote request ${requestId} when reporting it.`);
}

export function errorBody(e: ApiError, requestId: string): ErrorBody {
  const body: ErrorBody = { error: { code: e.code, message: e.message, request_id: requestId, retryable: e.retryable } };
  if (e.details?.validation) body.error.validation = e.details.validation;
  return body;
}

export function errorResponse(e: unknown, requestId: string, extraHeaders?: Record<string, string>): WireResponse {
  const err = toApiError(e, requestId);
  return {
    status: err.status,
    headers: { 'content-type': 'application/json', [REQUEST_ID_HEADER]: requestId, ...extraHeaders },
    body: JSON.stringify(errorBody(err, requestId)),
  };
}
