/**
 * With JetStream replicas > 1 the cluster stores read from the stream leader (STREAM.MSG.GET),
 * since a direct get may be answered by a lagging replica (DESIGN "Sharding": read-your-writes). The same
 * journal and readings rules hold on that path.
 */
import { afterEach, expect, it } from 'vitest';
import { ManualClock } from '../../runtime/index.ts';
import { VersionConflictError, type ClusterStores, type StoredEvent } from '../../stores/index.ts';
import { clusterTestStores } from '../../support/stores.ts';

const clock = new ManualClock();
let stores: ClusterStores | undefined;
afterEach(async () => {
  await stores?.close();
});

const ev = (version: number): StoredEvent => ({ version, id: `evt_${version}`, type: 't.happened', data: { n: version }, at: clock.now(), org: 'org_a' });

it('leader reads - appends, a stale writer refused, reads after a version, the feed and readings', async () => {
  stores = await clusterTestStores(clock, { directReads: false });
  for (let v = 1; v <= 40; v++) await stores.journal.append('thing.a', v - 1, [ev(v)]);
  await stores.journal.append('thing.b', 0, [ev(1), ev(2)]);
  await expect(stores.journal.append('thing.a', 39, [ev(40)])).rejects.toBeInstanceOf(VersionConflictError);
  expect((await stores.journal.read('thing.a', 0)).map((e) => e.version)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
  expect((await stores.journal.read('thing.a', 38)).map((e) => e.version)).toEqual([39, 40]);
  const feed = await stores.journal.readFeed(0, 100);
  expect(feed.length).toBe(42);
  expect(feed.slice(-2).map((f) => `${f.stream}@${f.event.version}`)).toEqual(['thing.b@1', 'thing.b@2']);
  await stores.readings.append('wrk_1', [{ recordedAt: clock.now() + 5, data: 2 }, { recordedAt: clock.now() + 1, data: 1 }]);
  expect((await stores.readings.range('wrk_1', clock.now(), clock.now() + 10)).map((r) => r.data)).toEqual([1, 2]);
});
