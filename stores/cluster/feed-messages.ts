/**
 * The journal's recent messages by stream sequence, shared by every feed reader of one node
 * (stores/cluster/journal.ts readFeed). Each node runs several readers of the whole feed (its read
 * models, and the cluster's single readers it holds), and they read the same tail within moments of
 * each other: without this each of them fetched and decoded every message for itself, one direct
 * get each. A sequence's message never changes once written (nothing is deleted from the stream),
 * so a fetched message is kept as it is; a sequence not written yet (null) is not kept, and neither
 * is a failed fetch, so a later read asks again. Concurrent reads of one sequence share one fetch.
 * Bounded: the oldest sequences are let go first, and a reader that far behind fetches for itself.
 */
export class FeedMessages<T> {
  private readonly held = new Map<number, Promise<T | null>>();

  constructor(
    private readonly fetch: (seq: number) => Promise<T | null>,
    private readonly limit: number,
  ) {}

  get(seq: number): Promise<T | null> {
    const kept = this.held.get(seq);
    if (kept) return kept;
    const p = this.fetch(seq);
    this.held.set(seq, p);
    if (this.held.size > this.limit) this.held.delete(this.held.keys().next().value!);
    p.then(
      (m) => {
        if (m === null && this.held.get(seq) === p) this.held.delete(seq);
      },
      () => {
        if (this.held.get(seq) === p) this.held.delete(seq);
      },
    );
    return p;
  }

  get size(): number {
    return this.held.size;
  }
}
