/**
 * `retryable` in the error body (spec 7; docs/gaps.md#gateway "Error body shape") is true only for
 * faults a retry can cure: a busy record or an unreachable dependency (503 overloaded,
 * unavailable). A deterministic fault (internal_error: a handler bug answers the same again) and
 * every 4xx are final, unless the error's creator says otherwise.
 */
import { describe, expect, it } from 'vitest';
import { errorResponse } from '../../gateway/error-response.ts';
import { ApiError, CATALOGUE, type ErrorCode } from '../../kernel/index.ts';

describe('retryable - true only for faults a retry can cure (spec 7)', () => {
  it('by default: every 503 code is retryable; every other code, internal_error included, is not', () => {
    for (const code of Object.keys(CATALOGUE) as ErrorCode[]) {
      expect({ code, retryable: new ApiError(code, 'x').retryable }).toEqual({ code, retryable: CATALOGUE[code].status === 503 });
    }
    expect(new ApiError('overloaded', 'x').retryable).toBe(true);
    expect(new ApiError('unavailable', 'x').retryable).toBe(true);
    expect(new ApiError('internal_error', 'x').retryable).toBe(false);
  });

  it("the error's creator may say otherwise, either way", () => {
    expect(new ApiError('internal_error', 'a node lost its lease mid-command', { retryable: true }).retryable).toBe(true);
    expect(new ApiError('unavailable', 'this will not come back', { retryable: false }).retryable).toBe(false);
  });

  it('a thrown value that is not an ApiError (a bug) answers 500 internal_error with retryable false', () => {
    const logged = console.error;
    console.error = () => {};
    try {
      const r = errorResponse(new TypeError('x is undefined'), 'req_test');
      expect(r.status).toBe(500);
      expect(JSON.parse(r.body as string).error).toMatchObject({ code: 'internal_error', retryable: false });
    } finally {
      console.error = logged;
    }
  });
});
