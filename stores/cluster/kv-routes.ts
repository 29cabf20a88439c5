/**
 * Which store keeps a key-value record in a cluster (DESIGN "Stores": JetStream holds everything
 * that cannot be recomputed; Redis only what the journal gives back). The KeyValueStore contract is
 * the same whichever holds a key; a key's prefix alone decides, so every node finds it in one place.
 *
 * - `idem:` (the gateway's idempotency records and claims) goes to a bucket whose records live
 *   at most IDEMPOTENCY_BUCKET_MAX_AGE_MS: every record there shares the 7-day lifetime, so the
 *   server drops them and no sweep reads that bucket.
 * - REDIS_PREFIXES (records derived from the journal: the delivery area's audit entries and
 *   public events) stay in Redis: each is a function of a journal event, rebuilt by reading the
 *   feed again, and writing one per event to JetStream would double the journal's writes.
 * - Everything else goes to the records bucket: credentials and their digests, sessions, socket
 *   tickets, email reservations, OAuth clients, device credentials, invitations, signing keys, the
 *   identity vault, feed cursors and leases, and whatever a new area keeps. A record nobody listed
 *   is kept where nothing is lost; only a key named here as derived may live in Redis.
 */
import type { KeyValueStore, Scalar } from '../types.ts';

export const IDEMPOTENCY_PREFIX = 'idem:';
/** The gateway keeps a record 7 days; a day more covers clock skew between its writers. */
export const IDEMPOTENCY_BUCKET_MAX_AGE_MS = 8 * 24 * 3600_000;
export const REDIS_PREFIXES: readonly string[] = ['derived:'];

export class RoutedKeyValue implements KeyValueStore {
  constructor(
    private readonly records: KeyValueStore,
    private readonly idempotency: KeyValueStore,
    private readonly redis: KeyValueStore,
  ) {}

  /** The store that keeps `key`. */
  storeOf(key: string): KeyValueStore {
    if (key.startsWith(IDEMPOTENCY_PREFIX)) return this.idempotency;
    for (const p of REDIS_PREFIXES) if (key.startsWith(p)) return this.redis;
    return this.records;
  }

  get<T = unknown>(key: string): Promise<T | undefined> {
    return this.storeOf(key).get<T>(key);
  }

  set(key: string, value: unknown, ttlMs?: number): Promise<void> {
    return this.storeOf(key).set(key, value, ttlMs);
  }

  setIfAbsent(key: string, value: unknown, ttlMs?: number): Promise<boolean> {
    return this.storeOf(key).setIfAbsent(key, value, ttlMs);
  }

  compareAndSet(key: string, expected: Scalar | undefined, value: Scalar | undefined, ttlMs?: number): Promise<boolean> {
    return this.storeOf(key).compareAndSet(key, expected, value, ttlMs);
  }

  delete(key: string): Promise<void> {
    return this.storeOf(key).delete(key);
  }

  incr(key: string, by?: number): Promise<number> {
    return this.storeOf(key).incr(key, by);
  }

  async close(): Promise<void> {
    await Promise.all([this.records.close(), this.idempotency.close(), this.redis.close()]);
  }
}
