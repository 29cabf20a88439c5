/**
 * The write-ahead log of the local family (DESIGN "Stores", STYLE "An acknowledgement is a
 * promise"). Each write transaction's writes (database, key, value or removal) are one record
 * appended to a segment file while LMDB commits the transaction, and made durable with one
 * fdatasync; an acknowledgement waits for that and the commit, not for LMDB's own flush. LMDB commits with overlapping sync: its B-tree pages reach
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
import { close, closeSync, fdatasync, mkdirSync, openSync, readFileSync, readdirSync, rmSync, writev } from 'node:fs';
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

export class WriteAheadLog {
  /** The segment being written. */
  private fd = -1;
  private current!: Segment;
  private size = 0;
  private readonly closed: Segment[];
  /** Records encoded and not yet handed to the disk, and the last one's sequence number. */
  private pending: Buffer[] = [];
  private written = 0;
  private busy = false;
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
        apply(seq, writes());
        last = seq;
      }
      // one with no whole record (begun just before a stop) holds nothing acknowledged; its name
      // may be the one the new segment takes
      if (segLast === 0) rmSync(file);
      else old.push({ file, last: segLast });
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
    this.written = last;
    this.begin(last + 1);
  }

  /**
   * Appends transaction `seq`'s writes; resolves once they are on disk. The main thread only
   * encodes: one write and one fdatasync at a time, off the main thread, carry every record
   * encoded before they began.
   */
  append(seq: number, writes: LoggedWrite[]): Promise<void> {
    if (this.failed) return Promise.reject(this.failed);
    // transactions commit in order and are logged as they commit; a record out of order would replay out of order
    if (seq <= this.written) return Promise.reject(this.fail(new Error(`write-ahead log: record ${seq} after ${this.written}`)));
    const payload = codec.pack([seq, writes]);
    const header = Buffer.allocUnsafe(HEADER);
    header.writeUInt32LE(payload.length, 0);
    header.writeUInt32LE(crc32(payload), 4);
    this.pending.push(header, payload);
    this.written = seq;
    return new Promise((resolve, reject) => {
      this.waiters.push({ seq, resolve, reject });
      this.pump();
    });
  }

  /** LMDB has flushed every transaction through `seq`: segments holding only those are no longer needed; settles once they are deleted. */
  async flushedThrough(seq: number): Promise<void> {
    const gone: Segment[] = [];
    while (this.closed.length && this.closed[0].last <= seq) gone.push(this.closed.shift()!);
    await Promise.all(gone.map((g) => rm(g.file, { force: true })));
  }

  /** Closes the file; what was appended is on disk (every append was waited for by the writer). */
  close(): void {
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
  }

  /** Writes and syncs what is pending, then what came meanwhile; a segment past its size is closed between two rounds. */
  private pump(): void {
    if (this.busy || this.failed || this.pending.length === 0) return;
    this.busy = true;
    const bufs = this.pending;
    this.pending = [];
    const target = this.written;
    writev(this.fd, bufs, (err, bytes) => {
      if (err) return this.fail(err);
      fdatasync(this.fd, (err) => {
        if (err) return this.fail(err);
        this.size += bytes;
        this.current.last = target;
        const still: typeof this.waiters = [];
        for (const w of this.waiters) (w.seq <= target ? w.resolve() : still.push(w));
        this.waiters = still;
        if (this.size >= this.segmentBytes) {
          close(this.fd, () => undefined);
          this.closed.push(this.current);
          this.begin(target + 1);
        }
        this.busy = false;
        this.pump();
      });
    });
  }

  /** A new segment, named for the first record it will hold: names sort as the records do. */
  private begin(first: number): void {
    const file = join(this.walDir, `${String(first).padStart(16, '0')}.wal`);
    this.fd = openSync(file, 'a');
    this.current = { file, last: first - 1 };
    this.size = 0;
  }

  private fail(e: Error): Error {
    this.failed ??= e;
    for (const w of this.waiters.splice(0)) w.reject(this.failed);
    return this.failed;
  }
}

/**
 * The whole records of one segment, in order, up to the first one cut short or failing its CRC:
 * each one's sequence number, and a function that decodes its writes (a start decodes only the
 * records past what LMDB holds).
 */
function* records(buf: Buffer): Generator<[number, () => LoggedWrite[]]> {
  let at = 0;
  while (at + HEADER <= buf.length) {
    const len = buf.readUInt32LE(at);
    const end = at + HEADER + len;
    if (end > buf.length) return;
    const payload = buf.subarray(at + HEADER, end);
    if (crc32(payload) !== buf.readUInt32LE(at + 4)) return;
    yield [sequenceOf(payload), () => (codec.unpack(payload) as [number, LoggedWrite[]])[1]];
    at = end;
  }
}

/** The sequence number a record's payload begins with (msgpack: a two-element array, then an unsigned integer). */
function sequenceOf(p: Buffer): number {
  if (p[0] !== 0x92) return (codec.unpack(p) as [number])[0];
  const t = p[1];
  if (t < 0x80) return t;
  if (t === 0xcc) return p[2];
  if (t === 0xcd) return p.readUInt16BE(2);
  if (t === 0xce) return p.readUInt32BE(2);
  return (codec.unpack(p) as [number])[0];
}
