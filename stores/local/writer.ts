import type { RootDatabase } from 'lmdb';

/** One write transaction's work: the closures queued while it was open, run in order inside it. */
interface Batch {
  work: Array<() => void>;
  done: Promise<void>;
}

/**
 * Group commit over one LMDB environment (DESIGN "Stores", STYLE "An acknowledgement is a
 * promise"). Every write of the local family is a closure queued here; the closures queued while
 * a transaction is waiting to start run together inside it, in the order they were queued, and
 * each caller's promise settles once that transaction is committed and flushed to disk. Under
 * load a transaction waits for the previous one's flush, so it gathers every request that
 * arrived meanwhile: one fsync serves them all, never one per request.
 *
 * A closure reads what the transaction holds so far (its own and earlier closures' writes), so a
 * check and the write it guards are one atomic step. A closure checks before it writes: LMDB's
 * asynchronous transactions have no rollback, so a closure that threw half-way would keep the
 * writes it made; each one here validates first and only then writes.
 */
export class Writer {
  private open: Batch | undefined;
  private last: Promise<void> = Promise.resolve();

  constructor(private readonly env: RootDatabase) {}

  /** Runs `fn` inside the next write transaction; resolves with its result once that transaction is on disk. */
  run<T>(fn: () => T): Promise<T> {
    const batch = (this.open ??= this.start());
    let result: T;
    let failed = false;
    let error: unknown;
    batch.work.push(() => {
      try {
        result = fn();
      } catch (e) {
        failed = true;
        error = e;
      }
    });
    return batch.done.then(() => {
      if (failed) throw error;
      return result;
    });
  }

  /** Settles once every write queued so far is on disk (close, backup). */
  async idle(): Promise<void> {
    await this.last.catch(() => undefined);
  }

  private start(): Batch {
    const batch: Batch = { work: [], done: undefined as unknown as Promise<void> };
    const committed = this.env.transaction(() => {
      // From here on new work waits for the next transaction.
      if (this.open === batch) this.open = undefined;
      for (const w of batch.work) w();
    });
    // Committed is visible; flushed is durable (overlapping sync flushes after the commit).
    batch.done = Promise.resolve(committed).then(() => this.env.flushed) as Promise<void>;
    this.last = batch.done;
    return batch;
  }
}
