/**
 * The local family's write-ahead log (DESIGN "Stores", STYLE "An acknowledgement is a promise";
 * docs/architecture.md "What is flushed when"): an acknowledged write is in the log on disk; LMDB
 * flushes after its commits, and after a power cut it opens at its last flushed transaction, so a
 * start writes again what the log holds past LMDB's last transaction. A power cut is stood in for
 * by putting back a copy of the LMDB environment taken earlier, the log kept as it was. Local
 * project only: it reopens one directory.
 */
import { cpSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../runtime/index.ts';
import { DataDirectoryError, StoreUnavailableError, VersionConflictError, type StoredEvent } from '../../stores/index.ts';
import { WriteAheadLog, WAL_DIR } from '../../stores/local/wal.ts';
import { localTestStores, tempDir } from '../../support/stores.ts';

const dirs: string[] = [];
const fresh = () => {
  const d = tempDir('wf-local-wal-');
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const ev = (version: number): StoredEvent => ({ version, id: `evt_${version}`, type: 'thing.changed', data: { n: version }, at: 1_000 + version, org: 'org_a' });
const segments = (dir: string) => readdirSync(join(dir, WAL_DIR)).sort();

/** Opens the log in `dir`, collecting the sequence numbers it replays past `applied`. */
function replayed(dir: string, applied = 0, segmentBytes?: number) {
  const seqs: number[] = [];
  const opened = WriteAheadLog.open(dir, applied, (seq) => seqs.push(seq), segmentBytes);
  return { ...opened, seqs };
}

describe.runIf(process.env.TEST_STORES === 'local')('local write-ahead log (DESIGN "Stores")', () => {
  it('what LMDB lost to a power cut (back at an earlier flush) is written again from the log at the next start: journal, feed, key-value and index alike', async () => {
    const dir = fresh();
    const clock = new ManualClock();
    let s = localTestStores(clock, { dir });
    await s.journal.append('thing.a', 0, [ev(1)]);
    await s.kv.set('k1', 'one');
    await s.flushed?.();
    await s.close();
    const earlier = fresh();
    cpSync(join(dir, 'lmdb'), earlier, { recursive: true });

    s = localTestStores(clock, { dir });
    await s.journal.append('thing.a', 1, [ev(2), ev(3)]);
    await s.journal.append('thing.b', 0, [ev(1)]);
    await s.kv.set('k2', 'two');
    await s.kv.delete('k1');
    await s.indexes.apply([{ op: 'put', list: 'org_a/things', id: 'thing_1', sortKey: 'a' }]);
    await s.flushed?.();
    await s.close();
    // the power cut: LMDB opens at what it had flushed before the second run
    rmSync(join(dir, 'lmdb'), { recursive: true });
    cpSync(earlier, join(dir, 'lmdb'), { recursive: true });

    s = localTestStores(clock, { dir });
    try {
      expect((await s.journal.read('thing.a', 0)).map((e) => e.version)).toEqual([1, 2, 3]);
      expect((await s.journal.readFeed(0, 100)).map((e) => [e.position, e.stream, e.event.version])).toEqual([[1, 'thing.a', 1], [2, 'thing.a', 2], [3, 'thing.a', 3], [4, 'thing.b', 1]]);
      expect(await s.kv.get('k1')).toBeUndefined();
      expect(await s.kv.get('k2')).toBe('two');
      expect((await s.indexes.page('org_a/things', { limit: 10, order: 'asc' })).ids).toEqual(['thing_1']);
      // and it goes on from there: versions and positions continue
      await s.journal.append('thing.a', 3, [ev(4)]);
      expect((await s.journal.readFeed(4, 100)).map((e) => [e.position, e.stream, e.event.version])).toEqual([[5, 'thing.a', 4]]);
    } finally {
      await s.close();
    }
  });

  it('a transaction whose LMDB commit fails after its log record was written is refused to its callers and to every later write, and is written again at the next start', async () => {
    const dir = fresh();
    const clock = new ManualClock();
    let s = localTestStores(clock, { dir });
    await s.journal.append('thing.a', 0, [ev(1)]);
    await s.flushed?.();
    await s.close();
    const earlier = fresh();
    cpSync(join(dir, 'lmdb'), earlier, { recursive: true });

    s = localTestStores(clock, { dir });
    // LMDB's asynchronous transaction, made to fail once its writes are made and logged: lmdb-js
    // gives each environment a class of its own, shared by its databases (the journal's among them)
    const proto = Object.getPrototypeOf((s.journal as unknown as { events: object }).events) as { transaction: (cb: () => unknown) => Promise<unknown> };
    const transaction = proto.transaction;
    try {
      proto.transaction = function (this: unknown, cb: () => unknown) {
        return transaction.call(this, cb).then(() => Promise.reject(new Error('disk failed while committing')));
      };
      const refused = s.journal.append('thing.a', 1, [ev(2)]);
      await expect(refused).rejects.toThrow(/disk failed while committing/);
      proto.transaction = transaction;
      // the writer takes no more writes: a later one could build on the lost one
      await expect(s.journal.append('thing.b', 0, [ev(1)])).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(s.flushed!()).rejects.toBeInstanceOf(StoreUnavailableError);
    } finally {
      proto.transaction = transaction;
      await s.close();
    }
    // LMDB kept nothing of it (as a failed commit leaves it); the log kept the record
    rmSync(join(dir, 'lmdb'), { recursive: true });
    cpSync(earlier, join(dir, 'lmdb'), { recursive: true });

    s = localTestStores(clock, { dir });
    try {
      expect((await s.journal.read('thing.a', 0)).map((e) => e.version)).toEqual([1, 2]);
      expect((await s.journal.read('thing.b', 0))).toEqual([]);
      // a retry of the refused write finds it made, and writes go on after it
      await expect(s.journal.append('thing.a', 1, [ev(2)])).rejects.toBeInstanceOf(VersionConflictError);
      await s.journal.append('thing.a', 2, [ev(3)]);
      expect((await s.journal.readFeed(0, 100)).map((e) => [e.position, e.event.version])).toEqual([[1, 1], [2, 2], [3, 3]]);
    } finally {
      await s.close();
    }
  });

  it('a record cut short at the end of the log (the machine stopped while writing it) ends the log; the records before it replay, and the next start writes after them', async () => {
    const dir = fresh();
    let { wal } = replayed(dir);
    await wal.append(1, [[0, 'a', 1]]);
    await wal.append(2, [[0, 'b', 2]]);
    await wal.append(3, [[0, 'c', 3], [0, 'a']]);
    wal.close();
    const [file] = segments(dir);
    truncateSync(join(dir, WAL_DIR, file), readFileSync(join(dir, WAL_DIR, file)).length - 3);
    const again = replayed(dir);
    expect(again.seqs).toEqual([1, 2]);
    expect(again.last).toBe(2);
    await again.wal.append(3, [[0, 'd', 4]]);
    again.wal.close();
    expect(replayed(dir, 1).seqs).toEqual([2, 3]);
  });

  it('a record whose checksum fails ends its segment: nothing from it or after it in that segment is replayed', async () => {
    const dir = fresh();
    const { wal } = replayed(dir);
    await wal.append(1, [[0, 'a', 'x'.repeat(40)]]);
    await wal.append(2, [[0, 'b', 'y'.repeat(40)]]);
    await wal.append(3, [[0, 'c', 'z'.repeat(40)]]);
    wal.close();
    const file = join(dir, WAL_DIR, segments(dir)[0]);
    const bytes = readFileSync(file);
    const second = bytes.indexOf('y'.repeat(40));
    bytes[second] ^= 0xff;
    writeFileSync(file, bytes);
    expect(replayed(dir).seqs).toEqual([1]);
  });

  it('records already in LMDB are not written again, and a segment is deleted once LMDB has flushed its last record, never the one being written', async () => {
    const dir = fresh();
    const { wal } = replayed(dir, 0, 64);
    for (let seq = 1; seq <= 5; seq++) await wal.append(seq, [[0, `k${seq}`, 'v'.repeat(80)]]);
    const before = segments(dir);
    // each record past the small segment size closes its segment, and the next is begun
    expect(before.length).toBe(6);
    await wal.flushedThrough(3);
    expect(segments(dir)).toEqual(before.slice(3));
    wal.close();
    expect(replayed(dir, 3).seqs).toEqual([4, 5]);
    expect(replayed(dir, 4).seqs).toEqual([5]);
    const later = replayed(dir, 5);
    expect(later.seqs).toEqual([]);
    await later.wal.flushedThrough(5);
    expect(segments(dir).length).toBe(1); // the one being written stays
    later.wal.close();
  });

  it('a log that misses a transaction past what LMDB holds is refused with a clear message, never replayed with a gap', async () => {
    const dir = fresh();
    const { wal } = replayed(dir, 0, 64);
    for (let seq = 1; seq <= 3; seq++) await wal.append(seq, [[0, `k${seq}`, 'v'.repeat(80)]]);
    wal.close();
    rmSync(join(dir, WAL_DIR, segments(dir)[1])); // the segment holding transaction 2
    expect(() => replayed(dir, 0)).toThrow(DataDirectoryError);
    expect(() => replayed(dir, 0)).toThrow(/holds transaction 3 but not 2: the log misses transactions the data needs; restore the directory from a backup/);
    expect(replayed(dir, 2).seqs).toEqual([3]);
  });

  it('a start after one that logged nothing keeps what it logs: the empty segment left behind is not taken for a finished one', async () => {
    const dir = fresh();
    replayed(dir).wal.close();
    const second = replayed(dir);
    await second.wal.append(1, [[0, 'a', 1]]);
    await second.wal.flushedThrough(0);
    second.wal.close();
    expect(replayed(dir).seqs).toEqual([1]);
  });

  it('sequence numbers of every width read back: a start skips the records LMDB holds by their number alone', async () => {
    for (const seq of [127, 128, 255, 256, 65_535, 65_536, 2 ** 32 - 1, 2 ** 32]) {
      const dir = fresh();
      const { wal } = replayed(dir, seq - 1);
      await wal.append(seq, [[0, `k${seq}`, seq]]);
      wal.close();
      const writes: unknown[] = [];
      WriteAheadLog.open(dir, seq - 1, (_seq, w) => writes.push(...w)).wal.close();
      expect(writes).toEqual([[0, `k${seq}`, seq]]);
      expect(replayed(dir, seq).seqs).toEqual([]);
      expect(() => replayed(dir, seq - 2)).toThrow(`holds transaction ${seq} but not ${seq - 1}`);
    }
  });

  it('a record logged out of order is refused: the log replays in the order it was written', async () => {
    const dir = fresh();
    const { wal } = replayed(dir);
    await wal.append(1, [[0, 'a', 1]]);
    await expect(wal.append(1, [[0, 'b', 2]])).rejects.toThrow(/record 1 after 1/);
    wal.close();
  });
});
