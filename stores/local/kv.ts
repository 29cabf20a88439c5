import type { Database } from 'lmdb';
import type { KeyValueStore, Now, Scalar } from '../types.ts';
import { PAST, fixed, join, part } from './keys.ts';
import type { Writer } from './writer.ts';

/** What a key holds on disk: `[value]`, or `[value, expires at]` for a key written with a TTL. */
type Held = [unknown] | [unknown, number];

/** A write queued and not yet committed; `undefined` value: a delete. */
interface Pending {
  held: Held | undefined;
}

/** Expired keys removed per sweep transaction. */
const SWEEP_BATCH = 1_000;

/**
 * Key-value with TTL on disk, measured on the injected clock. An expired key reads as absent at
 * once; a key written with a TTL is also put on an expiry index (expires at, key), and a sweep
 * every `sweepMs` removes what has expired (a key written again since keeps its new value).
 *
 * A set or delete is visible to this process's reads as soon as it is called, as in the memory
 * family, not only once its transaction commits: the pending writes are read first. The atomic
 * operations (setIfAbsent, compareAndSet, incr) decide inside the transaction, against every
 * write queued before them.
 */
export class LocalKeyValue implements KeyValueStore {
  private readonly pending = new Map<string, Pending>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly db: Database,
    private readonly expiry: Database,
    private readonly writer: Writer,
    private readonly now: Now,
    sweepMs = 60_000,
  ) {
    this.sweeper = setInterval(() => void this.sweep().catch(() => undefined), sweepMs).unref();
  }

  async get<T>(key: string): Promise<T | undefined> {
    const p = this.pending.get(key);
    return this.live(p ? p.held : (this.db.get(part(key)) as Held | undefined)) as T | undefined;
  }

  set(key: string, value: unknown, ttlMs?: number): Promise<void> {
    if (value === undefined) return this.delete(key);
    const held: Held = ttlMs === undefined ? [value] : [value, this.now() + ttlMs];
    return this.queue(key, held, () => this.write(key, held));
  }

  delete(key: string): Promise<void> {
    return this.queue(key, undefined, () => this.db.remove(part(key)));
  }

  setIfAbsent(key: string, value: unknown, ttlMs?: number): Promise<boolean> {
    return this.writer.run(() => {
      if (this.live(this.db.get(part(key)) as Held | undefined) !== undefined) return false;
      this.write(key, ttlMs === undefined ? [value] : [value, this.now() + ttlMs]);
      return true;
    });
  }

  compareAndSet(key: string, expected: Scalar | undefined, value: Scalar | undefined, ttlMs?: number): Promise<boolean> {
    return this.writer.run(() => {
      if (this.live(this.db.get(part(key)) as Held | undefined) !== expected) return false;
      if (value === undefined) this.db.remove(part(key));
      else this.write(key, ttlMs === undefined ? [value] : [value, this.now() + ttlMs]);
      return true;
    });
  }

  /** A counter keeps the expiry it has. */
  incr(key: string, by = 1): Promise<number> {
    return this.writer.run(() => {
      const held = this.db.get(part(key)) as Held | undefined;
      const cur = ((this.live(held) as number | undefined) ?? 0) + by;
      this.db.put(part(key), held?.length === 2 && this.live(held) !== undefined ? [cur, held[1]] : [cur]);
      return cur;
    });
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
  }

  /** Removes expired keys, a transaction of at most SWEEP_BATCH at a time. */
  async sweep(): Promise<number> {
    let removed = 0;
    for (;;) {
      const now = this.now();
      const due = this.expiry.getRange({ end: fixed(now) + PAST, limit: SWEEP_BATCH }).asArray;
      if (due.length === 0) return removed;
      removed += await this.writer.run(() => {
        let n = 0;
        for (const { key, value } of due) {
          this.expiry.remove(key);
          const held = this.db.get(value as string) as Held | undefined;
          if (held?.length === 2 && held[1] <= now) (this.db.remove(value as string), n++);
        }
        return n;
      });
      if (due.length < SWEEP_BATCH) return removed;
    }
  }

  private live(held: Held | undefined): unknown {
    if (held === undefined) return undefined;
    if (held.length === 2 && held[1] <= this.now()) return undefined;
    return held[0];
  }

  private write(key: string, held: Held): void {
    this.db.put(part(key), held);
    if (held.length === 2) this.expiry.put(join(fixed(held[1]), key), part(key));
  }

  /** A plain write: visible to reads at once, on disk when its transaction is. */
  private queue(key: string, held: Held | undefined, fn: () => void): Promise<void> {
    const mark: Pending = { held };
    this.pending.set(key, mark);
    const done = this.writer.run(fn);
    const clear = () => {
      if (this.pending.get(key) === mark) this.pending.delete(key);
    };
    done.then(clear, clear);
    return done;
  }
}
