import type { KeyValueStore, Now, Scalar } from '../types.ts';

/**
 * Key-value with TTL measured on the injected clock.
 *
 * Values and expiry times are kept in two maps: a value is stored as it is, and only a key written
 * with a TTL has an expiry. Most keys never expire (credentials, derived records), and a wrapper
 * object per key, with its expiry time boxed as a heap number, is two more objects for the
 * collector to copy for every record the platform keeps.
 *
 * Expired keys are dropped when touched, and each write with a TTL also looks at the next entry of
 * a cursor that walks the expiring keys round and round, so the map does not only grow: the cost
 * per write is fixed, where a periodic full sweep would cost the size of the map every so often.
 * `undefined` is not a value: setting it is deleting.
 */
export class MemoryKeyValue implements KeyValueStore {
  private readonly values = new Map<string, unknown>();
  private readonly expiries = new Map<string, number>();
  private cursor: Iterator<[string, number]> | undefined;

  constructor(private readonly now: Now) {}

  async get<T>(key: string): Promise<T | undefined> {
    return this.read<T>(key);
  }

  /** Synchronous, so incr, setIfAbsent and compareAndSet read and write in one step. */
  private read<T>(key: string): T | undefined {
    const v = this.values.get(key);
    if (v === undefined) return undefined;
    if (this.expiries.size !== 0) {
      const at = this.expiries.get(key);
      if (at !== undefined && at <= this.now()) {
        this.remove(key);
        return undefined;
      }
    }
    return v as T;
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
    this.values.set(key, cur);
    return cur;
  }

  async close(): Promise<void> {}

  private write(key: string, value: unknown, ttlMs?: number): void {
    if (value === undefined) return this.remove(key);
    this.values.set(key, value);
    if (ttlMs === undefined) {
      if (this.expiries.size !== 0) this.expiries.delete(key);
      return;
    }
    this.expiries.set(key, this.now() + ttlMs);
    this.sweep();
  }

  private remove(key: string): void {
    this.values.delete(key);
    this.expiries.delete(key);
  }

  /** One step of the cursor over the expiring keys. */
  private sweep(): void {
    const next = (this.cursor ??= this.expiries.entries()).next();
    if (next.done) {
      this.cursor = undefined;
      return;
    }
    const [k, at] = next.value;
    if (at <= this.now()) this.remove(k);
  }
}
