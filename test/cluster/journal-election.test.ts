/**
 * Reading the journal across a JetStream leader election (DESIGN "Stores"; docs/cluster.md "What
 * lives where"): a three-server NATS cluster, the journal on three replicas, and the server leading
 * it killed -9 just before an actor's stream is read. A get sent while the stream has no leader is
 * never answered; the journal sends it again after a short wait (stores/cluster/election.ts), so the
 * read returns the stream once a leader is elected instead of failing with the client's time-out,
 * which would fail the activation and every command waiting on it.
 * Servers run on wall time; every wait is bounded by the test's time-out.
 */
import { jetstreamManager } from '@nats-io/jetstream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SystemClock } from '../../runtime/index.ts';
import { createClusterStores, type ClusterStores, type StoredEvent } from '../../stores/index.ts';
import { redisUrl, testNamespace } from '../../support/stores.ts';
import { NatsCluster } from '../../support/chaos/nats-cluster.ts';

const namespace = testNamespace('journal_election');
const nats = new NatsCluster();
const clock = new SystemClock();
const opened: ClusterStores[] = [];

const open = async (server: number): Promise<ClusterStores> => {
  const s = await createClusterStores({ natsUrl: nats.url(server), redisUrl: redisUrl(), now: () => clock.now(), namespace, replicas: 3 });
  opened.push(s);
  return s;
};

const event = (version: number): StoredEvent => ({ version, id: `evt_t1_${version}`, type: 'tally.added', data: { n: version }, org: 'org_1', at: clock.now(), principal: 'system' });

describe('the journal read across a leader election (docs/cluster.md "What lives where")', () => {
  beforeAll(async () => {
    await nats.start(3);
  }, 60_000);

  afterAll(async () => {
    await opened[0]?.redis.eval("for _, k in ipairs(redis.call('keys', ARGV[1])) do redis.call('del', k) end", 0, `${namespace}:*`).catch(() => {});
    for (const s of opened) await s.close().catch(() => {});
    await nats.stopAll();
  }, 60_000);

  it('a stream read sent just after the journal leader is killed -9 returns the stream once a leader is elected, not a time-out', async () => {
    const writer = await open(0);
    await writer.journal.append('tally.t1', 0, [event(1), event(2)]);
    await writer.journal.append('tally.t1', 2, [event(3)]);
    const jsm = await jetstreamManager(writer.nats, { timeout: 5_000 });
    const leader = (await jsm.streams.info(`${namespace}_journal`)).cluster?.leader;
    expect(leader).toMatch(/^s[123]$/);
    // the reader talks to a server that survives, so only the election stands between it and the stream
    const reader = await open(nats.servers.findIndex((s) => s.name !== leader));
    await nats.kill(leader!);
    const read = await reader.journal.read('tally.t1', 0);
    expect(read.map((e) => e.version)).toEqual([1, 2, 3]);
    expect(read.map((e) => (e.data as { n: number }).n)).toEqual([1, 2, 3]);
  }, 60_000);
});
