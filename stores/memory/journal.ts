import { appendConflict, type AppendItem, type FeedEntry, type Journal, type StoredEvent } from '../types.ts';

/**
 * In-process journal: the committed event records themselves, per stream and in one global feed
 * (two parallel arrays, so an append allocates nothing beyond the events). Events are immutable
 * once appended: the runtime never touches a committed event again, and readers get the same
 * frozen-by-convention records.
 */
export class MemoryJournal implements Journal {
  private readonly streams = new Map<string, StoredEvent[]>();
  private readonly feedEvents: StoredEvent[] = [];
  private readonly feedStreams: string[] = [];
  private readonly listeners = new Set<() => void>();

  async append(stream: string, expectedVersion: number, events: StoredEvent[]): Promise<void> {
    const [err] = this.commit([{ stream, expectedVersion, events }]);
    if (err) throw err;
  }

  async appendMany(items: AppendItem[]): Promise<Array<Error | undefined>> {
    return this.commit(items);
  }

  private commit(items: AppendItem[]): Array<Error | undefined> {
    const results: Array<Error | undefined> = new Array(items.length);
    let wrote = false;
    for (let n = 0; n < items.length; n++) {
      const { stream, expectedVersion, events } = items[n];
      const list = this.streams.get(stream);
      const actual = list ? list.length : 0;
      const err = appendConflict(stream, expectedVersion, events, actual);
      results[n] = err;
      if (err || events.length === 0) continue;
      const target = list ?? [];
      if (!list) this.streams.set(stream, target);
      for (const e of events) {
        target.push(e);
        this.feedEvents.push(e);
        this.feedStreams.push(stream);
      }
      wrote = true;
    }
    if (wrote) for (const l of this.listeners) l();
    return results;
  }

  async read(stream: string, afterVersion: number): Promise<StoredEvent[]> {
    const list = this.streams.get(stream);
    return list ? list.slice(afterVersion) : [];
  }

  async readFeed(afterPosition: number, limit: number): Promise<FeedEntry[]> {
    const end = Math.min(this.feedEvents.length, afterPosition + limit);
    const out: FeedEntry[] = [];
    for (let i = afterPosition; i < end; i++) out.push({ position: i + 1, stream: this.feedStreams[i], event: this.feedEvents[i] });
    return out;
  }

  onAppend(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.listeners.clear();
  }
}
