import { randomBytes } from 'node:crypto';
import type { Database } from 'lmdb';
import type { Now, ReadingStore, StoredReading } from '../types.ts';
import { PAST, SEP, fixed, join } from './keys.ts';
import type { Writer } from './writer.ts';

/**
 * Heartbeat readings on disk, a key range per worker ordered by recordedAt (worker, recorded at,
 * tag). Each append first removes the worker's readings older than the retention window, so a
 * worker's range holds at most the window; a tag unique to this process and append keeps two
 * readings of the same instant apart.
 */
export class LocalReadings implements ReadingStore {
  private readonly tag = randomBytes(4).toString('hex');
  private seq = 0;

  constructor(
    private readonly db: Database,
    private readonly writer: Writer,
    private readonly now: Now,
    private readonly retentionMs: number,
  ) {}

  append(worker: string, readings: StoredReading[]): Promise<void> {
    if (readings.length === 0) return Promise.resolve();
    const tags = readings.map(() => `${this.tag}${(this.seq++).toString(36)}`);
    return this.writer.run(() => {
      const horizon = this.now() - this.retentionMs;
      const old = this.db.getKeys({ start: join(worker, ''), end: join(worker, fixed(horizon)) }).asArray;
      for (const key of old) this.db.remove(key);
      for (let i = 0; i < readings.length; i++) {
        const r = readings[i];
        if (r.recordedAt < horizon) continue;
        this.db.put(join(worker, fixed(r.recordedAt), tags[i]), r);
      }
    });
  }

  async range(worker: string, from: number, to: number): Promise<StoredReading[]> {
    const horizon = this.now() - this.retentionMs;
    const start = join(worker, fixed(Math.max(from, horizon)));
    const out: StoredReading[] = [];
    for (const { value } of this.db.getRange({ start, end: join(worker, fixed(to)) + PAST })) out.push(value as StoredReading);
    return out;
  }

  async close(): Promise<void> {}
}
