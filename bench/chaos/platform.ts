/**
 * One scenario's own platform: a NATS of its own (a lone JetStream server, or a three-server
 * cluster), a redis-server of its own (with or without an fsynced append-only file), three node
 * processes on them, the bench's own store connection (to read the journal, the source of truth),
 * and one registered organisation. Everything is started on free loopback ports and stopped by its
 * PID; the shared NATS and Redis are never touched.
 */
import { rmSync } from 'node:fs';
import { createClusterStores, type ClusterStores } from '../../stores/index.ts';
import { NatsCluster, NodeProcesses, OwnRedis, type Proc } from '../../support/chaos/index.ts';
import { tempDir } from '../../support/stores.ts';
import { call, closeAgents } from './client.ts';

export interface PlatformOptions {
  name: string;
  /** NATS servers: 1 (replicas 1) or 3 (nodes on NATS_REPLICAS=3). */
  natsServers: 1 | 3;
  /** Redis with an append-only file fsynced on every write, in a directory of its own. */
  redisPersistent?: boolean;
  /** The node main; support/chaos-node.ts (every area plus the bench record) by default. */
  main?: string;
  env?: Record<string, string>;
  nodeArgs?: string[];
}

export interface ChaosPlatform {
  namespace: string;
  nats: NatsCluster;
  redis: OwnRedis;
  nodes: NodeProcesses;
  procs: Proc[];
  stores: ClusterStores;
  apiKey: string;
  org: string;
  close(): Promise<void>;
}

export async function startPlatform(o: PlatformOptions): Promise<ChaosPlatform> {
  const namespace = `chaos_${o.name.replace(/[^a-z0-9]/g, '')}_${process.pid}`;
  const nats = new NatsCluster();
  const redisDir = o.redisPersistent ? tempDir('wf-chaos-redis-') : undefined;
  let redis: OwnRedis | undefined;
  let nodes: NodeProcesses | undefined;
  let stores: ClusterStores | undefined;
  const close = async () => {
    await nodes?.killAll();
    await stores?.close().catch(() => {});
    await redis?.stop();
    await nats.stopAll();
    if (redisDir) rmSync(redisDir, { recursive: true, force: true });
    closeAgents();
  };
  try {
    await nats.start(o.natsServers);
    redis = await OwnRedis.start({ persistDir: redisDir });
    const replicas = o.natsServers;
    const allNats = nats.servers.map((s) => s.url).join(',');
    stores = await createClusterStores({ natsUrl: allNats, redisUrl: redis.url, now: () => Date.now(), namespace, replicas, name: `chaos-bench-${o.name}` });
    const env = { REDIS_URL: redis.url, NATS_REPLICAS: String(replicas), ...o.env };
    // Each node talks to its own server first (its client learns the others from the server's INFO).
    const groups = [0, 1, 2].map((i) => new NodeProcesses(namespace, o.main ?? 'support/chaos-node.ts', { logDir: process.env.BENCH_CHAOS_LOG_DIR, nodeArgs: o.nodeArgs, env: { ...env, NATS_URL: nats.url(i % o.natsServers) } }));
    const procs = await Promise.all(['c1', 'c2', 'c3'].map((id, i) => groups[i].start(id)));
    nodes = new NodeProcesses(namespace, '');
    nodes.procs.push(...procs);
    const reg = await call(procs[0].port, 'POST', '/v1/registrations', {}, { organisation_name: `Chaos ${o.name}`, name: 'Ada Obi', email: `chaos.${o.name}.${process.pid}@example.ng`, password: 'violet-harmattan-7-kettle' });
    if (reg.status !== 200) throw new Error(`registration failed: ${reg.status} ${JSON.stringify(reg.body)}`);
    return { namespace, nats, redis, nodes, procs: nodes.procs, stores, apiKey: reg.body.api_key.key, org: reg.body.organisation.id, close };
  } catch (e) {
    await close();
    throw e;
  }
}
