/**
 * The journal's recent messages by stream sequence, shared by every feed reader of one node
 * (stores/cluster/journal.ts readFeed), and the highest sequence the node knows to exist. Each node
 * runs several readers of the whole feed (its read models, and the cluster's single readers it
 * holds), and they read the same tail within moments of each other: without this each of them
 * fetched and decoded every message for itself, one direct get each.
 *
 * Only a sequence known to exist (at most `highest`, which the node learns from its own appends,
 * its append watcher and its reads) is shared and kept: its message never changes once written
 * (nothing is deleted from the stream). A sequence beyond it is fetched by the reader alone, since
 * the answer may be "not written yet" only for a request made before the write: a reader poked by
 * that write must not be handed an earlier reader's stale null (it would stop short of the message
 * and wait for the next append). Found, it becomes known and kept. A failed fetch is not kept.
 * Concurrent reads of one known sequence share one fetch. A message the node already holds (its
 * append watcher delivers each new message whole) is kept without a fetch at all. Bounded: the
 * oldest sequences are let go first, a slice at a time (oldest-first.ts), and a reader that far
 * behind fetches for itself.
 *
 * While the append watcher is live from a known sequence (`watching`), a sequence beyond the
 * highest known and at or after the watcher's first is not fetched at all: it cannot be in the
 * stream yet without the watcher handing it over, and the watcher pokes the readers when it does.
 * Without that, every reader at the tail spent a direct get on each poke to learn "not yet".
 */
import { forgetOldest } from './oldest-first.ts';

/** A message not written yet (the live watcher would have handed it over). */
const NOT_YET: Promise<null> = Promise.resolve(null);

export class FeedMessages<T> {
  private readonly held = new Map<number, Promise<T | null>>();
  private top = 0;
  /** The first sequence the live append watcher delivers; undefined while no watcher is live. */
  private watchedFrom: number | undefined;

  constructor(
    private readonly fetch: (seq: number) => Promise<T | null>,
    private readonly limit: number,
  ) {}

  /** The highest sequence known to exist. */
  get highest(): number {
    return this.top;
  }

  /** A sequence known to exist (an append acknowledged, a message seen by the watcher). */
  saw(seq: number): void {
    if (seq > this.top) this.top = seq;
  }

  /** A message the node holds already: kept (unless it is), and its sequence known to exist. */
  have(seq: number, message: T): void {
    this.saw(seq);
    if (!this.held.has(seq)) this.keep(seq, Promise.resolve(message));
  }

  /** The append watcher delivers every message from `first` on (undefined: it stopped). */
  watching(first: number | undefined): void {
    this.watchedFrom = first;
  }

  get(seq: number): Promise<T | null> {
    if (seq > this.top) return this.watchedFrom !== undefined && seq >= this.watchedFrom ? NOT_YET : this.probe(seq);
    const kept = this.held.get(seq);
    if (kept) return kept;
    const p = this.fetch(seq);
    this.keep(seq, p);
    p.catch(() => {
      if (this.held.get(seq) === p) this.held.delete(seq);
    });
    return p;
  }

  get size(): number {
    return this.held.size;
  }

  private async probe(seq: number): Promise<T | null> {
    const m = await this.fetch(seq);
    if (m !== null) {
      this.saw(seq);
      if (!this.held.has(seq)) this.keep(seq, Promise.resolve(m));
    }
    return m;
  }

  private keep(seq: number, p: Promise<T | null>): void {
    this.held.set(seq, p);
    forgetOldest(this.held, this.limit);
  }
}
