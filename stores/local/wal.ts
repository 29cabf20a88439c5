/**
 * The write-ahead log of the local family (DESIGN "Stores", STYLE "An acknowledgement is a
 * promise"). Each committed write transaction's writes (database, key, value or removal) are one
 * record appended to a segment file and made durable with one fdatasync; an acknowledgement waits
 * for that, not for LMDB's own flush. LMDB commits with overlapping sync: its B-tree pages reach
 * the disk after the commit, and after a power cut it opens at its last flushed transaction
 * (lmdb-js keeps the previous snapshot until a flush completes). The log holds every transaction
 * since then, so a start replays the records LMDB does not have (their sequence numbers above the
 * one LMDB stored with its last transaction) and nothing acknowledged is lost.
 *
 * Why a log in front of LMDB: a put at a random key dirties its own root-to-leaf path of pages,
 * and flushing those with every commit made the flush, not the work, the limit of a keyed create.
 * A record appended to a file writes the same facts sequentially, once.
 *
 * Record: u32 length, u32 CRC-32 of the payload, payload (msgpack of [sequence, writes]). A record
 * cut short or failing its CRC ends its segment: only the record being written when the process
 * or the machine stopped can be so, and its transaction was never acknowledged. A segment is
 * deleted once LMDB has flushed its last record's transaction, never the one being written.
 */
