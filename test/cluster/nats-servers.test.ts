/**
 * NATS_URL may name several servers, comma-separated (docs/cluster.md): a node connects through any
 * that is up, so a node starting while one server of a NATS cluster is down still starts.
 */
import { afterEach, expect, it } from 'vitest';
import { ManualClock } from '../../runtime/index.ts';
import { createClusterStores, type ClusterStores } from '../../stores/index.ts';
import { natsUrl, redisUrl, testNamespace } from '../../support/stores.ts';

let stores: ClusterStores | undefined;
afterEach(async () => {
  await stores?.close();
  stores = undefined;
});

it('NATS_URL with a server that is down and one that is up: the stores connect through the one that is up (docs/cluster.md)', async () => {
  const clock = new ManualClock();
  stores = await createClusterStores({ natsUrl: ` 127.0.0.1:1 , ${natsUrl()}`, redisUrl: redisUrl(), now: () => clock.now(), namespace: testNamespace('urls'), ephemeral: true });
  await stores.journal.append('thing.a', 0, [{ version: 1, id: 'evt_1', type: 'thing.changed', data: {}, at: 1, org: 'org_a' }]);
  expect((await stores.journal.read('thing.a', 0)).map((e) => e.version)).toEqual([1]);
});
