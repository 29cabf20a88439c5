/** Response headers the gateway writes itself (spec 7, 8). */

/** Every response carries the request's id (prefix req_). */
export const REQUEST_ID_HEADER = 'service-request-id';
/** An idempotent replay says so (spec 1.9, 8). */
export const REPLAY_HEADER = 'service-idempotent-replay';
