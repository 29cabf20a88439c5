/**
 * Sharding over NATS (DESIGN "Sharding"): three in-process nodes, each with its own
 * connections, actor system and lease loop, on one namespace. Leases run on wall time (they are
 * about live processes), so these tests wait on real time with deadlines; actor time stays a
 * ManualClock.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../kernel/index.ts';
import { ActorSystem, ManualClock, defineActor } from '../../runtime/index.ts';
import { ClusterNode, shardOf } from '../../runtime/cluster/index.ts';
import type { ClusterStores, StoredEvent } from '../../stores/index.ts';
import { clusterTestStores, testNamespace } from '../support/stores.ts';
import { Counter } from '../runtime/counter.ts';

const ORG = 'org_alpha';

/** Records every counter.added it hears of (a reaction; DESIGN "Reactions"). */
const Echo = defineActor({
  kind: 'test_echo',
  prefix: 'echo_',
  creates: ['heard'],
  initial: () => ({ heard: [] as string[] }),
  decide: { heard: (_s: { heard: string[] }, cmd: { from: string; n: number }) => [{ type: 'echo.heard' as const, what: `${cmd.from}:${cmd.n}` }] },
  evolve: (s: { heard: string[] }, e: { type: 'echo.heard'; what: string }) => ({ heard: [...s.heard, e.what] }),
  view: (s: { heard: string[] }) => ({ heard: s.heard }),
  reactions: [{ from: 'test_counter', events: ['counter.added'], command: 'heard', target: (e, source) => ({ id: 'echo_main', payload: { from: source.id, n: (e.data as { n: number }).n } }) }],
});
const SHARDS = 32;
const FAST = { ttlMs: 1500, renewMs: 300, tickMs: 100, marginMs: 200, joinMs: 300 };

interface Member {
  id: string;
  stores: ClusterStores;
  system: ActorSystem;
  node: ClusterNode;
  alive: boolean;
}

let members: Member[] = [];
let namespace = '';
let clock = new ManualClock();

async function member(id: string): Promise<Member> {
  const stores = await clusterTestStores(clock, { namespace, ephemeral: false });
  const system = new ActorSystem({ stores, clock, kinds: [Counter, Echo], log: () => {} });
  await system.start();
  const node = new ClusterNode({ stores, nodeId: id, shards: SHARDS, timings: FAST, log: process.env.CLUSTER_TEST_LOG ? (m, e) => console.log(id, m, e ?? '') : () => {} });
  await node.start(system);
  const m = { id, stores, system, node, alive: true };
  members.push(m);
  return m;
}

async function cluster(n: number): Promise<Member[]> {
  namespace = testNamespace('shard');
  clock = new ManualClock();
  const ms = await Promise.all(Array.from({ length: n }, (_, i) => member(`node${i + 1}`)));
  await until(() => fullyOwned(ms), 10_000);
  return ms;
}

/** Every shard held by exactly one live member. */
function fullyOwned(ms: Member[]): boolean {
  const owners = new Map<number, string>();
  for (const m of ms) {
    if (!m.alive) continue;
    for (const s of m.node.leases.heldShards()) {
      if (owners.has(s)) return false;
      owners.set(s, m.id);
    }
  }
  return owners.size === SHARDS;
}

