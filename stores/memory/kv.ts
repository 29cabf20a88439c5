import type { KeyValueStore, Now, Scalar } from '../types.ts';

/** A value written with a TTL, and when it expires: only such keys hold one. */
class Expiring {
  constructor(
    readonly value: unknown,
    readonly at: number,
  ) {}
}

/**
 * Key-value with TTL measured on the injected clock.
 *
 * A value is stored as it is; a key written with a TTL holds it in an Expiring wrapper with its
 * expiry time. Most keys never expire (credentials, derived records), and a wrapper per key, with
 * its time boxed as a heap number, would be two more objects for the collector to copy for every
 * record the platform keeps. Whether a key expires is read from its own value: a read or a write
 * is one look-up in the values (a second map of expiry times asked on every read and write was a
 * second miss in a table of millions of keys).
 *
 * Expired keys are dropped when touched, and each write with a TTL also looks at the next entry of
 * a cursor that walks the keys written with one round and round, so the map does not only grow:
 * the cost per write is fixed, where a periodic full sweep would cost the size of the map every so
 * often. `undefined` is not a value: setting it is deleting.
 */
export class MemoryKeyValue implements KeyValueStore {
  private readonly values = new Map<string, unknown>();
  /** Keys written with a TTL: the sweep's round (their expiry is in their value; a key written again without one is dropped when the sweep reaches it). */
  private readonly expiring = new Set<string>();
  private cursor: Iterator<string> | undefined;

  constructor(private readonly now: Now) {}

  async get<T>(key: string): Promise<T | undefined> {
    return this.read<T>(key);
  }

  /** Synchronous, so incr, setIfAbsent and compareAndSet read and write in one step. */
  private read<T>(key: string): T | undefined {
    const v = this.values.get(key);
    if (!(v instanceof Expiring)) return v as T | undefined;
    if (v.at <= this.now()) {
      this.remove(key);
      return undefined;
    }
    return v.value as T;
  }

  async set(key: string, value: unknown, ttlMs?: number): Promise<void> {
    this.write(key, value, ttlMs);
  }

  /** Check and write in one synchronous step: two claims started together never both win. */
  async setIfAbsent(key: string, value: unknown, ttlMs?: number): Promise<boolean> {
    if (this.read(key) !== undefined) return false;
    this.write(key, value, ttlMs);
    return true;
  }

  /** Compare and write in one synchronous step, as setIfAbsent. */
  async compareAndSet(key: string, expected: Scalar | undefined, value: Scalar | undefined, ttlMs?: number): Promise<boolean> {
    if (this.read(key) !== expected) return false;
    this.write(key, value, ttlMs);
    return true;
  }

  async delete(key: string): Promise<void> {
    this.remove(key);
  }

  /** A counter keeps the expiry it has. */
  async incr(key: string, by = 1): Promise<number> {
    const cur = (this.read<number>(key) ?? 0) + by;
    const held = this.values.get(key);
    this.values.set(key, held instanceof Expiring ? new Expiring(cur, held.at) : cur);
    return cur;
  }

  async close(): Promise<void> {}

  private write(key: string, value: unknown, ttlMs?: number): void {
    if (value === undefined) return this.remove(key);
    if (ttlMs === undefined) {
      this.values.set(key, value);
      return;
    }
    this.values.set(key, new Expiring(value, this.now() + ttlMs));
    this.expiring.add(key);
    this.sweep();
  }

  private remove(key: string): void {
    this.values.delete(key);
    this.expiring.delete(key);
  }

  /** One step of the cursor over the keys written with a TTL. */
  private sweep(): void {
    const next = (this.cursor ??= this.expiring.values()).next();
    if (next.done) {
      this.cursor = undefined;
      return;
    }
    const k = next.value;
    const v = this.values.get(k);
    if (!(v instanceof Expiring)) this.expiring.delete(k); // written again without a TTL, or gone
    else if (v.at <= this.now()) this.remove(k);
  }
}
