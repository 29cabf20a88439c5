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
});
