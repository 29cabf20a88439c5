/**
 * One reader of the journal's global feed (DESIGN "Reactions": at least once, one reader at a
 * time). It reads in feed order from a cursor kept in the key-value store under `<name>:cursor`,
 * a batch at a time, hands each batch to its handler and stores the cursor only after the handler
 * finished it, so a crash re-reads at most the batch in hand and never skips one: handlers are
 * idempotent. Appends poke it; a store fault is retried with backoff, inside the pass (so
 * `caughtUp()` and settle() wait for the feed to be read, not merely tried).
 *
 * Embedded, it simply reads. In cluster mode every node runs one, and the holder of a lease under
 * `<name>:lease` reads: taken when absent or lapsed, renewed by compare-and-set before every batch
 * and every `feedLeaseRenewMs` while held, so two nodes never both renew it; a node whose renewal
 * fails stops before its next batch. Whenever this node gains the lease it reads the cursor again
 * from the store, since another node may have moved it. A dead holder's lease lapses after
 * `feedLeaseMs` (on the stores' clock); the others try to take it every `feedLeaseRenewMs`.
 */
import type { FeedEntry, FeedFilter, Stores } from '../stores/index.ts';
import { newId } from '../kernel/base/index.ts';
import type { Limits } from './limits.ts';

/**
 * Handles one batch, in feed order. Returns how many entries of it were finished when it ends
 * early because the reader is stopping (the rest is read again later); all when it returns nothing.
 */
export type FeedHandler = (entries: FeedEntry[], reader: FeedReader) => Promise<number | void>;

/** What a handler may ask of its reader, a FeedReader or a FeedGroup's member (MemberHandler). */
export interface FeedProgress {
  /** True once the reader is stopping: a handler in the middle of a batch may end it early. */
  readonly stopping: boolean;
}

export type FeedLimits = Pick<Limits, 'feedRetryMs' | 'feedRetryMaxMs' | 'feedLeaseMs' | 'feedLeaseRenewMs'>;

export interface FeedReaderOptions {
  /** Names its cursor (`<name>:cursor`) and its lease (`<name>:lease`) in the key-value store. */
  name: string;
  stores: Stores;
  /** Entries per batch. */
  batch: number;
  handle: FeedHandler;
  limits: FeedLimits;
  log: (msg: string, err?: unknown) => void;
  /** Wraps every pass (ActorSystem.track, so that settle() waits for it). */
  track?: <T>(p: Promise<T>) => Promise<T>;
  /**
   * True while the reader's owner shuts down (ActorSystem.stopping): a failed batch then ends the
   * pass instead of being retried, and is read again after the next start. Without it a handler
   * whose asks the stopping system refuses would retry forever, and the stop would wait on it.
   */
  halted?: () => boolean;
  /** The records this reader's handler reads (Journal.readFeed `only`), asked before each batch; none: every record. */
  only?: () => FeedFilter | undefined;
  /**
   * Every node reads the whole feed for itself (a read model each node keeps in memory, such as the
   * identity gate): no lease, and the cursor lives in memory only, from the feed's start after
   * every start. Default: one reader for the cluster, its cursor in the store.
   */
  perNode?: boolean;
}

export class FeedReader {
  private readonly cursorKey: string;
  private readonly leaseKey: string;
  /** This reader's mark in the lease. */
  private readonly holder = newId('node_');
  private readonly leased: boolean;
  private cursor = 0;
  /** Holds the lease (cluster) and has read the cursor since gaining it. */
  private reading = false;
  private pass: Promise<void> | undefined;
  private again = false;
  /** A position to read again from (rewind), taken at the next batch. */
  private rewound: number | undefined;
  private stopped = true;
  private unsubscribe: (() => void) | undefined;
  private ticker: NodeJS.Timeout | undefined;
  private wake: (() => void) | undefined;

  constructor(private readonly opts: FeedReaderOptions) {
    this.cursorKey = `${opts.name}:cursor`;
    this.leaseKey = `${opts.name}:lease`;
    this.leased = opts.stores.mode === 'cluster' && !opts.perNode;
  }

  /** True once stop() was called: a handler in the middle of a batch may end it early. */
  get stopping(): boolean {
    return this.stopped;
  }

  /** This node reads the feed now (always when embedded, once started). */
  get leading(): boolean {
    return this.reading;
  }

  get idle(): boolean {
    return this.pass === undefined;
  }

  /** The feed position read and handled so far (the metrics compare it with the feed's end). */
  get position(): number {
    return this.cursor;
  }

  /** Resolves once the feed has been read to its end (as of the call), or this node does not lead. */
  async caughtUp(): Promise<void> {
    while (this.pass) await this.pass;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.unsubscribe = this.opts.stores.journal.onAppend(() => this.poke());
    if (this.leased) this.ticker = setInterval(() => this.tick(), this.opts.limits.feedLeaseRenewMs).unref();
    this.poke();
  }

