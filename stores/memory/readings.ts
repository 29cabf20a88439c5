import type { Now, ReadingStore, StoredReading } from '../types.ts';

/** A ring per worker, ordered by recordedAt, trimmed to the retention window and a count cap. */
export class MemoryReadings implements ReadingStore {
  private readonly byWorker = new Map<string, StoredReading[]>();

  constructor(
    private readonly now: Now,
    private readonly retentionMs: number,
    private readonly maxPerWorker = 20_000,
  ) {}

  async append(worker: string, readings: StoredReading[]): Promise<void> {
    let list = this.byWorker.get(worker);
    if (!list) this.byWorker.set(worker, (list = []));
    for (const r of readings) {
      let i = list.length;
      while (i > 0 && list[i - 1].recordedAt > r.recordedAt) i--;
      list.splice(i, 0, r);
    }
    const horizon = this.now() - this.retentionMs;
    let drop = 0;
    while (drop < list.length && list[drop].recordedAt < horizon) drop++;
    drop = Math.max(drop, list.length - this.maxPerWorker);
    if (drop > 0) list.splice(0, drop);
  }

  async range(worker: string, from: number, to: number): Promise<StoredReading[]> {
    const list = this.byWorker.get(worker) ?? [];
    const horizon = this.now() - this.retentionMs;
    return list.filter((r) => r.recordedAt >= Math.max(from, horizon) && r.recordedAt <= to);
  }

  async close(): Promise<void> {}
}
