/**
 * Key-value records in a NATS KV bucket (DESIGN "Stores": credentials, email reservations,
 * sessions and idempotency records live in JetStream, replicated with the journal). The 2.9 server
 * keeps no per-key TTL, so a record holds its expiry on the injected clock (`e`, -1 for none) next
 * to its value, and every read decides expiry against it, as the memory and Redis stores do; a
 * sweep deletes the expired ones (a bucket whose records all share one lifetime has a max age
 * instead and needs none).
 *
 * Every conditional write is a compare-and-set on the key's revision (the stream sequence of its
 * latest entry; 0 for a key never written), so setIfAbsent and compareAndSet are atomic across
 * nodes: a write that meets a newer revision reads the key again and decides again.
 */
import { randomBytes } from 'node:crypto';
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { KV, KvEntry } from '@nats-io/kv';
import { bucketPut, refusedRevision, type BucketPut } from './bucket-puts.ts';
import { scanBucket, type BucketEntry } from './bucket-scan.ts';
import { pack, unpack } from './codec.ts';
import { rideOut } from './election.ts';
import { kvKeyOf } from './names.ts';
import { forgetOldest } from './oldest-first.ts';
import type { PublishAcks } from './publish-acks.ts';
import { StoreUnavailableError, type KeyValueStore, type Now, type Scalar } from '../types.ts';

/**
 * A stored record: its expiry (-1 none) and its value, or an integer counter (`n`) for incr. A
 * record whose encoding passes CHUNK_BYTES (a signed 10,000-line payout document, a large
 * idempotent answer) is written as chunks under `=C.<id>.<i>` first and then as its entry naming
 * them (`p`: id and count), since a NATS message is at most the server's max_payload (1 MiB by
 * default). kvKeyOf never writes a first token `=C`, so chunks never meet a record's key.
 */
interface Held {
  e: number;
  v?: unknown;
  n?: number;
  p?: [string, number];
}

/** Chunk size: well under the default max_payload, with room for headers. */
const CHUNK_BYTES = 256 * 1024;
const CHUNK_PREFIX = '=C.';
/** A chunk no entry names is deleted by the sweep once this old (a writer may be between its chunks and its entry). */
const CHUNK_GRACE_MS = 10 * 60_000;

interface Read {
  /** The key's latest revision; 0 when it has none (never written, or its delete marker purged). */
  revision: number;
  /** Undefined when deleted or expired. */
  held: Held | undefined;
}

/**
 * A JetStream fault that is not a refused revision, after riding out an election (election.ts):
 * the caller may retry (a 503, never a 500).
 */
function fault(e: unknown): never {
  if (e instanceof StoreUnavailableError) throw e;
  throw new StoreUnavailableError(`JetStream key-value: ${(e as Error)?.message ?? String(e)}`, { cause: e });
}

/**
 * Records read on every request (credentials) may be kept on the node for `ms` of wall time after
 * a read, about `max` of them (up to an eighth more, the oldest let go first): a hot key costs one
 * bucket read per period instead of one per request. Only what was found is kept (a key issued on
 * another node is found at once), its own expiry still decides on every read, and a write through
 * this node drops it, so a revocation is seen at once here and within `ms` on the other nodes.
 */
export interface ReadCache {
  prefix: string;
  ms: number;
  max: number;
}

interface Cached {
  held: Held;
  until: number;
}

export class JetStreamKeyValue implements KeyValueStore {
  private readonly cached = new Map<string, Cached>();
  /** Reads of cached keys in flight: a write meanwhile removes its key, and that read is not kept. */
  private readonly reading = new Map<string, object>();

  private readonly put: BucketPut;

  constructor(
    private readonly kv: KV,
    private readonly now: Now,
    private readonly cache?: ReadCache,
    /** The node's publishes acknowledged through one inbox: the bucket's puts go through it (bucket-puts.ts). */
    acks?: PublishAcks,
  ) {
    this.put = bucketPut(kv, acks);
  }

