/**
 * `npm run operator -- move-to-cluster --data-dir DIR --nats URL --redis URL --namespace NS`
 * (DESIGN "Stores": "a user who outgrows one machine moves a local data directory into a cluster
 * with an operator command"). Runs offline: opening the local stores takes the directory's lock,
 * so a platform still serving it makes the move refuse.
 *
 * What is copied, in this order, so that a move stopped half-way leaves a namespace no platform
 * can sign in to (the key digests come last) rather than one that looks whole and is not:
 *
 * - the journal, in feed order: each run of one stream's consecutive events is one append with
 *   its expected version, so the cluster feed holds the same entries in the same order; both
 *   feeds are then read side by side to check it;
 * - snapshots, reminders, list memberships (copied, not rebuilt: derived records such as audit
 *   entries have lists no actor kind derives), and heartbeat readings;
 * - every key-value record with its remaining time to live (an expired one is left behind);
 *   a feed reader's cursor (`<name>:cursor`) names a local feed position, so it is written as the
 *   cluster position of the same entry, and reactions neither run again nor skip. A reader's
 *   lease (`<name>:lease`) belongs to a process, not to the data, and is not copied.
 *
 * Key-value records and reminders go through the cluster family's own stores, so each lands where
 * a node reads it: credentials, reservations, idempotency records, cursors and reminders in
 * JetStream buckets, derived records in Redis (stores/cluster/kv-routes.ts).
 *
 * A namespace whose journal stream or key-value buckets hold or have held a message, or that has
 * Redis keys, is refused: a platform reads the feed from the stream's first sequence, and two platforms' records
 * are never mixed.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import {
  createClusterStores,
  createLocalStores,
  type ClusterStores,
  type FeedEntry,
  type IndexOp,
  type Journal,
  type LocalDatabaseName,
  type LocalStores,
  type Now,
  type Reminder,
  type StoredEvent,
  type StoredReading,
} from '../stores/index.ts';

export interface MoveOptions {
  dataDir: string;
  natsUrl: string;
  redisUrl: string;
  namespace: string;
  /** JetStream replicas of the namespace's streams (as NATS_REPLICAS); default 1. */
  replicas?: number;
  /** The readings' window (as READING_RETENTION_MS); default the stores' own. */
  readingRetentionMs?: number;
  /** The clock the platform keeps its expiries on; default the system's. */
  now?: Now;
  log?: (line: string) => void;
}

export interface MoveCounts {
  streams: number;
  events: number;
  /** Journal messages written: one per run of a stream's consecutive events. */
  appends: number;
  snapshots: number;
  reminders: number;
  list_entries: number;
  readings: number;
  kv_records: number;
  kv_expired: number;
  /** Feed cursors written as cluster positions. */
  cursors: number;
  /** Records kept under a digest of an over-long key, left behind (see `named`). */
  unnamed: number;
  took_ms: number;
}

/** The move cannot start or could not finish as asked; the message says why and what to do. */
export class MoveRefusedError extends Error {}

/** Feed entries read per page, and writes in flight per store. */
const FEED_PAGE = 1_000;
const IN_FLIGHT = 256;
/** One append carries at most this many events and about this many bytes (JetStream's message cap is 4 MiB). */
const APPEND_EVENTS = 256;
const APPEND_BYTES = 1 << 20;
const CURSOR = /:cursor$/;
const LEASE = /:lease$/;

export async function moveToCluster(o: MoveOptions): Promise<MoveCounts> {
  const started = performance.now();
  const now = o.now ?? Date.now;
  const log = o.log ?? (() => {});
  if (!existsSync(join(o.dataDir, 'format.json'))) {
    throw new MoveRefusedError(`${o.dataDir} is not a platform data directory (it has no format.json); give the DATA_DIR the platform ran with`);
  }
  const local = createLocalStores({ dir: o.dataDir, now, readingRetentionMs: o.readingRetentionMs });
  try {
    const cluster = await createClusterStores({ natsUrl: o.natsUrl, redisUrl: o.redisUrl, now, namespace: o.namespace, replicas: o.replicas, readingRetentionMs: o.readingRetentionMs, name: 'operator-move' });
    try {
      await refuseUsedNamespace(cluster);
      const cursors = cursorsOf(local);
      const journal = await copyJournal(local, cluster, log);
      await mapCursors(local, cluster, cursors);
      log(`journal: ${journal.events} events of ${journal.streams} streams in ${journal.appends} appends, read back in order`);
      const unnamed = { n: 0 };
      const snapshots = await copySnapshots(local, cluster, unnamed);
      const reminders = await copyReminders(local, cluster);
      const lists = await copyLists(local, cluster, unnamed);
      const readings = await copyReadings(local, cluster, unnamed);
      log(`snapshots: ${snapshots}, reminders: ${reminders}, list entries: ${lists}, readings: ${readings}`);
      const kv = await copyKeyValues(local, cluster, cursors, now, unnamed);
      return {
        ...journal,
        snapshots,
        reminders,
        list_entries: lists,
        readings,
        kv_records: kv.copied,
        kv_expired: kv.expired,
        cursors: cursors.length,
        unnamed: unnamed.n,
        took_ms: Math.round(performance.now() - started),
      };
    } finally {
      await cluster.close();
    }
  } finally {
    await local.close();
  }
}

