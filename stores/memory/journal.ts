import { Packr } from 'msgpackr';
import { VersionConflictError, type FeedEntry, type Journal, type StoredEvent } from '../types.ts';

/**
 * In-process journal. Like a real store it keeps bytes, not live objects: each append is one
 * msgpack-encoded chunk, shared by its stream and by the global feed. That keeps millions of
 * events off the garbage collector's working set and gives copy semantics (an event changed by
 * its producer after the append does not change history).
 */
interface Chunk {
  stream: string;
  /** Version of the chunk's first event in its stream. */
  firstVersion: number;
  /** Feed position of the chunk's first event. */
  firstPosition: number;
  count: number;
  bytes: Uint8Array;
}

// Events are plain data (no Set or cyclic values), so the cheaper non-cloning mode suffices.
const packr = new Packr({ useRecords: false, useBigIntExtension: true } as ConstructorParameters<typeof Packr>[0]);

export class MemoryJournal implements Journal {
  private readonly streams = new Map<string, { version: number; chunks: Chunk[] }>();
  private readonly feed: Chunk[] = [];
  private position = 0;
  private readonly listeners = new Set<() => void>();

  async append(stream: string, expectedVersion: number, events: StoredEvent[]): Promise<void> {
    let s = this.streams.get(stream);
    const actual = s ? s.version : 0;
    if (actual !== expectedVersion) throw new VersionConflictError(stream, expectedVersion, actual);
    events.forEach((e, i) => {
      if (e.version !== expectedVersion + 1 + i) throw new VersionConflictError(stream, expectedVersion + 1 + i, e.version);
    });
    if (events.length === 0) return;
    if (!s) this.streams.set(stream, (s = { version: 0, chunks: [] }));
    const chunk: Chunk = { stream, firstVersion: expectedVersion + 1, firstPosition: this.position + 1, count: events.length, bytes: packr.pack(events) };
    s.chunks.push(chunk);
    s.version += events.length;
    this.feed.push(chunk);
    this.position += events.length;
    for (const l of this.listeners) l();
  }

  async read(stream: string, afterVersion: number): Promise<StoredEvent[]> {
    const s = this.streams.get(stream);
    if (!s || afterVersion >= s.version) return [];
    const out: StoredEvent[] = [];
    for (let i = firstChunk(s.chunks, afterVersion + 1, (c) => c.firstVersion); i < s.chunks.length; i++) {
      const c = s.chunks[i];
      const events = packr.unpack(c.bytes) as StoredEvent[];
      for (const e of events) if (e.version > afterVersion) out.push(e);
    }
    return out;
  }

  async readFeed(afterPosition: number, limit: number): Promise<FeedEntry[]> {
    const out: FeedEntry[] = [];
    for (let i = firstChunk(this.feed, afterPosition + 1, (c) => c.firstPosition); i < this.feed.length && out.length < limit; i++) {
      const c = this.feed[i];
      const events = packr.unpack(c.bytes) as StoredEvent[];
      events.forEach((event, k) => {
        const position = c.firstPosition + k;
        if (position > afterPosition && out.length < limit) out.push({ position, stream: c.stream, event });
      });
    }
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

/** Index of the chunk holding `target` (chunks ordered by their first number, contiguous). */
function firstChunk(chunks: Chunk[], target: number, first: (c: Chunk) => number): number {
  let lo = 0;
  let hi = chunks.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (first(chunks[mid]) + chunks[mid].count <= target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
