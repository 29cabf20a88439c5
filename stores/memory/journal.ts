import { VersionConflictError, type FeedEntry, type Journal, type StoredEvent } from '../types.ts';

/** In-process journal: one array per stream plus one global feed. */
export class MemoryJournal implements Journal {
  private readonly streams = new Map<string, StoredEvent[]>();
  private readonly feed: FeedEntry[] = [];
  private readonly listeners = new Set<() => void>();

  async append(stream: string, expectedVersion: number, events: StoredEvent[]): Promise<void> {
    let list = this.streams.get(stream);
    const actual = list ? list.length : 0;
    if (actual !== expectedVersion) throw new VersionConflictError(stream, expectedVersion, actual);
    if (!list) this.streams.set(stream, (list = []));
    for (const e of events) {
      if (e.version !== list.length + 1) throw new VersionConflictError(stream, list.length + 1, e.version);
      list.push(e);
      this.feed.push({ position: this.feed.length + 1, stream, event: e });
    }
    for (const l of this.listeners) l();
  }

  async read(stream: string, afterVersion: number): Promise<StoredEvent[]> {
    const list = this.streams.get(stream);
    return list ? list.slice(afterVersion) : [];
  }

  async readFeed(afterPosition: number, limit: number): Promise<FeedEntry[]> {
    return this.feed.slice(afterPosition, afterPosition + limit);
  }

  onAppend(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.listeners.clear();
  }
}
