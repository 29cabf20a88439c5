/** Response headers the gateway writes itself (spec 7, 8). */

/** Every response carries the request's id (prefix req_). */
export const REQUEST_ID_HEADER = 'service-request-id';
/** An idempotent replay says so (spec 1.9, 8). */
export const REPLAY_HEADER = 'service-idempotent-replay';

/**
 * The most header lines a request may carry, Host included: uWebSockets.js 20.30 reads 48 and
 * answers nothing to a request with more (it closes the connection at its idle timeout;
 * docs/gaps.md#gateway "Transport notes"). Its fixed table holds 50 entries, one taken by the
 * request line and one by the end marker. Measured, and pinned by test/gateway/header-count.test.ts.
 */
export const MAX_REQUEST_HEADER_LINES = 48;