async function refuseUsedNamespace(cluster: ClusterStores): Promise<void> {
  const ns = cluster.namespace;
  const info = await (await jetstreamManager(cluster.nats)).streams.info(`${ns}_journal`);
  if (info.state.last_seq > 0) {
    throw new MoveRefusedError(`namespace ${ns} already has a journal (stream ${ns}_journal, ${info.state.messages} messages, last sequence ${info.state.last_seq}): move into a new namespace, or delete that one's streams and Redis keys (${ns}:*) first`);
  }
  // The key-value and reminder buckets hold credentials and timers: a record there is a platform's.
  for (const bucket of cluster.buckets) {
    const held = await (await jetstreamManager(cluster.nats)).streams.info(`KV_${bucket}`);
    if (held.state.last_seq > 0) throw new MoveRefusedError(`namespace ${ns} already has key-value records (bucket ${bucket}, last sequence ${held.state.last_seq}): move into a new namespace, or delete its streams first`);
  }
  let cursor = '0';
  do {
    const [next, keys] = await cluster.redis.scan(cursor, 'MATCH', `${ns}:*`, 'COUNT', 1000);
    if (keys.length) throw new MoveRefusedError(`namespace ${ns} already has Redis keys (${ns}:*): move into a new namespace, or delete them first`);
    cursor = next;
  } while (cursor !== '0');
}

interface Cursor {
  key: string;
  local: number;
  cluster: number;
}

/** Each stored feed cursor, with the cluster position it maps to (0 until an entry at or before it is copied). */
function cursorsOf(local: LocalStores): Cursor[] {
  const out: Cursor[] = [];
  for (const { key, value } of local.entries('kv')) {
    const v = (value as unknown[])[0];
    if (CURSOR.test(key as string) && typeof v === 'number') out.push({ key: key as string, local: v, cluster: 0 });
  }
  return out;
}

async function copyJournal(local: LocalStores, cluster: ClusterStores, log: (line: string) => void): Promise<{ streams: number; events: number; appends: number }> {
  let events = 0;
  let appends = 0;
  let run: { stream: string; events: StoredEvent[]; bytes: number } | undefined;
  const flush = async () => {
    if (!run) return;
    const { stream, events: batch } = run;
    run = undefined;
    await cluster.journal.append(stream, batch[0].version - 1, batch);
    events += batch.length;
    if (++appends % 10_000 === 0) log(`journal: ${events} events copied`);
  };
  for await (const { stream, event } of feedOf(local.journal)) {
    const bytes = JSON.stringify(event).length;
    const joins = run && run.stream === stream && run.events[run.events.length - 1].version + 1 === event.version && run.events.length < APPEND_EVENTS && run.bytes + bytes <= APPEND_BYTES;
    if (!joins) await flush();
    run ??= { stream, events: [], bytes: 0 };
    run.events.push(event);
    run.bytes += bytes;
  }
  await flush();
  // Every event is on the feed once: the streams' heads add up to the events copied.
  let streams = 0;
  let held = 0;
  for (const { version } of local.journal.streams()) (streams++, (held += version));
  if (held !== events) throw new MoveRefusedError(`the local journal's streams hold ${held} events but its feed ${events}; the directory is damaged (restore it from a backup)`);
  return { streams, events, appends };
}

/**
 * Reads both feeds side by side: the cluster's must hold the same events in the same order, and
 * each cursor takes the cluster position of the last entry at or before its local position.
 */
async function mapCursors(local: LocalStores, cluster: ClusterStores, cursors: Cursor[]): Promise<void> {
  const theirs = feedOf(cluster.journal)[Symbol.asyncIterator]();
  let n = 0;
  for await (const mine of feedOf(local.journal)) {
    const next = await theirs.next();
    n++;
    if (next.done || next.value.event.id !== mine.event.id || next.value.stream !== mine.stream) {
      throw new MoveRefusedError(`the cluster journal's entry ${n} is not the local one (${mine.stream} ${mine.event.id}): another writer used namespace ${cluster.namespace} during the move; delete it and move again`);
    }
    for (const c of cursors) if (mine.position <= c.local) c.cluster = next.value.position;
  }
  if (!(await theirs.next()).done) throw new MoveRefusedError(`the cluster journal holds more entries than the local one: another writer used namespace ${cluster.namespace} during the move; delete it and move again`);
}