import { close, closeSync, fdatasync, mkdirSync, openSync, readFileSync, readdirSync, writeSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { Packr } from 'msgpackr';
import { DataDirectoryError } from './directory.ts';

export const WAL_DIR = 'wal';
/** A segment is closed and a new one begun past this size, so flushed segments can be deleted whole. */
export const SEGMENT_BYTES = 64 * 2 ** 20;
const HEADER = 8;
/** Plain msgpack maps, as LMDB encodes the same values (index.ts). */
const codec = new Packr({ useRecords: false });

/** One write of a transaction: [database index, key, value as its database encoded it] for a put, [database index, key] for a removal. */
export type LoggedWrite = [number, unknown, unknown] | [number, unknown];

interface Segment {
  file: string;
  /** The last sequence number written to it. */
  last: number;
}

/** A segment still open: the one being written, and older ones until their last fdatasync. */
interface OpenSegment extends Segment {
  fd: number;
  size: number;
}

export class WriteAheadLog {
  /** Open segments, oldest first; the last is the one being written. */
  private readonly open: OpenSegment[] = [];
  private readonly closed: Segment[];
  private written = 0;
  private synced = 0;
  private syncing = false;
  private waiters: Array<{ seq: number; resolve: () => void; reject: (e: Error) => void }> = [];
  private failed: Error | undefined;

  /**
   * Opens the log in `dir` (the data directory): replays through `apply`, in order, every record
   * whose sequence number is above `applied` (the last one LMDB holds), then begins a new segment.
   * Returns the log and the last sequence number in use. A record past `applied` that does not
   * follow the one before it means transactions are missing, and the directory is refused.
   */
  static open(dir: string, applied: number, apply: (seq: number, writes: LoggedWrite[]) => void, segmentBytes = SEGMENT_BYTES): { wal: WriteAheadLog; last: number } {
    const walDir = join(dir, WAL_DIR);
    mkdirSync(walDir, { recursive: true });
    const old: Segment[] = [];
    let last = applied;
    for (const name of readdirSync(walDir).filter((f) => f.endsWith('.wal')).sort()) {
      const file = join(walDir, name);
      let segLast = 0;
      for (const [seq, writes] of records(readFileSync(file))) {
        segLast = seq;
        if (seq <= last) continue;
        if (seq !== last + 1) throw new DataDirectoryError(`${walDir} holds transaction ${seq} but not ${last + 1}: the log misses transactions the data needs; restore the directory from a backup (npm run operator -- backup PATH makes one)`);
        apply(seq, writes);
        last = seq;
      }
      old.push({ file, last: segLast });
    }
    return { wal: new WriteAheadLog(walDir, last, old, segmentBytes), last };
  }

  private constructor(
    private readonly walDir: string,
    last: number,
    old: Segment[],
    private readonly segmentBytes: number,
  ) {
    this.closed = old;
    this.written = this.synced = last;
    this.begin();
  }

  /** Appends transaction `seq`'s writes; resolves once they are on disk (one fdatasync serves every record written before it began). */
  append(seq: number, writes: LoggedWrite[]): Promise<void> {
    if (this.failed) return Promise.reject(this.failed);
    // transactions commit in order and are logged as they commit; a record out of order would replay out of order
    if (seq <= this.written) return Promise.reject(this.fail(new Error(`write-ahead log: record ${seq} after ${this.written}`)));
    const payload = codec.pack([seq, writes]);
    const rec = Buffer.allocUnsafe(HEADER + payload.length);
    rec.writeUInt32LE(payload.length, 0);
    rec.writeUInt32LE(crc32(payload), 4);
    payload.copy(rec, HEADER);
    let seg = this.open[this.open.length - 1];
    try {
      if (seg.size + rec.length > this.segmentBytes && seg.size > 0) seg = this.begin();
      writeSync(seg.fd, rec);
    } catch (e) {
      return Promise.reject(this.fail(e as Error));
    }
    seg.size += rec.length;
    this.written = seg.last = seq;
    return new Promise((resolve, reject) => {
      this.waiters.push({ seq, resolve, reject });
      this.sync();
    });
  }

  /** LMDB has flushed every transaction through `seq`: segments holding only those are no longer needed; settles once they are deleted. */
  async flushedThrough(seq: number): Promise<void> {
    const gone: Segment[] = [];
    while (this.closed.length && this.closed[0].last <= seq) gone.push(this.closed.shift()!);
    await Promise.all(gone.map((g) => rm(g.file, { force: true })));
  }

  /** Closes the files; what was appended is on disk (every append was waited for by the writer). */
  close(): void {
    for (const seg of this.open.splice(0)) closeSync(seg.fd);
  }

  /**
   * One fdatasync at a time, of the oldest segment with records not yet synced: records are in
   * sequence order across segments, so a record is never acknowledged while one before it, in an
   * older segment, could still be lost.
   */
  private sync(): void {
    if (this.syncing || this.failed || this.synced >= this.written) return;
    const seg = this.open.find((s) => s.last > this.synced)!;
    const target = seg.last;
    this.syncing = true;
    fdatasync(seg.fd, (err) => {
      this.syncing = false;
      if (err) {
        this.fail(err);
        return;
      }
      this.synced = target;
      const still: typeof this.waiters = [];
      for (const w of this.waiters) (w.seq <= target ? w.resolve() : still.push(w));
      this.waiters = still;
      // an older segment whose records are all synced is closed; the log keeps it until LMDB's flush has them
      while (this.open.length > 1 && this.open[0].last <= this.synced) {
        const done = this.open.shift()!;
        close(done.fd, () => undefined);
        this.closed.push({ file: done.file, last: done.last });
      }
      this.sync();
    });
  }

  /** A new segment for the records from the next sequence number on. */
  private begin(): OpenSegment {
    const file = join(this.walDir, `${String(this.written + 1).padStart(16, '0')}.wal`);
    const seg: OpenSegment = { file, last: this.written, fd: openSync(file, 'a'), size: 0 };
    this.open.push(seg);
    return seg;
  }

  private fail(e: Error): Error {
    this.failed ??= e;
    for (const w of this.waiters.splice(0)) w.reject(this.failed);
    return this.failed;
  }
}

/** The whole records of one segment, in order, up to the first one cut short or failing its CRC. */
function* records(buf: Buffer): Generator<[number, LoggedWrite[]]> {
  let at = 0;
  while (at + HEADER <= buf.length) {
    const len = buf.readUInt32LE(at);
    const end = at + HEADER + len;
    if (end > buf.length) return;
    const payload = buf.subarray(at + HEADER, end);
    if (crc32(payload) !== buf.readUInt32LE(at + 4)) return;
    yield codec.unpack(payload) as [number, LoggedWrite[]];
    at = end;
  }
}
