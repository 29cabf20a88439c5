import { Packr } from 'msgpackr';
import { VersionConflictError, type FeedEntry, type Journal, type StoredEvent } from '../types.ts';

/**
 * In-process journal, kept the way a log file is: every append is one msgpack record written into
 * large contiguous segments; streams and the global feed index records by number only. So
 * millions of events cost the garbage collector nothing to trace, and the journal has copy
 * semantics (an event changed by its producer after the append does not change history).
 *
 * Record layout: u32 length, then msgpack of [stream, firstVersion, events].
 */
const SEGMENT_BYTES = 32 * 1024 * 1024;
const SEGMENT_SPAN = 2 ** 32; // a location is segment * SPAN + offset

// Events are plain data (no Set or cyclic values), so the cheaper non-cloning mode suffices.
const packr = new Packr({ useRecords: false, useBigIntExtension: true } as ConstructorParameters<typeof Packr>[0]);

interface Stream {
  version: number;
  /** First version of each record of this stream, and where the record is. */
  firstVersions: number[];
  locations: number[];
}

type RecordBody = [stream: string, firstVersion: number, events: StoredEvent[]];

export class MemoryJournal implements Journal {
  private readonly streams = new Map<string, Stream>();
  private readonly segments: Buffer[] = [];
  private offset = SEGMENT_BYTES; // forces the first segment
  /** Feed: first position and location of every record, in append order. */
  private feedFirst = new Float64Array(1024);
  private feedLocation = new Float64Array(1024);
  private records = 0;
  private position = 0;
  private readonly listeners = new Set<() => void>();

  async append(stream: string, expectedVersion: number, events: StoredEvent[]): Promise<void> {
    let s = this.streams.get(stream);
    const actual = s ? s.version : 0;
    if (actual !== expectedVersion) throw new VersionConflictError(stream, expectedVersion, actual);
    for (let i = 0; i < events.length; i++) {
      if (events[i].version !== expectedVersion + 1 + i) throw new VersionConflictError(stream, expectedVersion + 1 + i, events[i].version);
    }
    if (events.length === 0) return;
    if (!s) this.streams.set(stream, (s = { version: 0, firstVersions: [], locations: [] }));
    const location = this.write(packr.pack([stream, expectedVersion + 1, events] satisfies RecordBody));
    s.firstVersions.push(expectedVersion + 1);
    s.locations.push(location);
    s.version += events.length;
    if (this.records === this.feedFirst.length) this.growFeed();
    this.feedFirst[this.records] = this.position + 1;
    this.feedLocation[this.records] = location;
    this.records++;
    this.position += events.length;
    for (const l of this.listeners) l();
  }

  async read(stream: string, afterVersion: number): Promise<StoredEvent[]> {
    const s = this.streams.get(stream);
    if (!s || afterVersion >= s.version) return [];
    const out: StoredEvent[] = [];
    for (let i = Math.max(0, upperBound(s.firstVersions, s.firstVersions.length, afterVersion + 1) - 1); i < s.locations.length; i++) {
      for (const e of this.recordAt(s.locations[i])[2]) if (e.version > afterVersion) out.push(e);
    }
    return out;
  }

  async readFeed(afterPosition: number, limit: number): Promise<FeedEntry[]> {
    const out: FeedEntry[] = [];
    for (let i = Math.max(0, upperBound(this.feedFirst, this.records, afterPosition + 1) - 1); i < this.records && out.length < limit; i++) {
      const [stream, , events] = this.recordAt(this.feedLocation[i]);
      for (let k = 0; k < events.length && out.length < limit; k++) {
        const position = this.feedFirst[i] + k;
        if (position > afterPosition) out.push({ position, stream, event: events[k] });
      }
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

  private write(body: Uint8Array): number {
    const need = 4 + body.length;
    if (this.offset + need > SEGMENT_BYTES) {
      this.segments.push(Buffer.allocUnsafe(Math.max(SEGMENT_BYTES, need)));
      this.offset = 0;
    }
    const seg = this.segments[this.segments.length - 1];
    const at = this.offset;
    seg.writeUInt32LE(body.length, at);
    seg.set(body, at + 4);
    this.offset += need;
    return (this.segments.length - 1) * SEGMENT_SPAN + at;
  }

  private recordAt(location: number): RecordBody {
    const seg = this.segments[Math.floor(location / SEGMENT_SPAN)];
    const at = location % SEGMENT_SPAN;
    const len = seg.readUInt32LE(at);
    return packr.unpack(seg.subarray(at + 4, at + 4 + len)) as RecordBody;
  }

  private growFeed(): void {
    const first = new Float64Array(this.feedFirst.length * 2);
    first.set(this.feedFirst);
    const loc = new Float64Array(this.feedLocation.length * 2);
    loc.set(this.feedLocation);
    this.feedFirst = first;
    this.feedLocation = loc;
  }
}

/** Number of leading entries of `sorted` (length n) that are <= target. */
function upperBound(sorted: ArrayLike<number>, n: number, target: number): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] <= target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