async function* feedOf(journal: Journal): AsyncGenerator<FeedEntry> {
  for (let after = 0; ; ) {
    const page = await journal.readFeed(after, FEED_PAGE);
    if (page.length === 0) return;
    yield* page;
    after = page[page.length - 1].position;
  }
}

/** Runs the writes `each` makes for every item, IN_FLIGHT at a time; returns how many it wrote. */
async function inFlight<T>(items: Iterable<T>, each: (item: T) => Promise<unknown> | undefined): Promise<number> {
  let pending: Promise<unknown>[] = [];
  let n = 0;
  for (const item of items) {
    const p = each(item);
    if (!p) continue;
    n++;
    pending.push(p);
    if (pending.length >= IN_FLIGHT) {
      await Promise.all(pending);
      pending = [];
    }
  }
  await Promise.all(pending);
  return n;
}

/** A record whose key keeps its name, with the key's parts. */
interface Named {
  key: string;
  parts: string[];
  value: unknown;
}

/**
 * The records of a database whose keys keep their names. The local family keeps a record under an
 * over-long key (only hostile input makes one) by a digest of it; no other store could find it
 * under that, so it is counted in `unnamed` and left behind.
 */
function* named(local: LocalStores, db: LocalDatabaseName, unnamed: { n: number }): Generator<Named> {
  for (const { key, value } of local.entries(db)) {
    const parts = local.keyParts(key as string);
    if (parts) yield { key: key as string, parts, value };
    else unnamed.n++;
  }
}

function copySnapshots(local: LocalStores, cluster: ClusterStores, unnamed: { n: number }): Promise<number> {
  return inFlight(named(local, 'snapshots', unnamed), ({ key, value }) => {
    const [version, blob] = value as [number, Uint8Array];
    return cluster.snapshots.save(key, version, blob);
  });
}

/** A reminder holds its own key, so a digested one moves too. */
function copyReminders(local: LocalStores, cluster: ClusterStores): Promise<number> {
  return inFlight(local.entries('reminders'), ({ value }) => cluster.reminders.put(value as Reminder));
}

/**
 * Each member (list, sort key, id) is one put, applied 500 at a time. Members, not places: the
 * local family keeps no place for what the runtime and the derived records write (stores/types.ts
 * IndexStore keepsNoPlaces).
 */
async function copyLists(local: LocalStores, cluster: ClusterStores, unnamed: { n: number }): Promise<number> {
  let n = 0;
  await inFlight(chunks(named(local, 'index-members', unnamed), () => true), (chunk) => {
    const ops = chunk.map(({ parts: [list, sortKey, id] }): IndexOp => ({ op: 'put', list, id, sortKey, fresh: true }));
    n += ops.length;
    return cluster.indexes.apply(ops);
  });
  return n;
}

/**
 * A worker's readings in one message per 500, in recorded order. Those past the window are copied
 * too: the local store drops them at the worker's next append, the cluster's when read, both by
 * the window the platform is started with.
 */
async function copyReadings(local: LocalStores, cluster: ClusterStores, unnamed: { n: number }): Promise<number> {
  let n = 0;
  await inFlight(chunks(named(local, 'readings', unnamed), (a, b) => a.parts[0] === b.parts[0]), (chunk) => {
    n += chunk.length;
    return cluster.readings.append(chunk[0].parts[0], chunk.map((e) => e.value as StoredReading));
  });
  return n;
}

/** Consecutive entries in groups of at most 500 that `together` accepts, read as they are written. */
function* chunks<T>(entries: Iterable<T>, together: (first: T, next: T) => boolean): Generator<T[]> {
  let chunk: T[] = [];
  for (const e of entries) {
    if (chunk.length === 500 || (chunk.length > 0 && !together(chunk[0], e))) {
      yield chunk;
      chunk = [];
    }
    chunk.push(e);
  }
  if (chunk.length) yield chunk;
}

async function copyKeyValues(local: LocalStores, cluster: ClusterStores, cursors: Cursor[], now: Now, unnamed: { n: number }): Promise<{ copied: number; expired: number }> {
  const mapped = new Map(cursors.map((c) => [c.key, c.cluster]));
  let expired = 0;
  const t = now();
  const copied = await inFlight(named(local, 'kv', unnamed), ({ key: k, value }) => {
    const held = value as [unknown] | [unknown, number];
    if (LEASE.test(k)) return undefined;
    if (held.length === 2 && held[1] <= t) {
      expired++;
      return undefined;
    }
    const v = mapped.has(k) ? mapped.get(k) : held[0];
    return cluster.kv.set(k, v, held.length === 2 ? held[1] - t : undefined);
  });
  return { copied, expired };
}
