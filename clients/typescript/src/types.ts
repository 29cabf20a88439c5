/** The client's own types: its options, a call's options, and what a list call returns. */

export interface ClientOptions {
  /** The platform's address, e.g. http://127.0.0.1:8080 (the sandbox realm's base_url). */
  baseUrl: string;
  /** An API key (spec 5.1), sent as Service-Api-Key. */
  apiKey?: string;
  /** An access token from POST /v1/oauth/token (spec 5.3), sent as Authorization: Bearer. */
  accessToken?: string;
  /** Retries of a retryable error or a dropped connection (default 2; 0 turns them off). */
  maxRetries?: number;
  /** The first retry's wait before jitter, doubled each retry (default 500 ms). */
  retryBaseMs?: number;
  /** A request abandoned after this long is retried like a dropped connection (default 60 s). */
  timeoutMs?: number;
  /** Another fetch (a test's, a proxy's); the global fetch by default. */
  fetch?: typeof fetch;
}

export interface RequestOptions {
  /** The Idempotency-Key of a state-changing call; one is made for every such call otherwise. */
  idempotencyKey?: string;
  /** Overrides the client's maxRetries for this call. */
  maxRetries?: number;
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

/** A list page as the platform answers it (docs/gaps.md#gateway lists). */
export interface Page<T> {
  object: 'list';
  data: T[];
  has_more: boolean;
}

/**
 * What a list call returns: awaited, the first page as the platform answered it; iterated with
 * `for await`, every record of every page in order, each page asked for when the one before is
 * used up (starting_after the last record's id).
 */
export interface ListResult<T, P = Page<T>> extends PromiseLike<P>, AsyncIterable<T> {}

/**
 * An answer the OpenAPI document does not describe field by field yet: its fields are there to
 * read, untyped. Each becomes a precise type once its route declares its response schema.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Undescribed = { [field: string]: any };
/** A record of a list the document does not describe yet: its id, and its other fields untyped. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type UndescribedRecord = { id: string; object?: string; [field: string]: any };