async function until(cond: () => boolean, ms: number): Promise<number> {
  const start = performance.now();
  while (!cond()) {
    if (performance.now() - start > ms) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return performance.now() - start;
}

/** A crash: no more renewals, no goodbye, the connection gone. */
async function crash(m: Member): Promise<void> {
  m.alive = false;
  // A dead process does nothing more: its lease loop and its reaction dispatcher stop with it.
  await m.system.setReactionDispatch(false);
  await m.node.leases.stop();
  await m.stores.nats.close();
  m.stores.redis.disconnect();
}

afterEach(async () => {
  for (const m of members) {
    if (!m.alive) continue; // a crashed member's system stays attached to its test's own clock only
    await m.node.stop().catch(() => {});
    await m.system.stop().catch(() => {});
    await m.stores.close().catch(() => {});
  }
  members = [];
  const cleanup = await clusterTestStores(clock, { namespace, ephemeral: true });
  await cleanup.close();
}, 120_000);

const versionsOf = (events: StoredEvent[]) => events.map((e) => e.version);

// Wall-time tests with three nodes: generous limits, since the machine may be busy with other suites.
describe('shard leases and remote asks (DESIGN "Sharding")', { timeout: 120_000 }, () => {
  it('every shard has exactly one owner, and an actor answers the same through any node', async () => {
    const ms = await cluster(3);
    for (const m of ms) expect(m.node.leases.heldShards().length).toBeGreaterThan(0);
    const ids = Array.from({ length: 12 }, (_, i) => `ctr_${i}`);
    for (const id of ids) await ms[0].system.ask(Counter, id, 'open', {}, { org: ORG });
    for (const [i, id] of ids.entries()) await ms[i % 3].system.ask(Counter, id, 'add', { n: i + 1 }, { org: ORG });
    for (const [i, id] of ids.entries()) {
      for (const m of ms) expect(await m.system.get(Counter, id, ORG)).toMatchObject({ total: i + 1 });
    }
    // Refusals travel as the same ApiError a local call throws.
    const err = await ms[1].system.get(Counter, 'ctr_0', 'org_other').catch((e: ApiError) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: 'organisation_mismatch' });
    // Each actor lives in exactly one node's memory: the owner of its shard.
    for (const id of ids) {
      const owner = ms.find((m) => m.node.leases.heldShards().includes(shardOf(Counter.kind, id, SHARDS)))!;
      expect(owner.node.isLocal(Counter.kind, id)).toBe(true);
      for (const m of ms) if (m !== owner) expect(m.node.isLocal(Counter.kind, id)).toBe(false);
    }
  });

  it("a node that stops renewing loses its shards and the survivors own them again within 5 s (DESIGN, Sharding)", async () => {
    const ms = await cluster(3);
    await ms[0].system.ask(Counter, 'ctr_x', 'open', {}, { org: ORG });
    for (let n = 1; n <= 7; n++) await ms[n % 3].system.ask(Counter, 'ctr_x', 'add', { n }, { org: ORG });
    const victim = ms.find((m) => m.node.isLocal(Counter.kind, 'ctr_x'))!;
    const survivors = ms.filter((m) => m !== victim);
    await crash(victim);
    const took = await until(() => fullyOwned(survivors), 5_000);
    expect(took).toBeLessThan(5_000);
    // The new owner rebuilt the actor from snapshot + journal and carries on from version 8.
    await survivors[0].system.ask(Counter, 'ctr_x', 'add', { n: 100 }, { org: ORG });
    expect(await survivors[1].system.get(Counter, 'ctr_x', ORG)).toMatchObject({ total: 128 });
    expect(versionsOf(await survivors[0].stores.journal.read('test_counter.ctr_x', 0))).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('drain hands every shard over under load without failing one ask, each applied once (SIGTERM)', async () => {
    const ms = await cluster(3);
    const ids = Array.from({ length: 16 }, (_, i) => `ctr_d${i}`);
    for (const id of ids) await ms[0].system.ask(Counter, id, 'open', {}, { org: ORG });
    const leaving = ms[2];
    const asks: Promise<unknown>[] = [];
    let drained: Promise<void> | undefined;
    for (let round = 0; round < 30; round++) {
      for (const [i, id] of ids.entries()) {
        const via = ms[(round + i) % 2]; // callers on the nodes that stay
        asks.push(via.system.ask(Counter, id, 'add', { n: 1 }, { org: ORG, dedupeId: `r${round}` }));
      }
      if (round === 10) drained = leaving.node.drain();
      await new Promise((r) => setImmediate(r));
    }
    const results = await Promise.allSettled(asks);
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    await drained;
    expect(leaving.node.leases.heldShards()).toEqual([]);
    await until(() => fullyOwned(ms.slice(0, 2)), 5_000);
    for (const id of ids) expect(await ms[0].system.get(Counter, id, ORG)).toMatchObject({ total: 30 });
    for (const id of ids) expect(versionsOf(await ms[0].stores.journal.read(`test_counter.${id}`, 0))).toEqual(Array.from({ length: 31 }, (_, i) => i + 1));
  });

  it('each reminder fires once and each reaction applies once across the nodes (DESIGN "Reminders", "Reactions")', async () => {
    const ms = await cluster(3);
    const ids = Array.from({ length: 9 }, (_, i) => `ctr_t${i}`);
    for (const [i, id] of ids.entries()) {
      await ms[i % 3].system.ask(Counter, id, 'open', {}, { org: ORG });
      await ms[(i + 1) % 3].system.ask(Counter, id, 'add', { n: i }, { org: ORG });
      await ms[(i + 2) % 3].system.ask(Counter, id, 'arm', { dueAt: clock.now() + 60_000, label: `alarm${i}` }, { org: ORG });
    }
    await clock.advance(61_000); // every node's scheduler looks; the Redis claim lets one fire each
    for (const m of ms) await m.system.settle();
    for (const [i, id] of ids.entries()) expect(await ms[0].system.get(Counter, id, ORG)).toMatchObject({ rings: [`alarm${i}`] });
    const expected = ids.map((id, i) => `${id}:${i}`).sort();
    let heard: string[] = [];
    const deadline = performance.now() + 10_000;
    while (heard.length < expected.length && performance.now() < deadline) {
      heard = ((await ms[1].system.get(Echo, 'echo_main', ORG).catch(() => ({ heard: [] }))) as { heard: string[] }).heard;
      await new Promise((r) => setTimeout(r, 50));
    }
    await new Promise((r) => setTimeout(r, 300)); // a second delivery, were there one, would land now
    heard = ((await ms[2].system.get(Echo, 'echo_main', ORG)) as { heard: string[] }).heard;
    expect([...heard].sort()).toEqual(expected);
  });

  it('journal listeners hear appends made through another connection (the reaction dispatcher runs on one node)', async () => {
    namespace = testNamespace('feed');
    const a = await clusterTestStores(clock, { namespace, ephemeral: false });
    const b = await clusterTestStores(clock, { namespace, ephemeral: false });
    let heard = 0;
    const off = b.journal.onAppend(() => heard++);
    await new Promise((r) => setTimeout(r, 500)); // the watcher's consumer is up (it notifies once when ready)
    heard = 0;
    const ev = { version: 1, id: 'evt_1', type: 'x.happened', data: {}, at: clock.now(), org: ORG };
    await a.journal.append('thing.one', 0, [ev]);
    await until(() => heard > 0, 5_000);
    expect((await b.journal.readFeed(0, 10)).map((f) => f.stream)).toEqual(['thing.one']);
    off();
    await a.close();
    await b.close();
  });

  it('a stale owner cannot write: two writers of one actor never both append at one version', async () => {
    namespace = testNamespace('stale');
    // Two systems with no placement at all, as if both believed they owned the shard.
    const a = await clusterTestStores(clock, { namespace, ephemeral: false });
    const b = await clusterTestStores(clock, { namespace, ephemeral: false });
    const sa = new ActorSystem({ stores: a, clock, kinds: [Counter], log: () => {} });
    const sb = new ActorSystem({ stores: b, clock, kinds: [Counter], log: () => {} });
    await sa.ask(Counter, 'ctr_s', 'open', {}, { org: ORG });
    await sb.ask(Counter, 'ctr_s', 'add', { n: 1 }, { org: ORG }); // b loads version 1, appends 2
    const stale = await sa.ask(Counter, 'ctr_s', 'add', { n: 2 }, { org: ORG }).catch((e: ApiError) => e); // a still holds version 1
    expect(stale).toBeInstanceOf(ApiError);
    expect(stale).toMatchObject({ code: 'unavailable' });
    expect(await sa.ask(Counter, 'ctr_s', 'add', { n: 4 }, { org: ORG })).toMatchObject({ total: 5 }); // reloaded, then applied
    expect(versionsOf(await a.journal.read('test_counter.ctr_s', 0))).toEqual([1, 2, 3]);
    await sa.stop();
    await sb.stop();
    await a.close();
    await b.close();
  });
});
