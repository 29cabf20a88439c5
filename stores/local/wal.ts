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
import { closeSync, fdatasync, fdatasyncSync, mkdirSync, openSync, readFileSync, readdirSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { Packr } from 'msgpackr';

export const WAL_DIR = 'wal';
/** A segment is closed and a new one begun past this size, so flushed segments can be deleted whole. */
export const SEGMENT_BYTES = 64 * 2 ** 20;
const HEADER = 8;
/** Plain msgpack maps, as LMDB encodes the same values (index.ts). */
const codec = new Packr({ useRecords: false });

/** One write of a transaction: [database index, key, value] for a put, [database index, key] for a removal. */
export type LoggedWrite = [number, unknown, unknown] | [number, unknown];

interface Segment {
  file: string;
  /** The last sequence number written to it. */
  last: number;
}

export class WriteAheadLog {
  private fd: number;
  private current: Segment;
  private readonly closed: Segment[] = [];
  private size = 0;
  private written = 0;
  private synced = 0;
  private syncing = false;
  private waiters: Array<{ seq: number; resolve: () => void; reject: (e: Error) => void }> = [];
  private failed: Error | undefined;

  /**
   * Opens the log in `dir` (the data directory): replays through `apply`, in order, every record
   * whose sequence number is above `applied` (the last one LMDB holds), then begins a new segment.
   * Returns the log and the last sequence number in use.
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
        if (seq > last) {
          apply(seq, writes);
          last = seq;
        }
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
    this.current = { file: this.segmentFile(last + 1), last };
    this.fd = openSync(this.current.file, 'a');
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
    try {
      if (this.size + rec.length > this.segmentBytes && this.size > 0) this.rotate();
      writeSync(this.fd, rec);
    } catch (e) {
      return Promise.reject(this.fail(e as Error));
    }
    this.size += rec.length;
    this.written = this.current.last = seq;
    return new Promise((resolve, reject) => {
      this.waiters.push({ seq, resolve, reject });
      this.sync();
    });
  }

  /** LMDB has flushed every transaction through `seq`: segments holding only those are no longer needed. */
  flushedThrough(seq: number): void {
    while (this.closed.length && this.closed[0].last <= seq) rmSync(this.closed.shift()!.file, { force: true });
  }

  /** Closes the file; what was appended is on disk (every append was waited for by the writer). */
  close(): void {
    closeSync(this.fd);
  }

  private sync(): void {
    if (this.syncing || this.synced >= this.written) return;
    this.syncing = true;
    const target = this.written;
    const fd = this.fd;
    fdatasync(fd, (err) => {
      this.syncing = false;
      // a rotation since made this descriptor's records durable itself and closed it
      if (fd !== this.fd) return this.sync();
      if (err) {
        this.fail(err);
        return;
      }
      this.synced = Math.max(this.synced, target);
      const still: typeof this.waiters = [];
      for (const w of this.waiters) (w.seq <= target ? w.resolve() : still.push(w));
      this.waiters = still;
      this.sync();
    });
  }

  /** A new segment; the old one is made durable first, so no record's durability rests on a closed descriptor. */
  private rotate(): void {
    fdatasyncSync(this.fd);
    closeSync(this.fd);
    this.synced = this.written;
    for (const w of this.waiters.splice(0)) w.resolve();
    this.closed.push(this.current);
    this.current = { file: this.segmentFile(this.written + 1), last: this.written };
    this.fd = openSync(this.current.file, 'a');
    this.size = 0;
  }

  private fail(e: Error): Error {
    this.failed ??= e;
    for (const w of this.waiters.splice(0)) w.reject(this.failed);
    return this.failed;
  }

  private segmentFile(firstSeq: number): string {
    return join(this.walDir, `${String(firstSeq).padStart(16, '0')}.wal`);
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
