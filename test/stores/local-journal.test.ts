/**
 * The local journal read back from disk after a restart (DESIGN "Stores"): the feed gives every
 * event in commit order with its stream, a stream whose key part is kept as its digest included,
 * and the next append continues the positions. Local project only: it reopens one directory.
 */
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../runtime/index.ts';
import type { StoredEvent } from '../../stores/index.ts';
import { localTestStores, tempDir } from '../../support/stores.ts';

const dir = tempDir('wf-local-journal-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ev = (version: number): StoredEvent => ({ version, id: `evt_${version}`, type: 'thing.changed', data: { n: version }, at: 1_000 + version, org: 'org_a' });

describe.runIf(process.env.TEST_STORES === 'local')('local journal across a restart (DESIGN "Stores")', () => {
  it('the feed read from disk gives every event in commit order with its stream, long streams included, and positions go on', async () => {
    const clock = new ManualClock();
    const long = `thing.${'x'.repeat(3000)}`;
    let s = localTestStores(clock, { dir });
    await s.journal.append('thing.a', 0, [ev(1), ev(2)]);
    await s.journal.append(long, 0, [ev(1)]);
    await s.journal.append('thing.a', 2, [ev(3)]);
    await s.close();

    s = localTestStores(clock, { dir });
    try {
      const feed = await s.journal.readFeed(0, 100);
      expect(feed.map((e) => [e.position, e.stream, e.event.version])).toEqual([[1, 'thing.a', 1], [2, 'thing.a', 2], [3, long, 1], [4, 'thing.a', 3]]);
      expect(await s.journal.readFeed(2, 1)).toEqual([feed[2]]);
      // a position inside an append of several events (kept as one record) reads from there
      expect(await s.journal.readFeed(1, 2)).toEqual([feed[1], feed[2]]);
      expect((await s.journal.read('thing.a', 1)).map((e) => e.version)).toEqual([2, 3]);
      await s.journal.append(long, 1, [ev(2)]);
      expect((await s.journal.readFeed(4, 100)).map((e) => [e.position, e.stream, e.event.version])).toEqual([[5, long, 2]]);
      expect((await s.journal.read(long, 0)).map((e) => e.version)).toEqual([1, 2]);
    } finally {
      await s.close();
    }
  });

  it('the feed read from disk leaves out the records a reader refuses (`only`) but never the last one it looked at, and tells each record by its stream and the lowest version it may begin at', async () => {
    const clock = new ManualClock();
    const own = tempDir('wf-local-journal-only-');
    let s = localTestStores(clock, { dir: own });
    await s.journal.append('thing.a', 0, [ev(1), ev(2)]); // positions 1-2
    await s.journal.append('other.b', 0, [ev(1)]); // 3
    await s.journal.append('thing.a', 2, [ev(3)]); // 4
    await s.journal.append('other.b', 1, [ev(2), ev(3)]); // 5-6
    await s.journal.append('other.c', 0, [ev(1)]); // 7
    await s.close();

    s = localTestStores(clock, { dir: own });
    try {
      const asked: Array<[string, number]> = [];
      const seen = (only: (stream: string, from: number) => boolean) => async (after: number, limit: number) =>
        (await s.journal.readFeed(after, limit, (stream, from) => (asked.push([stream, from]), only(stream, from)))).map((e) => [e.position, e.stream, e.event.version]);
      // every record but the last is asked about; the first one read may begin anywhere it knows of
      expect(await seen((stream) => stream === 'thing.a')(0, 100)).toEqual([[1, 'thing.a', 1], [2, 'thing.a', 2], [4, 'thing.a', 3], [7, 'other.c', 1]]);
      expect(asked).toEqual([['thing.a', 1], ['other.b', 1], ['thing.a', 3], ['other.b', 2]]);
      expect(await seen((_stream, from) => from === 1)(0, 100)).toEqual([[1, 'thing.a', 1], [2, 'thing.a', 2], [3, 'other.b', 1], [7, 'other.c', 1]]);
      // refusing all: the last record looked at still comes back, so a reader's cursor passes the rest
      expect(await seen(() => false)(0, 3)).toEqual([[4, 'thing.a', 3]]);
      expect(await seen(() => false)(4, 100)).toEqual([[7, 'other.c', 1]]);
    } finally {
      await s.close();
      rmSync(own, { recursive: true, force: true });
    }
  });
});
