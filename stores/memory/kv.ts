import type { KeyValueStore, Now } from '../types.ts';

/**
 * Key-value with TTL measured on the injected clock. Expired entries are dropped when touched, and
 * each write also looks at the next SWEEP_STEP entry of a cursor that walks the whole map round
 * and round, so the map does not only grow: the cost per write is fixed, where a periodic full
 * sweep would cost the size of the map every so many writes.
 */
const SWEEP_STEP = 1;

export class MemoryKeyValue implements KeyValueStore {
  private readonly map = new Map<string, { value: unknown; expiresAt: number }>();
  private cursor: Iterator<[string, { value: unknown; expiresAt: number }]> | undefined;

  constructor(private readonly now: Now) {}

  async get<T>(key: string): Promise<T | undefined> {
    return this.read<T>(key);
  }

  /** Synchronous, so incr reads and writes in one turn and concurrent increments add up. */
  private read<T>(key: string): T | undefined {
    const e = this.map.get(key);
    if (!e) return undefined;
    if (e.expiresAt !== Infinity && e.expiresAt <= this.now()) {
      this.map.delete(key);
      return undefined;
    }
    return e.value as T;
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

  async delete(key: string): Promise<void> {
    this.map.delete(key);
  }

  async incr(key: string, by = 1): Promise<number> {
    const cur = (this.read<number>(key) ?? 0) + by;
    const e = this.map.get(key);
    this.write(key, cur, e && Number.isFinite(e.expiresAt) ? e.expiresAt - this.now() : undefined);
    return cur;
  }

  async close(): Promise<void> {}

  private write(key: string, value: unknown, ttlMs?: number): void {
    this.map.set(key, { value, expiresAt: ttlMs === undefined ? Infinity : this.now() + ttlMs });
    this.sweep();
  }

  private sweep(): void {
    let t: number | undefined;
    for (let i = 0; i < SWEEP_STEP; i++) {
      const next = (this.cursor ??= this.map.entries()).next();
      if (next.done) {
        this.cursor = undefined;
        return;
      }
      const [k, e] = next.value;
      if (e.expiresAt !== Infinity && e.expiresAt <= (t ??= this.now())) this.map.delete(k);
    }
  }
}
