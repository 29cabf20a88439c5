/**
 * The local family's data directory (DESIGN "Stores": local is the default of `npm start`, in
 * DATA_DIR; issue 33: "A second process on the same directory is refused with a clear message";
 * "an unknown newer format is refused with a clear message"). The second process is a real one.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { open } from 'lmdb';
import { createLocalStores, DATA_FORMAT, DataDirectoryError, type StoredEvent } from '../../stores/index.ts';
import { storeFamily, tempDir } from '../../support/stores.ts';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');
const TSX = pathToFileURL(join(ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
const STORES = pathToFileURL(join(ROOT, 'stores', 'index.ts')).href;

/** Another process opens the directory; `exit` leaves without closing, as a process killed mid-run does. */
function otherProcess(dir: string, then: 'close' | 'exit') {
  const script = `import { createLocalStores } from ${JSON.stringify(STORES)};
try {
  const s = createLocalStores({ dir: process.argv[1], now: Date.now });
  await s.kv.set('opened-by', process.pid);
  await s.flushed();
  ${then === 'close' ? 'await s.close();' : 'process.exit(0);'}
  console.log('opened');
} catch (e) { console.log(e.constructor.name + ': ' + e.message); process.exitCode = 3; }`;
  return run(process.execPath, ['--import', TSX, '--input-type=module', '-e', script, dir]).then(
    (r) => ({ code: 0, out: r.stdout.trim() }),
    (e: { code: number; stdout: string }) => ({ code: e.code, out: e.stdout.trim() }),
  );
}

const dirs: string[] = [];
const fresh = () => {
  const d = tempDir();
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe.runIf(storeFamily() === 'local')('local data directory (DESIGN "Stores", issue 33)', () => {
  it('a second platform process on the same data directory is refused with DataDirectoryError naming the holder; once closed, it opens', async () => {
    const dir = fresh();
    const first = createLocalStores({ dir, now: Date.now });
    try {
      expect(await otherProcess(dir, 'close')).toEqual({ code: 3, out: `DataDirectoryError: ${dir} is in use by another platform process (pid ${process.pid}); stop it first, or set DATA_DIR to another directory` });
      // a second open inside the same process is refused alike
      expect(() => createLocalStores({ dir, now: Date.now })).toThrow(DataDirectoryError);
    } finally {
      await first.close();
    }
    expect(await otherProcess(dir, 'close')).toEqual({ code: 0, out: 'opened' });
  });

  it('a lock left by a process that ended without closing (kill -9, a power cut) is taken over, and what it wrote is there', async () => {
    const dir = fresh();
    const gone = await otherProcess(dir, 'exit');
    expect(gone.code).toBe(0);
    const held = JSON.parse(readFileSync(join(dir, 'platform.lock'), 'utf8'));
    expect(held.pid).not.toBe(process.pid);
    const s = createLocalStores({ dir, now: Date.now });
    try {
      expect(await s.kv.get('opened-by')).toBe(held.pid);
    } finally {
      await s.close();
    }
  });

  it('an unknown newer data format is refused with a clear message, and the directory is left as it was', async () => {
    const dir = fresh();
    await createLocalStores({ dir, now: Date.now }).close();
    const newer = `${JSON.stringify({ format: DATA_FORMAT + 1, engine: 'lmdb', created_at: '2030-01-01T00:00:00.000Z' })}\n`;
    writeFileSync(join(dir, 'format.json'), newer);
    expect(() => createLocalStores({ dir, now: Date.now })).toThrow(new DataDirectoryError(`${dir} is in data format ${DATA_FORMAT + 1}, newer than this platform reads (${DATA_FORMAT}); run the newer platform version that wrote it`));
    expect(readFileSync(join(dir, 'format.json'), 'utf8')).toBe(newer);
    // refused before the lock is taken: another process is not told the directory is in use
    expect((await otherProcess(dir, 'close')).out).toContain('newer than this platform reads');
  });

  it('a directory in data format 1 (an event per record, stream heads kept apart) is upgraded in place: its journal reads back and appends go on from its heads', async () => {
    const dir = fresh();
    const ev = (version: number): StoredEvent => ({ version, id: `evt_${version}`, type: 'thing.changed', data: { n: version }, at: 1_000 + version, org: 'org_a' });
    // format 1 as it was written: msgpack records, one record per event, a `heads` database
    mkdirSync(join(dir, 'lmdb'), { recursive: true });
    writeFileSync(join(dir, 'format.json'), `${JSON.stringify({ format: 1, engine: 'lmdb', created_at: '2026-11-01T00:00:00.000Z' })}\n`);
    const old = open({ path: join(dir, 'lmdb'), maxDbs: 16 });
    const [events, heads, feed] = ['events', 'heads', 'feed'].map((name) => old.openDB({ name }));
    await old.transaction(() => {
      for (const v of [1, 2, 3]) {
        events.put(`thing.a\u001f${String(v).padStart(16, '0')}`, ev(v));
        feed.put(v, `thing.a\u001f${String(v).padStart(16, '0')}`);
      }
      heads.put('thing.a', 3);
    });
    await old.close();

    const s = createLocalStores({ dir, now: Date.now });
    try {
      expect((await s.journal.read('thing.a', 1)).map((e) => e.version)).toEqual([2, 3]);
      await expect(s.journal.append('thing.a', 2, [ev(3)])).rejects.toThrow(/expected version 2/);
      await s.journal.append('thing.a', 3, [ev(4), ev(5)]);
      expect((await s.journal.readFeed(2, 10)).map((e) => [e.position, e.event.version])).toEqual([[3, 3], [4, 4], [5, 5]]);
      expect(JSON.parse(readFileSync(join(dir, 'format.json'), 'utf8')).format).toBe(DATA_FORMAT);
    } finally {
      await s.close();
    }
    const after = open({ path: join(dir, 'lmdb'), maxDbs: 16 });
    try {
      expect(after.getKeys({}).asArray).not.toContain('heads');
    } finally {
      await after.close();
    }
  });

  it('a directory holding files but no format record is not a data directory, and is refused rather than written into', async () => {
    const dir = fresh();
    writeFileSync(join(dir, 'notes.txt'), 'someone else\'s');
    expect(() => createLocalStores({ dir, now: Date.now })).toThrow(/holds files but no format\.json: it is not a platform data directory/);
  });
});
