/**
 * DESIGN "Reactions": at least once, one reader at a time, over NATS JetStream and Redis. Three
 * feed readers, each with connections of its own as three nodes would have, share one feed and
 * one cursor; their consumer dedupes by event id in Redis and logs every delivery and every
 * application in the same atomic step. The leader is killed in the middle of a batch (its
 * connections cut, its lease not let go) while events keep being appended. Leases expire on the
 * stores' clock, here the wall clock (leases are about live processes), so the waits below are
 * bounded by deadlines.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS, FeedReader, ManualClock, SystemClock, type FeedLimits } from '../../runtime/index.ts';
import type { ClusterStores, FeedEntry } from '../../stores/index.ts';
import { clusterTestStores, testNamespace } from '../../support/stores.ts';
import { until } from '../../support/until.ts';

const LIMITS: FeedLimits = { ...DEFAULT_LIMITS, feedLeaseMs: 1_500, feedLeaseRenewMs: 300, feedRetryMs: 20, feedRetryMaxMs: 200 };
const BATCH = 4;
const BURST = 10;
const KILL_AFTER = 25;

const namespace = testNamespace('feedlead');
const clock = new SystemClock();
const opened: ClusterStores[] = [];
const readers: FeedReader[] = [];

afterAll(async () => {
  for (const r of readers) await r.stop();
  await Promise.all(opened.map((s) => s.close().catch(() => {})));
  const cleanup = await clusterTestStores(new ManualClock(), { namespace, ephemeral: true });
  await cleanup.close();
}, 60_000);

async function connect(): Promise<ClusterStores> {
  const s = await clusterTestStores(clock, { namespace, ephemeral: false });
  opened.push(s);
  return s;
}

/**
 * The consumer: logs the delivery (reader, event id, position), and applies the event only if
 * its id was never applied, recording the application, all in one atomic step.
 */
const CONSUME = `
redis.call('RPUSH', KEYS[1], ARGV[1] .. ' ' .. ARGV[2] .. ' ' .. ARGV[3])
if redis.call('SET', KEYS[2], ARGV[1], 'NX') then
  redis.call('RPUSH', KEYS[3], ARGV[2])
  return 1
end
return 0`;
const DELIVERIES = `${namespace}:consumer:deliveries`;
const APPLICATIONS = `${namespace}:consumer:applications`;
const appliedKey = (id: string) => `${namespace}:consumer:applied:${id}`;

type Node = { name: string; stores: Awaited<ReturnType<typeof connect>> };

/** Each node's reader of the feed, applying every entry through CONSUME; `applied` hears of each, whether it was fresh and whether more of its batch is in hand. */
function startConsumers(nodes: Node[], applied: (node: Node, fresh: boolean, moreInBatch: boolean) => void): void {
  for (const node of nodes) {
    const consume = async (entries: FeedEntry[]) => {
      for (const [i, e] of entries.entries()) {
        const fresh = await node.stores.redis.eval(CONSUME, 3, DELIVERIES, appliedKey(e.event.id), APPLICATIONS, node.name, e.event.id, String(e.position));
        applied(node, fresh === 1, i < entries.length - 1);
      }
    };
    const r = new FeedReader({ name: 'test:consumer', stores: node.stores, batch: BATCH, handle: consume, limits: LIMITS, log: () => {} });
    readers.push(r);
    r.start();
  }
}

describe('reactions are at least once, with one reader at a time (DESIGN "Reactions")', { timeout: 60_000 }, () => {
  it('the leader killed mid-batch: the next takes over within the lease time, no event is skipped and none applied twice', async () => {
    const writer = await connect();
    const nodes = await Promise.all(['r1', 'r2', 'r3'].map(async (name) => ({ name, stores: await connect() })));
    let applied = 0;
    let victim: string | undefined;
    let killedAt = 0;

    /** A crash: the connections go, nothing more is written, the lease is not let go. */
    const kill = (node: (typeof nodes)[number]) => {
      victim = node.name;
      killedAt = performance.now();
      node.stores.redis.disconnect();
      void node.stores.nats.close();
    };

    startConsumers(nodes, (node, fresh, moreInBatch) => {
      if (fresh) applied++;
      // mid-batch: applied, with more of the batch in hand and its cursor not yet kept
      if (victim === undefined && applied >= KILL_AFTER && moreInBatch) kill(node);
    });

    // Bursts of appends, one new stream per event, until well after the takeover.
    const ids: string[] = [];
    let takenOverIn: number | undefined;
    const leaderAfterKill = () => readers.findIndex((r, i) => nodes[i].name !== victim && r.leading);
    for (let burst = 0; takenOverIn === undefined || burst < 3; ) {
      await Promise.all(Array.from({ length: BURST }, () => {
        const n = ids.length + 1;
        ids.push(`evt_${n}`);
        return writer.journal.append(`thing.t${n}`, 0, [{ version: 1, id: `evt_${n}`, type: 'thing.happened', data: { n }, at: clock.now(), org: 'org_a' }]);
      }));
      await new Promise((r) => setTimeout(r, 100));
      if (victim !== undefined && takenOverIn === undefined && leaderAfterKill() >= 0) takenOverIn = performance.now() - killedAt;
      if (takenOverIn !== undefined) burst++;
      if (ids.length > 2_000) throw new Error(`no takeover (victim ${victim ?? 'never killed'})`);
    }
    expect(victim).toBeDefined();

    // Within the lease time: it lapses at most feedLeaseMs after the victim's last renewal, and
    // the others try on every renewal tick (the rest is slack for a busy machine).
    expect(takenOverIn!).toBeLessThan(LIMITS.feedLeaseMs + LIMITS.feedLeaseRenewMs + 1_000);
    const successors = nodes.filter((n, i) => n.name !== victim && readers[i].leading);
    expect(successors).toHaveLength(1);

    await until(async () => (await writer.redis.llen(APPLICATIONS)) === ids.length, 15_000);
    const feed = await writer.journal.readFeed(0, 10_000);
    expect(feed.map((e) => e.event.id).sort()).toEqual([...ids].sort()); // the feed holds what was appended, nothing else
    const positions = new Map(feed.map((e, i) => [e.position, i]));

    // Every appended event applied exactly once, in feed order: none skipped, none twice.
    const applications = await writer.redis.lrange(APPLICATIONS, 0, -1);
    expect(applications).toEqual(feed.map((e) => e.event.id));
    expect(new Set(applications).size).toBe(ids.length);

    // Deliveries: the victim's run, then one successor's, never interleaved (one reader at a
    // time); each run without a gap in feed positions; the successor resumes at or before the
    // first entry the victim did not finish, so the batch in hand was delivered again (at least once).
    const deliveries = (await writer.redis.lrange(DELIVERIES, 0, -1)).map((line) => {
      const [reader, id, position] = line.split(' ');
      return { reader, id, at: positions.get(Number(position))! };
    });
    const runs: Array<{ reader: string; at: number[] }> = [];
    for (const d of deliveries) {
      if (runs.at(-1)?.reader !== d.reader) runs.push({ reader: d.reader, at: [] });
      runs.at(-1)!.at.push(d.at);
    }
    expect(runs.map((r) => r.reader)).toEqual([victim, successors[0].name]);
    for (const run of runs) expect(run.at).toEqual(run.at.map((_, i) => run.at[0] + i));
    const [first, second] = runs;
    expect(first.at[0]).toBe(0);
    expect(second.at[0]).toBeLessThanOrEqual(first.at.at(-1)!);
    expect(second.at.at(-1)).toBe(feed.length - 1);
    expect(deliveries.length).toBeGreaterThan(applications.length);
  });
});