  /** Waits for the batch in hand, then lets the lease go so another node need not wait for it to lapse. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.unsubscribe?.();
    if (this.ticker) clearInterval(this.ticker);
    this.wake?.();
    await this.pass;
    if (this.leased && this.reading) {
      await this.opts.stores.kv.compareAndSet(this.leaseKey, this.holder, undefined).catch((e) => this.opts.log(`${this.opts.name}: releasing the lease failed; it lapses instead`, e));
    }
    this.reading = false;
  }

  /**
   * A per-node reader that has not read yet begins past `position` instead of at the feed's start
   * (a FeedGroup whose members took back what they had read before: kernel read-model-checkpoints).
   */
  startAt(position: number): void {
    if (!this.opts.perNode || this.cursor !== 0 || this.pass) throw new Error(`${this.opts.name}: only a per-node reader that has not read yet starts at a position`);
    this.cursor = position;
  }

  /**
   * A per-node reader reads again from `position` when its cursor is past it (a FeedGroup's member
   * that starts behind the group). The batch in hand finishes first; the next one starts there.
   */
  rewind(position: number): void {
    if (!this.opts.perNode) throw new Error(`${this.opts.name}: only a per-node reader rewinds; a shared one's cursor is the cluster's`);
    if (position < this.cursor && (this.rewound === undefined || position < this.rewound)) this.rewound = position;
    this.poke();
  }

  poke(): void {
    if (this.stopped) return;
    if (this.pass) {
      this.again = true;
      return;
    }
    const pass = this.run().finally(() => {
      this.pass = undefined;
      if (this.again && !this.stopped) {
        this.again = false;
        this.poke();
      }
    });
    this.pass = this.opts.track ? this.opts.track(pass) : pass;
  }

  /** Keeps a held lease while a long batch runs; otherwise a pass (which takes a free lease). */
  private tick(): void {
    if (!this.pass) return this.poke();
    if (!this.reading) return;
    this.renew().then(
      (held) => {
        if (held || !this.reading) return;
        this.reading = false; // the pass stops before its next batch, unless it takes the lease again
        this.opts.log(`${this.opts.name}: lease lapsed or taken during a batch`);
      },
      () => {}, // a fault here is met again before the next batch
    );
  }

  /** A pass starts after the current I/O phase, so the appends of every request in it are read together. */
  private async run(): Promise<void> {
    await new Promise<void>((r) => setImmediate(r));
    const { feedRetryMs, feedRetryMaxMs } = this.opts.limits;
    for (let delay = feedRetryMs; !this.stopped; delay = Math.min(delay * 2, feedRetryMaxMs)) {
      try {
        return await this.drain();
      } catch (e) {
        if (this.stopped || this.opts.halted?.()) return; // a fault while stopping is the stop's doing (connections closing, asks refused)
        this.opts.log(`${this.opts.name}: reading the feed failed; retrying`, e);
        await this.pause(delay);
      }
    }
  }

  private async drain(): Promise<void> {
    const { stores, batch, handle } = this.opts;
    for (;;) {
      if (this.stopped || !(await this.hold())) return;
      if (this.rewound !== undefined) {
        this.cursor = Math.min(this.cursor, this.rewound);
        this.rewound = undefined;
      }
      const read = await stores.journal.readFeed(this.cursor, batch, this.opts.only?.());
      // a store hands back only positions past the cursor; one that did not would be handled
      // again and again, the cursor never moving
      const entries = read.length && read[0].position <= this.cursor ? read.filter((e) => e.position > this.cursor) : read;
      if (entries !== read) this.opts.log(`${this.opts.name}: the feed answered positions at or before ${this.cursor}; skipped`);
      if (entries.length === 0 || this.stopped) return;
      const done = (await handle(entries, this)) ?? entries.length;
      if (done > 0) {
        this.cursor = entries[done - 1].position;
        if (!this.opts.perNode) await stores.kv.set(this.cursorKey, this.cursor);
      }
      if (done < entries.length) return;
    }
  }

  /**
   * True while this node may read: embedded always; in cluster mode when its lease was renewed or
   * taken just now. On gaining it (or first, embedded) the cursor is read from the store.
   */
  private async hold(): Promise<boolean> {
    if (this.leased && !(await this.renew())) {
      if (!(await this.opts.stores.kv.compareAndSet(this.leaseKey, undefined, this.holder, this.opts.limits.feedLeaseMs))) {
        if (this.reading) this.opts.log(`${this.opts.name}: another node holds the lease; this one stops reading`);
        this.reading = false;
        return false;
      }
      this.reading = false; // gained anew: another node may have moved the cursor meanwhile
    }
    if (!this.reading) {
      this.cursor = this.opts.perNode ? this.cursor : ((await this.opts.stores.kv.get<number>(this.cursorKey)) ?? 0);
      this.reading = true;
    }
    return true;
  }

  private renew(): Promise<boolean> {
    return this.opts.stores.kv.compareAndSet(this.leaseKey, this.holder, this.holder, this.opts.limits.feedLeaseMs);
  }

  private pause(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => this.wake?.(), ms);
      this.wake = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
    });
  }
}
