/**
 * Sharding over NATS (DESIGN "Sharding"): three in-process nodes, each with its own
 * connections, actor system and lease loop, on one namespace. Leases run on wall time (they are
 * about live processes), so these tests wait on real time with deadlines; actor time stays a
 * ManualClock.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../kernel/index.ts';
import { ActorSystem, ManualClock, defineActor } from '../../runtime/index.ts';
import { shardOf } from '../../runtime/cluster/index.ts';
import type { StoredEvent } from '../../stores/index.ts';
import { clusterTestStores, testNamespace } from '../../support/stores.ts';
import { Counter } from '../runtime/counter.ts';
import { until } from '../../support/until.ts';
import { type Member, TEST_SHARDS, TestCluster } from './nodes.ts';

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
let cluster: TestCluster | undefined;
let namespace = '';
let clock = new ManualClock();

/** `n` members on a fresh namespace and clock, once every shard has its owner. */
function start(n: number): Promise<Member[]> {
  namespace = testNamespace('shard');
  clock = new ManualClock();
  cluster = new TestCluster(namespace, clock, [Counter, Echo]);
  return cluster.grow(n);
}

afterEach(async () => {
  if (cluster) await cluster.close();
  else await (await clusterTestStores(clock, { namespace, ephemeral: true })).close();
  cluster = undefined;
}, 120_000);

const versionsOf = (events: StoredEvent[]) => events.map((e) => e.version);

// Wall-time tests with three nodes: generous limits, since the machine may be busy with other suites.
describe('shard leases and remote asks (DESIGN "Sharding")', { timeout: 120_000 }, () => {
  it('every shard has exactly one owner, and an actor answers the same through any node', async () => {
    const ms = await start(3);
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
      const owner = ms.find((m) => m.node.leases.heldShards().includes(shardOf(Counter.kind, id, TEST_SHARDS)))!;
      expect(owner.node.isLocal(Counter.kind, id)).toBe(true);
      for (const m of ms) if (m !== owner) expect(m.node.isLocal(Counter.kind, id)).toBe(false);
    }
  });

  it("a node that stops renewing loses its shards and the survivors own them again within 5 s (DESIGN, Sharding)", async () => {
    const ms = await start(3);
    await ms[0].system.ask(Counter, 'ctr_x', 'open', {}, { org: ORG });
    for (let n = 1; n <= 7; n++) await ms[n % 3].system.ask(Counter, 'ctr_x', 'add', { n }, { org: ORG });
    const victim = ms.find((m) => m.node.isLocal(Counter.kind, 'ctr_x'))!;
    const survivors = ms.filter((m) => m !== victim);
    await cluster!.crash(victim);
    const took = await until(() => cluster!.fullyOwned(survivors), 5_000);
    expect(took).toBeLessThan(5_000);
    // taken over from a lapsed lease, which the new owner remembers (runtime/activation.ts "Effects after a takeover")
    const heir = survivors.find((m) => m.node.isLocal(Counter.kind, 'ctr_x'))!;
    expect(heir.node.leases.takenOverAt(shardOf(Counter.kind, 'ctr_x', TEST_SHARDS))).toBeGreaterThan(0);
    expect(heir.node.recoverSince(Counter.kind, 'ctr_x')).toBeLessThan(Date.now());
    // The new owner rebuilt the actor from snapshot + journal and carries on from version 8.
    await survivors[0].system.ask(Counter, 'ctr_x', 'add', { n: 100 }, { org: ORG });
    expect(await survivors[1].system.get(Counter, 'ctr_x', ORG)).toMatchObject({ total: 128 });
    expect(versionsOf(await survivors[0].stores.journal.read('test_counter.ctr_x', 0))).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('an ask its owner took and never answered (killed mid-request) answers 503 outcome_unknown once the owner lapses, not after the 5 s timeout (docs/errors.md)', async () => {
    const [survivor, victim] = await start(2);
    const id = Array.from({ length: 200 }, (_, i) => `ctr_z${i}`).find((x) => victim.node.isLocal(Counter.kind, x))!;
    await cluster!.crash(victim);
    // The dead node's subject still takes requests (as if it died holding them): nothing answers.
    const zombie = survivor.stores.nats.subscribe(`${namespace}.node.${victim.id}`, { callback: () => {} });
    await survivor.stores.nats.flush();
    const began = performance.now();
    const err = await survivor.system.ask(Counter, id, 'open', {}, { org: ORG }).catch((e: unknown) => e);
    const took = performance.now() - began;
    zombie.unsubscribe();
    expect(err).toBeInstanceOf(ApiError);
    // The owner may have applied it before dying: not `unavailable`, which says nothing was.
    expect(err).toMatchObject({ code: 'outcome_unknown', retryable: true });
    expect(took).toBeLessThan(4_000);
  });

  it('drain hands every shard over under load without failing one ask, each applied once (SIGTERM)', async () => {
    const ms = await start(3);
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
    // Handed over, not left to lapse: a release racing a renewal once kept its lease to the end.
    expect(await until(() => cluster!.fullyOwned(ms.slice(0, 2)), 5_000)).toBeLessThan(1_000);
    // a shard handed over is not a takeover: nothing of its actors is written again on activation
    for (const m of ms.slice(0, 2)) for (const shard of m.node.leases.heldShards()) expect(m.node.leases.takenOverAt(shard)).toBeUndefined();
    for (const id of ids) expect(await ms[0].system.get(Counter, id, ORG)).toMatchObject({ total: 30 });
    for (const id of ids) expect(versionsOf(await ms[0].stores.journal.read(`test_counter.${id}`, 0))).toEqual(Array.from({ length: 31 }, (_, i) => i + 1));
  });

  it('a draining node passivates the actors of every shard it releases in one walk over its active actors, and its drain ends only once every one of them is passivated (SIGTERM)', async () => {
    const [only] = await start(1);
    const ids = Array.from({ length: 64 }, (_, i) => `ctr_w${i}`);
    for (const id of ids) await only.system.ask(Counter, id, 'open', {}, { org: ORG });
    expect(new Set(ids.map((id) => shardOf(Counter.kind, id, TEST_SHARDS))).size).toBeGreaterThan(8);
    expect(only.system.activeCount).toBeGreaterThanOrEqual(ids.length);
    const walks = vi.spyOn(only.system, 'passivateWhere');
    await only.node.drain();
    expect(only.node.leases.heldShards()).toEqual([]);
    expect(walks).toHaveBeenCalledTimes(1);
    // the one walk covers every shard released: each of the actors is asked to passivate
    const which = walks.mock.calls[0][0];
    for (const id of ids) expect(which(Counter.kind, id)).toBe(true);
    // the drain ends once its releases have: each actor passivated, whoever began its shard's release
    expect(only.system.activeCount).toBe(0);
  });

  it('each reminder fires once and each reaction applies once across the nodes (DESIGN "Reminders", "Reactions")', async () => {
    const ms = await start(3);
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
