/**
 * Work that arrives during one I/O phase, run together right after it (setImmediate), in arrival
 * order.
 *
 * Why the transport batches requests: uWS calls into JavaScript once per socket that became
 * readable, and a request run inside that call interleaves its whole pipeline with the native
 * reading of the next socket, which costs more than the pipeline itself (bench/scenarios/gateway.ts:
 * a replayed idempotent POST served twice as many requests per CPU-second batched). The poll phase
 * now only copies each request out of uWS; the pipeline then runs for the batch back to back.
 * The added wait is the rest of the phase that is already running, never a timer.
 */
export class PhaseBatch<T> {
  private queue: T[] = [];
  private scheduled = false;

  constructor(
    private readonly run: (item: T) => void,
    private readonly onError: (e: unknown) => void,
  ) {}

  push(item: T): void {
    this.queue.push(item);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.flush);
    }
  }

  /** Runs the batch taken so far; work pushed meanwhile waits for the next phase. */
  private readonly flush = (): void => {
    this.scheduled = false;
    const items = this.queue;
    this.queue = [];
    for (let i = 0; i < items.length; i++) {
      try {
        this.run(items[i]);
      } catch (e) {
        this.onError(e); // one item's fault never keeps the rest of the batch from running
      }
    }
  };
}