  async get<T = unknown>(key: string): Promise<T | undefined> {
    const k = kvKeyOf(key);
    const hit = this.cache && key.startsWith(this.cache.prefix) ? this.cachedHeld(k) : undefined;
    let held = hit;
    if (!hit) {
      const cacheable = this.cache !== undefined && key.startsWith(this.cache.prefix);
      const token = {};
      if (cacheable) this.reading.set(k, token);
      try {
        held = (await this.read(k)).held;
        if (held && cacheable && this.reading.get(k) === token) this.keep(k, held);
      } finally {
        if (cacheable && this.reading.get(k) === token) this.reading.delete(k);
      }
    }
    if (!held || (held.e >= 0 && held.e <= this.now())) return undefined;
    return (held.n !== undefined ? held.n : held.v) as T;
  }

  async set(key: string, value: unknown, ttlMs?: number): Promise<void> {
    const k = kvKeyOf(key);
    if (value === undefined) return this.remove(k);
    const held: Held = { e: this.expiresAt(ttlMs), v: value };
    await this.writing(k, async () => {
      const data = await this.encode(held);
      await rideOut('put', () => this.put(k, data)).catch(fault);
    });
  }

  async setIfAbsent(key: string, value: unknown, ttlMs?: number): Promise<boolean> {
    const k = kvKeyOf(key);
    // Most claims are of a key never written (an Idempotency-Key, a new email): one round trip.
    if (await this.write(k, 0, { e: this.expiresAt(ttlMs), v: value })) return true;
    for (;;) {
      const r = await this.read(k);
      if (r.held) return false;
      if (await this.write(k, r.revision, { e: this.expiresAt(ttlMs), v: value })) return true;
    }
  }

  async compareAndSet(key: string, expected: Scalar | undefined, value: Scalar | undefined, ttlMs?: number): Promise<boolean> {
    const k = kvKeyOf(key);
    for (;;) {
      const r = await this.read(k);
      const current = r.held ? (r.held.n !== undefined ? r.held.n : r.held.v) : undefined;
      if (current !== expected) return false;
      if (await this.write(k, r.revision, value === undefined ? undefined : { e: this.expiresAt(ttlMs), v: value })) return true;
    }
  }

  async delete(key: string): Promise<void> {
    await this.remove(kvKeyOf(key));
  }

  /** A counter keeps the expiry it has; an expired or absent one counts from 0 with none. */
  async incr(key: string, by = 1): Promise<number> {
    const k = kvKeyOf(key);
    for (;;) {
      const r = await this.read(k);
      const held = r.held;
      const was = held ? Number(held.n ?? held.v) || 0 : 0;
      if (await this.write(k, r.revision, { e: held ? held.e : -1, n: was + by })) return was + by;
    }
  }

  async close(): Promise<void> {}

  private async read(k: string): Promise<Read> {
    const e = await rideOut('read', () => this.kv.get(k)).catch(fault);
    if (!e) return { revision: 0, held: undefined };
    if (e.operation !== 'PUT') return { revision: e.revision, held: undefined };
    const held = decode(e);
    if (!held || (held.e >= 0 && held.e <= this.now())) return { revision: e.revision, held: undefined };
    return { revision: e.revision, held: held.p ? await this.assemble(held.p) : held };
  }

  private async encode(held: Held): Promise<Uint8Array> {
    const blob = pack(held);
    if (blob.length <= CHUNK_BYTES) return blob;
    const id = randomBytes(12).toString('base64url');
    const n = Math.ceil(blob.length / CHUNK_BYTES);
    await Promise.all(Array.from({ length: n }, (_, i) => rideOut('put', () => this.put(`${CHUNK_PREFIX}${id}.${i}`, blob.subarray(i * CHUNK_BYTES, (i + 1) * CHUNK_BYTES))))).catch(fault);
    return pack({ e: held.e, p: [id, n] } satisfies Held);
  }

