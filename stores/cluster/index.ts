/**
 * Cluster store family (DESIGN "Stores", "Sharding"; docs/cluster.md "What runs where"). JetStream
 * holds everything that cannot be recomputed, replicated alike (NATS_REPLICAS): the journal,
 * readings, reminders (bucket `<ns>_reminders`) and key-value records (buckets `<ns>_records`
 * and `<ns>_idem`, kv-routes.ts). Redis holds what the journal gives back: snapshots, list
 * indexes, derived records and the reminders' due-time index. One namespace prefixes every
 * stream, subject, bucket and key.
 */
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { Redis } from 'ioredis';
import type { Now, Stores } from '../types.ts';
import { scanBucket } from './bucket-scan.ts';
import { DerivedGeneration } from './generation.ts';
import { RedisIndexes } from './indexes.ts';
import { JetStreamJournal } from './journal.ts';
import { JetStreamKeyValue, sweepBucket, type ReadCache } from './jetstream-kv.ts';
import { JetStreamReminders } from './jetstream-reminders.ts';
import { RedisKeyValue } from './kv.ts';
import { IDEMPOTENCY_BUCKET_MAX_AGE_MS, RoutedKeyValue } from './kv-routes.ts';
import { checkNamespace } from './names.ts';
import { PublishAcks } from './publish-acks.ts';
import { JetStreamReadings } from './readings.ts';
import { RedisSnapshots } from './snapshots.ts';
import { atTurnEnd } from './turn-outbox.ts';

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
  /** Where the stores say what went wrong while serving (the platform's log; standard error by default). */
  log?: StoreLog;
}

/** A store's account of a fault it rides out (a reconnect, a sweep that failed). */
export type StoreLog = (msg: string, err?: unknown) => void;

const standardError: StoreLog = (msg, err) => console.error(`[stores] ${msg}`, err ?? '');

export interface ClusterStores extends Stores {
  readonly mode: 'cluster';
  readonly namespace: string;
  /** JetStream replicas of this family's streams (the runtime's lease bucket uses the same). */
  readonly replicas: number;
  /** The connections, shared with the runtime's shard leases and remote asks. */
  readonly nats: NatsConnection;
  readonly redis: Redis;
  /**
   * Runs `send` (publishes on `nats` that catch their own errors) at the end of this event-loop
   * turn with the turn's journal appends, so the turn's publishes leave in one socket write.
   */
  atTurnEnd(send: () => void): void;
  /** The JetStream KV buckets of this namespace (move-to-cluster checks they are empty). */
  readonly buckets: readonly string[];
  /**
   * Deletes expired key-value records, purges delete markers in the records and reminders
   * buckets and puts every reminder in the due-time index again; runs by itself every SWEEP_MS
   * on one node at a time (a Redis lease).
   */
  sweep(): Promise<{ expired: number; markers: number; reminders: number }>;
}

/**
 * Credentials are read on every request: a node keeps one it found for a quarter second, so a hot
 * key costs four bucket reads a second, and a revocation reaches the other nodes within that.
 */
const CREDENTIAL_READS: ReadCache = { prefix: 'cred:', ms: 250, max: 10_000 };

/** How often a node offers to sweep the buckets: each sweep reads them whole. */
const SWEEP_MS = 10 * 60_000;

export async function createClusterStores(opts: ClusterStoreOptions): Promise<ClusterStores> {
  const ns = checkNamespace(opts.namespace ?? 'wf');
  const retention = opts.readingRetentionMs ?? 30 * 24 * 3600_000;
  const replicas = opts.replicas ?? 1;
  const { nc, redis } = await connectBoth(opts, ns);
  const jsm = await jetstreamManager(nc);
  const js = jetstream(nc);
  const journalNames = { stream: `${ns}_journal`, prefix: `${ns}.journal` };
  const readingNames = { stream: `${ns}_readings`, prefix: `${ns}.readings` };
  await JetStreamJournal.ensureStream(jsm, journalNames, replicas);
  await JetStreamReadings.ensureStream(jsm, readingNames, retention, replicas);
  // Direct gets may be answered by a lagging replica, so with replicas reads go to the leader
  // (a key issued on one node is found at once on the next), as the journal's do.
  const direct = opts.directReads ?? replicas === 1;
  const names = { records: `${ns}_records`, idem: `${ns}_idem`, reminders: `${ns}_reminders` };
  const bucket = bucketOpener(nc, jsm, { replicas, allow_direct: direct });
  const [recordsKv, idemKv, remindersKv] = await Promise.all([bucket(names.records), bucket(names.idem, IDEMPOTENCY_BUCKET_MAX_AGE_MS), bucket(names.reminders)]);
  // the journal's appends and the buckets' puts share one acknowledgement inbox (bucket-puts.ts)
  const acks = new PublishAcks(nc);
  const reminders = new JetStreamReminders(remindersKv, redis, ns, opts.now, (visit) => scanBucket(js, jsm, names.reminders, visit), acks);
  const sweep = () => sweepBuckets(js, jsm, opts.now, reminders, { records: [recordsKv, names.records], reminders: [remindersKv, names.reminders] });
  const sweeper = sweepNowAndThen(redis, ns, sweep, opts.log ?? standardError);

  const s: ClusterStores = {
    mode: 'cluster',
    durable: true,
    location: `NATS JetStream and Redis, namespace ${ns}`,
    namespace: ns,
    replicas,
    nats: nc,
    redis,
    atTurnEnd: (send) => atTurnEnd(nc, send),
    buckets: Object.values(names),
    sweep,
    journal: new JetStreamJournal(nc, js, jsm, journalNames, direct, acks),
    snapshots: new RedisSnapshots(redis, ns),
    reminders,
    kv: new RoutedKeyValue(new JetStreamKeyValue(recordsKv, opts.now, CREDENTIAL_READS, acks), new JetStreamKeyValue(idemKv, opts.now, undefined, acks), new RedisKeyValue(redis, ns, opts.now)),
    indexes: new RedisIndexes(redis, ns),
    derived: new DerivedGeneration(redis, ns),
    readings: new JetStreamReadings(js, jsm, readingNames, opts.now, retention, undefined, direct),
    async close() {
      clearInterval(sweeper);
      await Promise.all([s.journal.close(), s.snapshots.close(), s.reminders.close(), s.kv.close(), s.indexes.close(), s.readings.close()]);
      if (opts.ephemeral) await dropNamespace(s);
      await nc.drain().catch(() => nc.close());
      await redis.quit().catch(() => redis.disconnect());
    },
  };
  return s;
}

