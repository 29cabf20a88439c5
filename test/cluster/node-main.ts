/**
 * One platform node for the failover test: main.ts's composition (createStores from the
 * environment, createPlatform, ClusterNode, gateway, the same SIGTERM sequence) with the
 * test-only tally area mounted beside every real area. main.ts mounts only actors/index.ts, so
 * the test cannot add an area to it.
 */
import { areas } from '../../actors/index.ts';
import { startGateway } from '../../gateway/index.ts';
import { ClusterNode } from '../../runtime/cluster/index.ts';
import { createPlatform, stopPlatform } from '../../kernel/index.ts';
import { SystemClock } from '../../runtime/index.ts';
import { createStores, type ClusterStores } from '../../stores/index.ts';
import { tallyArea } from './tally.ts';

const env = process.env;
const clock = new SystemClock();
const stores = await createStores(env, () => clock.now());
if (stores.mode !== 'cluster') throw new Error('node-main needs NATS_URL and REDIS_URL');
const platform = await createPlatform({ areas: [...areas, tallyArea], stores, clock, config: env });
const node = new ClusterNode({ stores: stores as ClusterStores, nodeId: env.NODE_ID!, log: (m) => console.error(`[${env.NODE_ID}] ${m}`) });
await node.start(platform.system);
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
