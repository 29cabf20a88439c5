/**
 * Which thrown values are a store or its transport failing (DESIGN "Stores"), as opposed to a bug.
 * A store fault is answered as a retryable 503 (docs/errors.md `unavailable`, or `outcome_unknown`
 * once a request may have written); a bug stays a 500. The families throw their clients' errors
 * (ioredis, nats.js, lmdb) as well as StoreUnavailableError, so the clients' errors are recognised
 * by name: a second copy of a client package would defeat `instanceof`, never its error names.
 */
import { StoreUnavailableError } from './types.ts';

/** nats.js: the connection, a request or a JetStream call failed. */
const NATS = new Set([
  'ClosedConnectionError',
  'DrainingConnectionError',
  'ConnectionError',
  'RequestError',
  'TimeoutError',
  'NoResponders',
  'NoRespondersError',
  'JetStreamNotEnabled',
  'JetStreamError',
  'JetStreamStatusError',
  'JetStreamApiError',
  'StreamNotFoundError',
  'ConsumerNotFoundError',
]);

/** ioredis and redis-errors: a command given up on, interrupted, or a reply that could not be read. */
const REDIS = new Set(['MaxRetriesPerRequestError', 'AbortError', 'InterruptError', 'ParserError', 'ClusterAllFailedError']);

/** Redis replies that mean the server cannot serve now (loading, failing over, unable to persist). */
const REDIS_BUSY = /^(LOADING|READONLY|MASTERDOWN|BUSY|CLUSTERDOWN|TRYAGAIN|MISCONF|NOREPLICAS|NOMASTERLINK)\b/;

/** Plain Errors ioredis rejects a command with when its connection is gone or the command timed out. */
const REDIS_PLAIN = /^(Connection is closed\.|Command timed out|Stream isn't writeable|connect ETIMEDOUT|Socket timeout\.)/;

/** A socket to a store failed. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNABORTED', 'ENOTCONN', 'EAI_AGAIN']);

/** LMDB's own error names (MDB_MAP_FULL, MDB_PANIC, ...), and a database closed under a request. */
const LMDB = /\bMDB_[A-Z_]+\b|^Can not operate on a closed database/;

export function isStoreFault(e: unknown, depth = 0): boolean {
  if (!(e instanceof Error) || depth > 3) return false;
  if (e instanceof StoreUnavailableError) return true;
  if (NATS.has(e.name) || REDIS.has(e.name)) return true;
  if (e.name === 'ReplyError') return REDIS_BUSY.test(e.message);
  const code = (e as { code?: unknown }).code;
  if (typeof code === 'string' && SOCKET_CODES.has(code)) return true;
  if (REDIS_PLAIN.test(e.message) || LMDB.test(e.message)) return true;
  return e.cause !== undefined && isStoreFault(e.cause, depth + 1);
}