/** NATS (through any of several servers, reconnecting for ever) and Redis, or neither. */
async function connectBoth(opts: ClusterStoreOptions, ns: string): Promise<{ nc: NatsConnection; redis: Redis }> {
  const log = opts.log ?? standardError;
  // several servers, comma-separated: the node can connect through any of them when one is down
  const servers = opts.natsUrl.split(',').map((u) => u.trim()).filter(Boolean);
  const nc = await connect({ servers, name: opts.name, noAsyncTraces: true, maxReconnectAttempts: -1 });
  const redis = new Redis(opts.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 3, enableAutoPipelining: true });
  // ioredis reconnects by itself; an outage is logged once, not once per attempt.
  let redisDown = false;
  redis.on('error', (e: Error) => {
    if (!redisDown) log(`Redis of namespace ${ns} failed (${e.message}); reconnecting`);
    redisDown = true;
  });
  redis.on('ready', () => (redisDown = false));
  try {
    await redis.connect();
  } catch (err) {
    await nc.close();
    redis.disconnect();
    throw err;
  }
  return { nc, redis };
}

/** Opens a key-value bucket of the namespace, adding it when missing. */
function bucketOpener(nc: NatsConnection, jsm: JetStreamManager, base: { replicas: number; allow_direct: boolean }): (name: string, ttl?: number) => Promise<KV> {
  const kvm = new Kvm(nc);
  return async (name, ttl) => {
    const config = { history: 1, ...base, ...(ttl ? { ttl } : {}) };
    try {
      return await kvm.create(name, config);
    } catch (err) {
      // Two stores of one namespace starting at once (two nodes, a test's two members) both find
      // the bucket missing and both add it; the 2.9 server may refuse the later add with "subjects
      // overlap with an existing stream" (the earlier one's) or "already in use". The bucket is
      // then there: open it. A bucket still missing means another stream holds its subjects.
      if (!/subjects overlap|already in use/i.test(String((err as Error)?.message))) throw err;
      await jsm.streams.info(`KV_${name}`).catch(() => {
        throw err;
      });
      return kvm.create(name, config);
    }
  };
}

/** Every SWEEP_MS one node of the namespace (a Redis lease) sweeps the buckets. */
function sweepNowAndThen(redis: Redis, ns: string, sweep: () => Promise<unknown>, log: StoreLog): NodeJS.Timeout {
  return setInterval(() => {
    void redis
      .set(`${ns}:kv:sweep`, '1', 'PX', SWEEP_MS, 'NX')
      .then((won) => (won === 'OK' ? sweep() : undefined))
      .catch((e) => log(`sweeping the key-value buckets of ${ns} failed; the next period retries`, e));
  }, SWEEP_MS).unref();
}

async function sweepBuckets(js: JetStreamClient, jsm: JetStreamManager, now: Now, reminders: JetStreamReminders, b: { records: [KV, string]; reminders: [KV, string] }): Promise<{ expired: number; markers: number; reminders: number }> {
  const records = await sweepBucket(b.records[0], js, jsm, b.records[1], now());
  const timers = await sweepBucket(b.reminders[0], js, jsm, b.reminders[1]);
  return { expired: records.expired, markers: records.markers + timers.markers, reminders: await reminders.reindex() };
}

/**
 * Deletes every stream of the namespace (the journal and readings, the key-value and reminder
 * buckets, and the runtime's lease bucket KV_<ns>_shards) and every Redis key under it (tests).
 */
export async function dropNamespace(s: Pick<ClusterStores, 'nats' | 'redis' | 'namespace'>): Promise<void> {
  const ns = s.namespace;
  const jsm = await jetstreamManager(s.nats);
  const names: string[] = [];
  for await (const name of jsm.streams.names()) if (name.startsWith(`${ns}_`) || name.startsWith(`KV_${ns}_`)) names.push(name);
  await Promise.all(names.map((n) => jsm.streams.delete(n).catch(() => false)));
  await deleteKeys(s.redis, `${ns}:*`);
}

async function deleteKeys(redis: Redis, pattern: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    if (keys.length) await redis.unlink(...keys);
    cursor = next;
  } while (cursor !== '0');
}
