/**
 * Cluster store family (DESIGN "Sharding"): journal and readings on NATS JetStream, snapshots, reminders,
 * key-value and list indexes on Redis. One namespace prefixes every stream, subject and key.
 */
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { Redis } from 'ioredis';
import type { Now, Stores } from '../types.ts';
import { RedisIndexes } from './indexes.ts';
import { JetStreamJournal } from './journal.ts';
import { RedisKeyValue } from './kv.ts';
import { checkNamespace } from './names.ts';
import { JetStreamReadings } from './readings.ts';
import { RedisReminders } from './reminders.ts';
import { RedisSnapshots } from './snapshots.ts';

export interface ClusterStoreOptions {
  natsUrl: string;
  redisUrl: string;
  now: Now;
  /** Prefix of every stream, subject and key; default `wf`. */
  namespace?: string;
  readingRetentionMs?: number;
  /** JetStream replicas of the two streams; default 1. */
  replicas?: number;
  /** Read journal messages with direct gets (any replica); default: only with one replica. */
  directReads?: boolean;
  /** Delete every stream and key of the namespace on close (tests). */
  ephemeral?: boolean;
  /** Name shown in the NATS connection list. */
  name?: string;
}

export interface ClusterStores extends Stores {
  readonly mode: 'cluster';
  readonly namespace: string;
  /** JetStream replicas of this family's streams (the runtime's lease bucket uses the same). */
  readonly replicas: number;
  /** The connections, shared with the runtime's shard leases and remote asks. */
  readonly nats: NatsConnection;
  readonly redis: Redis;
}

export async function createClusterStores(opts: ClusterStoreOptions): Promise<ClusterStores> {
  const ns = checkNamespace(opts.namespace ?? 'wf');
  const retention = opts.readingRetentionMs ?? 30 * 24 * 3600_000;
  const replicas = opts.replicas ?? 1;
  // several servers, comma-separated: the node can connect through any of them when one is down
  const servers = opts.natsUrl.split(',').map((u) => u.trim()).filter(Boolean);
  const nc = await connect({ servers, name: opts.name, noAsyncTraces: true, maxReconnectAttempts: -1 });
  const redis = new Redis(opts.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 3, enableAutoPipelining: true });
  try {
    await redis.connect();
  } catch (err) {
    await nc.close();
    redis.disconnect();
    throw err;
  }
  const jsm = await jetstreamManager(nc);
  const js = jetstream(nc);
  const journalNames = { stream: `${ns}_journal`, prefix: `${ns}.journal` };
  const readingNames = { stream: `${ns}_readings`, prefix: `${ns}.readings` };
  await JetStreamJournal.ensureStream(jsm, journalNames, replicas);
  await JetStreamReadings.ensureStream(jsm, readingNames, retention, replicas);

  const s: ClusterStores = {
    mode: 'cluster',
    durable: true,
    location: `NATS JetStream and Redis, namespace ${ns}`,
    namespace: ns,
    replicas,
    nats: nc,
    redis,
    journal: new JetStreamJournal(nc, js, jsm, journalNames, opts.directReads ?? replicas === 1),
    snapshots: new RedisSnapshots(redis, ns),
    reminders: new RedisReminders(redis, ns, opts.now),
    kv: new RedisKeyValue(redis, ns, opts.now),
    indexes: new RedisIndexes(redis, ns),
    readings: new JetStreamReadings(js, jsm, readingNames, opts.now, retention, undefined, opts.directReads ?? replicas === 1),
    async close() {
      await Promise.all([s.journal.close(), s.snapshots.close(), s.reminders.close(), s.kv.close(), s.indexes.close(), s.readings.close()]);
      if (opts.ephemeral) {
        // Every stream of the namespace: the two above and the runtime's lease bucket (KV_<ns>_shards).
        const names: string[] = [];
        for await (const name of jsm.streams.names()) if (name.startsWith(`${ns}_`) || name.startsWith(`KV_${ns}_`)) names.push(name);
        await Promise.all(names.map((n) => jsm.streams.delete(n).catch(() => false)));
        await deleteKeys(redis, `${ns}:*`);
      }
      await nc.drain().catch(() => nc.close());
      await redis.quit().catch(() => redis.disconnect());
    },
  };
  return s;
}

async function deleteKeys(redis: Redis, pattern: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    if (keys.length) await redis.unlink(...keys);
    cursor = next;
  } while (cursor !== '0');
}
