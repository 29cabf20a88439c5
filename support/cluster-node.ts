/**
 * One cluster node process: main.ts's composition (createStores from the environment,
 * createPlatform, ClusterNode and its membership, the gateway, the same SIGTERM sequence) with
 * extra areas mounted beside every real area: the chaos bench's records, the failover test's
 * tallies. main.ts mounts only actors/index.ts, so neither can add an area to it. Prints
 * `listening <port>` once it serves on 127.0.0.1:$PORT as node $NODE_ID.
 */
import { areas } from '../actors/index.ts';
import { startGateway } from '../gateway/index.ts';
import { type Area, createPlatform, MEMBERSHIP, stopPlatform } from '../kernel/index.ts';
import { ClusterNode } from '../runtime/cluster/index.ts';
import { SystemClock } from '../runtime/index.ts';
import { createStores, type ClusterStores } from '../stores/index.ts';

export async function runClusterNode(extra: readonly Area[]): Promise<void> {
  const env = process.env;
  const clock = new SystemClock();
  const stores = await createStores(env, () => clock.now());
  if (stores.mode !== 'cluster') throw new Error('a cluster node needs NATS_URL and REDIS_URL');
  const platform = await createPlatform({ areas: [...areas, ...extra], stores, clock, config: env });
  const node = new ClusterNode({ stores: stores as ClusterStores, nodeId: env.NODE_ID!, log: (m) => console.error(`[${env.NODE_ID}] ${m}`) });
  await node.start(platform.system);
  platform.services.provide(MEMBERSHIP, node); // a dead node's idempotency claims are taken over (docs/cluster.md)
  const gateway = await startGateway(platform, { host: '127.0.0.1', port: Number(env.PORT) });
  console.log(`listening ${gateway.port}`);

  process.on('SIGTERM', () => {
    void (async () => {
      await gateway.close(); // stops accepting; requests already taken are answered
      await node.drain(); // shards handed over
      await node.stop();
      await stopPlatform(platform);
      console.log('stopped cleanly');
      process.exit(0);
    })().catch((e) => {
      console.error('shutdown failed', e);
      process.exit(1);
    });
  });
}
