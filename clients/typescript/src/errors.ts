/**
 * The platform's refusals as one error type (spec 7; the body shape is docs/gaps.md#gateway's
 * `{ error: { code, message, request_id, retryable, validation? } }`). Branch on `code`, never on
 * the message. A connection that dropped or timed out before an answer is a `ConnectionError`.
 */

export interface ValidationReport {
  [key: string]: unknown;
}

export class PlatformError extends Error {
  override readonly name = 'PlatformError';
  constructor(
    /** The HTTP status. */
    readonly status: number,
    /** The catalogue's code (docs/errors.md), e.g. conflict, validation_failed, rate_limited. */
    readonly code: string,
    message: string,
    /** The Service-Request-Id to quote when reporting it. */
    readonly requestId: string | undefined,
    /** Whether the platform says the same request may succeed later. */
    readonly retryable: boolean,
    /** Every failing field, for validation_failed and its kin. */
    readonly validation?: ValidationReport,
    /** Seconds the platform asked to wait (Retry-After), when it did. */
    readonly retryAfter?: number,
  ) {
    super(message);
  }
}

export class ConnectionError extends Error {
  override readonly name = 'ConnectionError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** The error a non-2xx answer stands for; a body that is not the platform's error shape still gives one. */
export function errorFrom(status: number, body: unknown, headers: Headers): PlatformError {
  const e = (body as { error?: Record<string, unknown> } | undefined)?.error;
  const retryAfterHeader = headers.get('retry-after');
  const retryAfter = retryAfterHeader !== null && /^\d+$/.test(retryAfterHeader) ? Number(retryAfterHeader) : undefined;
  const requestId = (e?.request_id as string | undefined) ?? headers.get('service-request-id') ?? undefined;
  if (!e || typeof e.code !== 'string') {
    return new PlatformError(status, status >= 500 ? 'unavailable' : 'unknown', `HTTP ${status} without an error body`, requestId, status === 503, undefined, retryAfter);
  }
  return new PlatformError(status, e.code, String(e.message ?? e.code), requestId, e.retryable === true, e.validation as ValidationReport | undefined, retryAfter);
}