  /** The record whose chunks `p` names; they stay while named and a grace period after. */
  private async assemble([id, n]: [string, number]): Promise<Held> {
    const parts = await Promise.all(Array.from({ length: n }, (_, i) => rideOut('read', () => this.kv.get(`${CHUNK_PREFIX}${id}.${i}`)))).catch(fault);
    if (parts.some((p) => !p || p.operation !== 'PUT')) throw new StoreUnavailableError(`JetStream key-value: a chunk of ${id} is missing`);
    return unpack(Buffer.concat(parts.map((p) => p!.value))) as Held;
  }


  /** Writes (or deletes, for undefined) at `revision`; false when the key moved past it. */
  private write(k: string, revision: number, held: Held | undefined): Promise<boolean> {
    return this.writing(k, async () => {
      try {
        if (held) {
          const data = await this.encode(held);
          await rideOut('cas', () => this.put(k, data, revision));
        } else if (revision > 0) await rideOut('cas', () => this.kv.delete(k, { previousSeq: revision }));
        return true;
      } catch (e) {
        if (refusedRevision(e)) return false;
        return fault(e);
      }
    });
  }

  private async remove(k: string): Promise<void> {
    await this.writing(k, () => rideOut('put', () => this.kv.delete(k)).catch(fault));
  }

  /** Drops `k` from the read cache before a write and again once it landed, so no read from before it is kept. */
  private async writing<T>(k: string, op: () => Promise<T>): Promise<T> {
    this.forget(k);
    try {
      return await op();
    } finally {
      this.forget(k);
    }
  }

  private forget(k: string): void {
    this.cached.delete(k);
    this.reading.delete(k);
  }

  private cachedHeld(k: string): Held | undefined {
    const c = this.cached.get(k);
    if (!c) return undefined;
    if (c.until > performance.now()) return c.held;
    this.cached.delete(k);
    return undefined;
  }

  private keep(k: string, held: Held): void {
    const cache = this.cache!;
    this.cached.delete(k); // re-inserted last: the oldest read goes first when full
    this.cached.set(k, { held, until: performance.now() + cache.ms });
    forgetOldest(this.cached, cache.max);
  }

  private expiresAt(ttlMs: number | undefined): number {
    return ttlMs === undefined ? -1 : this.now() + ttlMs;
  }
}

function decode(e: KvEntry): Held | undefined {
  return e.value.length ? (unpack(e.value) as Held) : undefined;
}

/**
 * Deletes every record expired at `now` (each only at the revision read, so one written again
 * meanwhile stays) and every chunk no record names past its grace, and purges every delete marker
 * up to its own sequence (a key written after it keeps its entry), so a bucket does not keep one
 * marker per key it ever held. Without `now` (the reminders bucket) only markers go. Reads the
 * whole bucket: the cluster family runs it rarely, on one node at a time.
 */
export async function sweepBucket(kv: KV, js: JetStreamClient, jsm: JetStreamManager, bucket: string, now?: number): Promise<{ expired: number; markers: number }> {
  const lapsed: BucketEntry[] = [];
  const markers: BucketEntry[] = [];
  const chunks: BucketEntry[] = [];
  const named = new Set<string>();
  try {
    await scanBucket(js, jsm, bucket, (e) => {
      if (e.operation !== 'PUT') markers.push(e);
      else if (now === undefined || !e.value.length) return;
      else if (e.key.startsWith(CHUNK_PREFIX)) chunks.push(e);
      else {
        const held = unpack(e.value) as Held;
        if (held.e >= 0 && held.e <= now) lapsed.push(e);
        else if (held.p) named.add(held.p[0]);
      }
    });
    const old = Date.now() - CHUNK_GRACE_MS;
    for (const c of chunks) if (!named.has(c.key.split('.')[1]) && c.created.getTime() < old) lapsed.push(c);
    let n = 0;
    for (const e of lapsed) {
      try {
        await kv.delete(e.key, { previousSeq: e.revision });
        n++;
      } catch (err) {
        if (!refusedRevision(err)) throw err;
      }
    }
    for (const e of markers) await jsm.streams.purge(`KV_${bucket}`, { filter: `$KV.${bucket}.${e.key}`, seq: e.revision + 1 });
    return { expired: n, markers: markers.length };
  } catch (e) {
    return fault(e);
  }
}
