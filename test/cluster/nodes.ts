/**
 * In-process cluster nodes for tests (DESIGN "Sharding"): each with its own NATS and Redis
 * connections, actor system and lease loop, on one namespace, with short lease timings. Leases run
 * on wall time (they are about live processes); actor time is the cluster's ManualClock.
 */
import { ActorSystem, type AnyActorDef, type ManualClock } from '../../runtime/index.ts';
import { ClusterNode, type LeaseTimings } from '../../runtime/cluster/index.ts';
import type { ClusterStores } from '../../stores/index.ts';
import { until } from '../../support/until.ts';
import { clusterTestStores } from '../../support/stores.ts';

export const TEST_SHARDS = 32;
export const FAST: LeaseTimings = { ttlMs: 1500, renewMs: 300, tickMs: 100, marginMs: 200, joinMs: 300 };

export interface Member {
  id: string;
  stores: ClusterStores;
  system: ActorSystem;
  node: ClusterNode;
  alive: boolean;
}

export class TestCluster {
  readonly members: Member[] = [];

  constructor(
    readonly namespace: string,
    readonly clock: ManualClock,
    private readonly kinds: readonly AnyActorDef[],
  ) {}

  /** Adds members `node1..n`; resolves once every shard has its owner. */
  async grow(n: number): Promise<Member[]> {
    await Promise.all(Array.from({ length: n }, (_, i) => this.add(`node${i + 1}`)));
    await until(() => this.fullyOwned(), 10_000);
    return this.members;
  }

  /** Adds member `id`; `askProtocol` 1 stands in for a node from before batched asks (ClusterNodeOptions). */
  async add(id: string, opts: { askProtocol?: number } = {}): Promise<Member> {
    const stores = await clusterTestStores(this.clock, { namespace: this.namespace, ephemeral: false });
    const system = new ActorSystem({ stores, clock: this.clock, kinds: this.kinds, log: () => {} });
    await system.start();
    const log = process.env.CLUSTER_TEST_LOG ? (m: string, e?: unknown) => console.log(id, m, e ?? '') : () => {};
    const node = new ClusterNode({ stores, nodeId: id, shards: TEST_SHARDS, timings: FAST, log, askProtocol: opts.askProtocol });
    await node.start(system);
    const m = { id, stores, system, node, alive: true };
    this.members.push(m);
    return m;
  }

  /** Every shard held by exactly one of `among` (the live members by default). */
  fullyOwned(among: readonly Member[] = this.members.filter((m) => m.alive)): boolean {
    const owners = new Map<number, string>();
    for (const m of among) {
      for (const s of m.node.leases.heldShards()) {
        if (owners.has(s)) return false;
        owners.set(s, m.id);
      }
    }
    return owners.size === TEST_SHARDS;
  }

  /** A crash: no more renewals, no goodbye, the connection gone. */
  async crash(m: Member): Promise<void> {
    m.alive = false;
    // A dead process does nothing more: its lease loop and its reaction dispatcher stop with it.
    await m.system.setReactionDispatch(false);
    await m.node.leases.stop();
    await m.stores.nats.close();
    m.stores.redis.disconnect();
  }

  /** Stops the live members and deletes the namespace. */
  async close(): Promise<void> {
    for (const m of this.members) {
      if (!m.alive) continue; // a crashed member's system stays attached to its test's own clock only
      await m.node.stop().catch(() => {});
      await m.system.stop().catch(() => {});
      await m.stores.close().catch(() => {});
    }
    const cleanup = await clusterTestStores(this.clock, { namespace: this.namespace, ephemeral: true });
    await cleanup.close();
  }
}
