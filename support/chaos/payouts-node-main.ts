/**
 * One platform node for the payouts failover test: main.ts's composition (as support/cluster-node.ts
 * makes it) with the test-only passport fixture mounted beside every real area, and shard leases
 * sized for three node processes sharing two busy cores.
 *
 * The default lease (3 s, renewed every 750 ms: DESIGN "Sharding") lapses whenever a starved node
 * cannot renew for 2.5 s; on a machine running the whole suite that happened hundreds of times a
 * minute, every lapse passivating a shard and failing or delaying the asks in flight to it, so the
 * test spent its time on lease churn rather than on payouts. Here a lease lives 10 s (renewed each
 * second) and a remote ask may take 30 s: a node killed with SIGKILL still loses its shards about
 * 11 s after its last renewal, which is the failover the test is about. PAYOUTS_FAILOVER_LEASE_TTL_MS
 * overrides the lifetime (0: the defaults).
 */
import { areas } from '../../actors/index.ts';
import { startGateway } from '../../gateway/index.ts';
import { createPlatform, MEMBERSHIP } from '../../kernel/index.ts';
import { ClusterNode, type LeaseTimings } from '../../runtime/cluster/index.ts';
import { SystemClock } from '../../runtime/index.ts';
import { createStores, type ClusterStores } from '../../stores/index.ts';
import { payoutsFixtureArea } from './payouts-fixtures.ts';

const env = process.env;
const ttl = Number(env.PAYOUTS_FAILOVER_LEASE_TTL_MS ?? 10_000);
const timings: Partial<LeaseTimings> | undefined = ttl > 0 ? { ttlMs: ttl, renewMs: Math.max(250, Math.round(ttl / 10)), marginMs: Math.max(500, Math.round(ttl / 10)) } : undefined;

const clock = new SystemClock();
const stores = await createStores(env, () => clock.now());
if (stores.mode !== 'cluster') throw new Error('a cluster node needs NATS_URL and REDIS_URL');
const platform = await createPlatform({ areas: [...areas, payoutsFixtureArea], stores, clock, config: env });
const node = new ClusterNode({
  stores: stores as ClusterStores,
  nodeId: env.NODE_ID!,
  timings,
  requestTimeoutMs: ttl > 0 ? 30_000 : undefined,
  forwardWaitMs: ttl > 0 ? 60_000 : undefined,
  log: (m) => console.error(`[${env.NODE_ID}] ${m}`),
});
await node.start(platform.system);
platform.services.provide(MEMBERSHIP, node); // a dead node's idempotency claims are taken over (docs/cluster.md)
const gateway = await startGateway(platform, { host: '127.0.0.1', port: Number(env.PORT) });
console.log(`listening ${gateway.port}`);
