/**
 * The lease table's storage (DESIGN "Sharding"; docs/cluster.md "What runs where"): one NATS KV
 * bucket, reached only through this small face so the lease rules in leases.ts read without the
 * client's details and a test can stand a table with its own failures in its place.
 *
 * Every write but a heartbeat is a compare-and-set on the key's revision (the stream sequence of
 * its latest entry, which only grows), so a write names the one state it follows. `read` asks the
 * stream leader: with replicas, the bucket's direct gets may be answered by a replica that lags, and
 * a compare-and-set retried against a lagging read fails again.
 */
import { jetstreamManager, JetStreamApiCodes, JetStreamApiError, type JetStreamManager } from '@nats-io/jetstream';
import { Kvm, type KV, type KvEntry } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';

/**
 * A lease (`s.<shard>`) or a membership heartbeat (`n.<node>`); boot names the process that wrote
 * it. A heartbeat also names the remote-ask protocol its node speaks (wire.ts ASK_PROTOCOL); a
 * node from before there was more than one names none.
 */
export interface LeaseRecord {
  node: string;
  until: number;
  boot?: string;
  protocol?: number;
}

/** How a node opens its lease table, and what its membership heartbeat announces. */
export interface LeaseOptions {
  /** JetStream replicas of the bucket (default 1). */
  replicas?: number;
  /** The remote-ask protocol this node speaks (default 1: the one every node reads). */
  protocol?: number;
}

export interface BucketEntry {
  key: string;
  revision: number;
  /** Undefined for a deleted key. */
  value: LeaseRecord | undefined;
}

/** The key moved past the revision a compare-and-set named. */
export class StaleRevision extends Error {}

export interface LeaseBucket {
  /** Calls `entry` with every key's latest entry, then with each change; `ended` once it stops on its own. */
  watch(entry: (e: BucketEntry) => void, ended: (err?: unknown) => void): Promise<() => void>;
  /** The key's latest entry as the stream leader has it; undefined for a key never written. */
  read(key: string): Promise<BucketEntry | undefined>;
  /** Writes if the key's latest revision is `revision` (0: the key has none); StaleRevision otherwise. */
  write(key: string, value: LeaseRecord, revision: number, timeoutMs: number): Promise<number>;
  /** Writes unconditionally. */
  put(key: string, value: LeaseRecord, timeoutMs: number): Promise<number>;
  /** Deletes if the key's latest revision is `revision` (StaleRevision otherwise), or at any revision when none is named. */
  delete(key: string, revision?: number): Promise<void>;
  destroy(): Promise<void>;
}

const enc = (l: LeaseRecord) => new TextEncoder().encode(JSON.stringify(l));
const decode = (data: Uint8Array): LeaseRecord | undefined => (data.length ? (JSON.parse(new TextDecoder().decode(data)) as LeaseRecord) : undefined);

const isStale = (e: unknown): boolean =>
  (e instanceof JetStreamApiError && (e.code === JetStreamApiCodes.StreamWrongLastSequence || e.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown)) ||
  /wrong last sequence/i.test(String((e as Error)?.message));

const staleOr = (e: unknown): never => {
  throw isStale(e) ? new StaleRevision(String((e as Error).message)) : e;
};

class NatsLeaseBucket implements LeaseBucket {
  constructor(
    private readonly kv: KV,
    private readonly jsm: JetStreamManager,
    private readonly bucket: string,
  ) {}

  async watch(entry: (e: BucketEntry) => void, ended: (err?: unknown) => void): Promise<() => void> {
    const w = await this.kv.watch({ key: '>' });
    void (async () => {
      for await (const e of w) entry(fromKv(e));
    })().then(
      () => ended(),
      (err) => ended(err),
    );
    return () => w.stop();
  }

  async read(key: string): Promise<BucketEntry | undefined> {
    const m = await this.jsm.streams.getMessage(`KV_${this.bucket}`, { last_by_subj: `$KV.${this.bucket}.${key}` });
    if (!m) return undefined;
    const op = m.header?.get('KV-Operation');
    return { key, revision: m.seq, value: op === 'DEL' || op === 'PURGE' ? undefined : decode(m.data) };
  }

  write(key: string, value: LeaseRecord, revision: number, timeoutMs: number): Promise<number> {
    return this.kv.put(key, enc(value), { previousSeq: revision, timeout: timeoutMs }).catch(staleOr);
  }

  put(key: string, value: LeaseRecord, timeoutMs: number): Promise<number> {
    return this.kv.put(key, enc(value), { timeout: timeoutMs });
  }

  delete(key: string, revision?: number): Promise<void> {
    return this.kv.delete(key, revision === undefined ? {} : { previousSeq: revision }).catch(staleOr);
  }

  async destroy(): Promise<void> {
    await this.kv.destroy().catch(() => false);
  }
}

function fromKv(e: KvEntry): BucketEntry {
  return { key: e.key, revision: e.revision, value: e.operation === 'PUT' ? decode(e.value) : undefined };
}

/** The bucket `bucket` (created when missing, history 1, `replicas` copies). */
export async function openLeaseBucket(nc: NatsConnection, bucket: string, replicas: number): Promise<LeaseBucket> {
  const kv = await new Kvm(nc).create(bucket, { history: 1, replicas });
  return new NatsLeaseBucket(kv, await jetstreamManager(nc), bucket);
}
