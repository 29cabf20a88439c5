import { asBinary, type Database, type RootDatabase } from 'lmdb';
import { StoreUnavailableError } from '../types.ts';
import type { LoggedWrite, WriteAheadLog } from './wal.ts';

/** One write transaction's work: the closures queued while it was open, run in order inside it. */
interface Batch {
  work: Array<() => void>;
  done: Promise<void>;
}

/**
 * Group commit over one LMDB environment (DESIGN "Stores", STYLE "An acknowledgement is a
 * promise"). Every write of the local family is a closure queued here; the closures queued while
 * a transaction is waiting to start run together inside it, in the order they were queued, and
 * each caller's promise settles once that transaction is committed and its writes are in the
 * write-ahead log on disk (wal.ts): durable through a power cut. Under load a transaction waits
 * for the previous one to be committed and logged and gathers every write that arrived
 * meanwhile; its log record is written while LMDB commits it, and one fdatasync of the log serves
 * every record written before it began, never one per request. LMDB flushes its own pages after
 * its commits (overlapping sync); the log keeps each transaction until LMDB has flushed it. Reads
 * of this process see a transaction once its log record is on disk.
 *
 * A closure reads what the transaction holds so far (its own and earlier closures' writes), so a
 * check and the write it guards are one atomic step. A closure checks before it writes: LMDB's
 * asynchronous transactions have no rollback, so a closure that threw half-way would keep the
 * writes it made; each one here validates first and only then writes.
 */
export class Writer {
  private open: Batch | undefined;
  private last: Promise<void> = Promise.resolve();
  /** Transactions that failed to commit since start. */
  private failures = 0;
  /**
   * Why the writer stopped: a transaction that failed, or a check that found the process's
   * state in memory ahead of the disk (an append against a moved version). Every later
   * transaction fails with it until the stores are opened again (Journal.ordered): the runtime
   * answers turns before their commit, so a write kept after a lost one could build on it.
   */
  private broken: Error | undefined;

  /** The writes of the transaction running now (logWrites records them), undefined between transactions. */
  private writes: LoggedWrite[] | undefined;

  constructor(
    private readonly env: RootDatabase,
    /** Where each transaction stores its sequence number (`applied`), read at the next start to replay the log past it. */
    private readonly state: Database,
    private readonly wal: WriteAheadLog,
    private seq: number,
  ) {}

  /** A write made inside the transaction running now; one made outside any would escape the log, and is refused. */
  record(write: LoggedWrite): void {
    if (!this.writes) throw new Error('a local store wrote outside a write transaction');
    this.writes.push(write);
  }

  /** Runs `fn` inside the next write transaction; resolves with its result once that transaction is committed and logged. */
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

  /**
   * Queues `fn` for the next write transaction and returns at once: the write is visible to this
   * process from the moment its caller makes it so (LocalKeyValue's pending writes), and on disk
   * by the next flushed().
   */
  queue(fn: () => void): Promise<void> {
    const batch = (this.open ??= this.start());
    batch.work.push(fn);
    return batch.done;
  }

  /** The promise of the transaction a write queued now would join (the one not yet started), if any. */
  get next(): Promise<void> | undefined {
    return this.open?.done;
  }

  /** Settles once every write queued so far is committed or failed (close, backup, a read after its writes). */
  async idle(): Promise<void> {
    await this.last.catch(() => undefined);
  }

  /**
   * Settles once every write queued so far is on disk (a transaction is done once its log record
   * is synced); rejects when a transaction failed meanwhile, since a write queued without waiting
   * may have been in it.
   */
  async flushed(): Promise<void> {
    const failures = this.failures;
    await this.idle();
    // why the writer stopped says more than that a transaction failed
    if (this.broken) throw this.broken;
    if (this.failures !== failures) throw new StoreUnavailableError('a write transaction failed; what was queued with it is not on disk');
  }

  /** Stops the writer (`broken`): this transaction's callers and every later write fail with `reason`. */
  stop(reason: Error): void {
    this.broken ??= reason;
  }

  private start(): Batch {
    const batch: Batch = { work: [], done: undefined as unknown as Promise<void> };
    let seq = 0;
    let logged: Promise<void> | undefined;
    const txn = () => this.env.transaction(() => {
      // From here on new work waits for the next transaction.
      if (this.open === batch) this.open = undefined;
      if (this.broken) return; // writes nothing; its callers fail below
      const writes: LoggedWrite[] = [];
      this.writes = writes;
      try {
        for (const w of batch.work) w();
      } finally {
        this.writes = undefined;
      }
      if (!writes.length) return;
      this.state.put('applied', (seq = ++this.seq));
      // The log record is written while LMDB commits, not after: an answer waits for both, so the
      // two overlap. A record whose commit then fails is replayed at the next start, as a
      // transaction committed just before a kill -9 is: its callers were told the write failed
      // (a retryable 503), and a retry with the same Idempotency-Key finds it made.
      logged = this.wal.append(seq, writes);
      logged.catch(() => undefined); // awaited below, after the commit
    });
    // One transaction at a time, begun once the one before is committed and logged: what arrives
    // meanwhile waits in this batch and shares its commit, so under load LMDB and the log sync once
    // per batch of requests rather than once per transaction LMDB could start. It begins at once:
    // a timed wait for more writers (PostgreSQL's commit_delay) adds its wait to every answer of a
    // closed-loop client, and the batch a commit gathers is already what arrived while the one
    // before ran (docs/architecture.md "What a write costs (local stores)").
    const committed = this.last.then(txn, txn);
    const done = committed.then(() => {
      if (!seq) return;
      // the log keeps this transaction until LMDB's own flush has it
      void Promise.resolve((this.env as unknown as { flushed: Promise<unknown> }).flushed).then(() => this.wal.flushedThrough(seq)).catch(() => undefined);
      return logged;
    });
    batch.done = done.then(
      () => {
        // reads from here on see this commit (LMDB keeps a read snapshot between resets)
        this.env.resetReadTxn();
        if (this.broken) {
          this.failures++;
          throw this.broken;
        }
      },
      (e) => {
        this.broken ??= new StoreUnavailableError(`a write transaction failed (${(e as Error).message}); the data directory takes no more writes until the platform is started again`, { cause: e });
        this.failures++;
        throw e;
      },
    );
    batch.done.catch(() => undefined); // its callers hear of it; a queued write's caller through flushed()
    this.last = batch.done;
    return batch;
  }
}

/**
 * Makes every put and removal of `db` (the local family's database at `index`, the position the
 * log names it by) part of the write-ahead log of the transaction it runs in. A value is encoded
 * once, by the database's own encoder: the same bytes go to LMDB (as binary, not encoded again)
 * and into the log.
 */
export function logWrites(db: Database, index: number, writer: Writer): void {
  const put = db.put.bind(db);
  const remove = db.remove.bind(db);
  const encoder = (db as unknown as { encoder: { encode(value: unknown): Buffer } }).encoder;
  db.put = ((key: unknown, value: unknown) => {
    const bytes = encoder.encode(value);
    writer.record([index, key, bytes]);
    return put(key as never, asBinary(bytes));
  }) as Database['put'];
  db.remove = ((key: unknown) => (writer.record([index, key]), remove(key as never))) as Database['remove'];
}
