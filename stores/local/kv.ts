import type { Database } from 'lmdb';
import type { KeyValueStore, Now, Scalar } from '../types.ts';
import { PAST, fixed, join, part } from './keys.ts';
import type { Writer } from './writer.ts';

/** What a key holds on disk: `[value]`, or `[value, expires at]` for a key written with a TTL. */
type Held = [unknown] | [unknown, number];

/** A write queued and not yet committed; `undefined` value: a delete. */
interface Pending {
  held: Held | undefined;
  /** The transaction it was queued for. */
  committed: Promise<void>;
}

/** Expired keys removed per sweep transaction. */
const SWEEP_BATCH = 1_000;

/**
 * Key-value with TTL on disk, measured on the injected clock. An expired key reads as absent at
 * once; a key written with a TTL is also put on an expiry index (expires at, key), and a sweep
 * every `sweepMs` removes what has expired (a key written again since keeps its new value).
 *
 * One process serves the directory and every write goes through this object, so what a key holds
 * is known here exactly: its write not yet committed (pending), else the disk's. Reads, sets and
 * the atomic operations (setIfAbsent, compareAndSet, incr) decide on that at once, in one
 * synchronous step, as in the memory family, and queue their write for the next transaction.
 * None waits for the commit: whatever acknowledges a write to a client waits for the stores'
 * flushed() first (gateway/pipeline.ts), so a request's several key-value writes cost it one wait
 * for the disk, not one each, and a claim costs none.
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
    return this.read(key) as T | undefined;
  }

  async set(key: string, value: unknown, ttlMs?: number): Promise<void> {
    if (value === undefined) return this.remove(key);
    this.put(key, ttlMs === undefined ? [value] : [value, this.now() + ttlMs]);
  }

  async delete(key: string): Promise<void> {
    this.remove(key);
  }

  /** Decided now, against every write this process made (one process serves the directory). */
  async setIfAbsent(key: string, value: unknown, ttlMs?: number): Promise<boolean> {
    if (this.read(key) !== undefined) return false;
    this.put(key, ttlMs === undefined ? [value] : [value, this.now() + ttlMs]);
    return true;
  }

  /** Decided now, as setIfAbsent. */
  async compareAndSet(key: string, expected: Scalar | undefined, value: Scalar | undefined, ttlMs?: number): Promise<boolean> {
    if (this.read(key) !== expected) return false;
    if (value === undefined) this.remove(key);
    else this.put(key, ttlMs === undefined ? [value] : [value, this.now() + ttlMs]);
    return true;
  }

  /** A counter keeps the expiry it has. */
  async incr(key: string, by = 1): Promise<number> {
    const held = this.held(key);
    const cur = ((this.live(held) as number | undefined) ?? 0) + by;
    this.put(key, held?.length === 2 && this.live(held) !== undefined ? [cur, held[1]] : [cur]);
    return cur;
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

  /** What `key` holds for this process: its write not yet committed, else the disk's. */
  private held(key: string): Held | undefined {
    const p = this.pending.get(key);
    return p ? p.held : (this.db.get(part(key)) as Held | undefined);
  }

  private read(key: string): unknown {
    return this.live(this.held(key));
  }

  /**
   * A write: visible to this process's reads at once (pending until its transaction commits), on
   * disk by the next flushed(), which whatever acknowledges it to a client waits for. A key written
   * again before its transaction starts (an idempotency claim and its record, in one request) is
   * written once, with what it holds last: a put is what a commit pays for.
   */
  private put(key: string, held: Held): void {
    this.write(key, held);
  }

  private remove(key: string): void {
    this.write(key, undefined);
  }

  private write(key: string, held: Held | undefined): void {
    const queued = this.pending.get(key);
    if (queued !== undefined && queued.committed === this.writer.next) {
      queued.held = held; // its write, not yet run, writes this instead
      return;
    }
    const mark = { held } as Pending;
    mark.committed = this.writer.queue(() => {
      const now = mark.held;
      if (now === undefined) this.db.remove(part(key));
      else {
        this.db.put(part(key), now);
        if (now.length === 2) this.expiry.put(join(fixed(now[1]), key), part(key));
      }
    });
    this.pending.set(key, mark);
    // reads of `key` see `held` until the transaction settles (then the disk holds it, or it failed)
    const clear = () => {
      if (this.pending.get(key) === mark) this.pending.delete(key);
    };
    mark.committed.then(clear, clear);
  }
}
