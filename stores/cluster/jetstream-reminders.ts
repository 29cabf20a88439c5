/**
 * Reminders in a NATS KV bucket, indexed by due time in Redis (DESIGN "Stores": reminders are kept
 * in JetStream; Redis may index them). The bucket is the truth: one entry per reminder key holding
 * the reminder and its claim's lease end on the injected clock (`c`, 0 for none). Claim, complete
 * and postpone are compare-and-sets on the entry's revision, so two nodes never both fire one
 * generation and completing a fired reminder never removes its replacement.
 *
 * The Redis sorted set `<ns>:rem:due` only says where to look: `due` reads each listed key from the
 * bucket, drops a member the bucket no longer holds and moves one whose time changed. An index
 * with no `<ns>:rem:indexed` marker (Redis restarted empty, or never built) is rebuilt from the
 * bucket before it is read, so losing Redis costs one read of the bucket, never a timer. A member
 * is removed from the index only after its entry is gone, and read back after, so a replacement
 * put meanwhile keeps its place.
 *
 * Kept in JetStream rather than re-derived from actor state on activation: an actor with a timer
 * may never be activated again (nothing else addresses an expired consent token), so only a store
 * that keeps the timer itself can fire it.
 */
import { randomBytes } from 'node:crypto';
import type { KV, KvEntry } from '@nats-io/kv';
import { bucketPut, refusedRevision, type BucketPut } from './bucket-puts.ts';
import type { BucketEntry } from './bucket-scan.ts';
import type { Redis } from 'ioredis';
import { pack, unpack } from './codec.ts';
import { rideOut } from './election.ts';
import { kvKeyOf } from './names.ts';
import type { PublishAcks } from './publish-acks.ts';
import { StoreUnavailableError, type Now, type Reminder, type ReminderStore } from '../types.ts';

/** A build claims the index this long; a node killed mid-build lets another start after it. */
const BUILD_LEASE_MS = 60_000;

interface Held {
  r: Reminder;
  /** Lease end of the current claim on the injected clock; 0 for none. */
  c: number;
}

function fault(e: unknown): never {
  if (e instanceof StoreUnavailableError) throw e;
  throw new StoreUnavailableError(`JetStream reminders: ${(e as Error)?.message ?? String(e)}`, { cause: e });
}

/** Sets the marker to `built` only if this build still holds it (a flush meanwhile removed it). */
const FINISH_BUILD = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('SET', KEYS[1], 'built') return 1 end
return 0`;

export class JetStreamReminders implements ReminderStore {
  private readonly dueKey: string;
  private readonly marker: string;
  private readonly bucketPut: BucketPut;

  constructor(
    private readonly kv: KV,
    private readonly redis: Redis,
    prefix: string,
    private readonly now: Now,
    /** Reads the bucket whole (bucket-scan.ts). */
    private readonly scan: (visit: (e: BucketEntry) => void) => Promise<void>,
    /** The node's publishes acknowledged through one inbox: the bucket's puts go through it (bucket-puts.ts). */
    acks?: PublishAcks,
  ) {
    this.bucketPut = bucketPut(kv, acks);
    this.dueKey = `${prefix}:rem:due`;
    this.marker = `${prefix}:rem:indexed`;
  }

  async put(r: Reminder): Promise<void> {
    await rideOut('put', () => this.bucketPut(kvKeyOf(r.key), pack({ r, c: 0 } satisfies Held))).catch(fault);
    await this.redis.zadd(this.dueKey, r.dueAt, r.key);
  }

  async get(key: string): Promise<Reminder | undefined> {
    return (await this.read(key)).held?.r;
  }

  async cancel(key: string): Promise<void> {
    await rideOut('put', () => this.kv.delete(kvKeyOf(key))).catch(fault);
    await this.unindex(key);
  }

  async due(now: number, limit: number, skip = 0): Promise<Reminder[]> {
    if (limit <= 0) return [];
    await this.indexed();
    const keys = await this.redis.zrangebyscore(this.dueKey, '-inf', now, 'LIMIT', skip, limit);
    const read = await Promise.all(keys.map((k) => this.read(k)));
    const out: Reminder[] = [];
    for (let i = 0; i < keys.length; i++) {
      const r = read[i].held?.r;
      if (!r) await this.unindex(keys[i]);
      else if (r.dueAt <= now) out.push(r);
      else await this.redis.zadd(this.dueKey, r.dueAt, r.key);
    }
    return out.sort((a, b) => a.dueAt - b.dueAt);
  }

  /** False when another node holds its claim, or the reminder was cancelled or replaced since it was read. */
  async claim(r: Reminder, leaseMs: number): Promise<boolean> {
    for (;;) {
      const { revision, held } = await this.read(r.key);
      if (!held || held.r.generation !== r.generation || held.c > this.now()) return false;
      if (await this.write(r.key, revision, { r: held.r, c: this.now() + leaseMs })) return true;
    }
  }

  async complete(r: Reminder): Promise<void> {
    for (;;) {
      const { revision, held } = await this.read(r.key);
      if (!held || held.r.generation !== r.generation) return;
      if (await this.write(r.key, revision, undefined)) break;
    }
    await this.unindex(r.key);
  }

  async postpone(r: Reminder, dueAt: number): Promise<void> {
    for (;;) {
      const { revision, held } = await this.read(r.key);
      if (!held || held.r.generation !== r.generation) return;
      if (await this.write(r.key, revision, { r: { ...held.r, dueAt }, c: 0 })) break;
    }
    await this.redis.zadd(this.dueKey, dueAt, r.key);
  }

  async nextDue(): Promise<number | undefined> {
    await this.indexed();
    const first = await this.redis.zrangebyscore(this.dueKey, '-inf', '+inf', 'WITHSCORES', 'LIMIT', 0, 1);
    return first.length ? Number(first[1]) : undefined;
  }

  async close(): Promise<void> {}

  /**
   * Rebuilds the index from the bucket when its marker is missing. While another node builds it
   * (marker `building:`) the partial index is read as it is: what it misses fires on a later pass.
   */
  private async indexed(): Promise<void> {
    if ((await this.redis.get(this.marker)) !== null) return;
    const token = `building:${randomBytes(8).toString('hex')}`;
    if ((await this.redis.set(this.marker, token, 'PX', BUILD_LEASE_MS, 'NX')) !== 'OK') return;
    await this.reindex();
    await this.redis.eval(FINISH_BUILD, 1, this.marker, token);
  }

  /**
   * Puts every reminder of the bucket in the index at its due time. Besides the rebuild, the
   * cluster family's sweep runs it, so a put whose index write failed (Redis briefly unreachable,
   * its data intact and so its marker too) still fires, late by at most a sweep period.
   */
  async reindex(): Promise<number> {
    const batch: Array<string | number> = [];
    await this.scan((e) => {
      const held = e.operation === 'PUT' ? decode(e) : undefined;
      if (held) batch.push(held.r.dueAt, held.r.key);
    }).catch(fault);
    for (let i = 0; i < batch.length; i += 2000) await this.redis.zadd(this.dueKey, ...batch.slice(i, i + 2000));
    return batch.length / 2;
  }

  /** Drops `key` from the index, then puts it back if a put landed meanwhile. */
  private async unindex(key: string): Promise<void> {
    await this.redis.zrem(this.dueKey, key);
    const { held } = await this.read(key);
    if (held) await this.redis.zadd(this.dueKey, held.r.dueAt, key);
  }

  private async read(key: string): Promise<{ revision: number; held: Held | undefined }> {
    const e = await rideOut('read', () => this.kv.get(kvKeyOf(key))).catch(fault);
    if (!e) return { revision: 0, held: undefined };
    return { revision: e.revision, held: e.operation === 'PUT' ? decode(e) : undefined };
  }

  /** Writes (or deletes, for undefined) at `revision`; false when the entry moved past it. */
  private async write(key: string, revision: number, held: Held | undefined): Promise<boolean> {
    try {
      if (held) await rideOut('cas', () => this.bucketPut(kvKeyOf(key), pack(held), revision));
      else await rideOut('cas', () => this.kv.delete(kvKeyOf(key), { previousSeq: revision }));
      return true;
    } catch (e) {
      if (refusedRevision(e)) return false;
      return fault(e);
    }
  }
}

function decode(e: KvEntry | BucketEntry): Held | undefined {
  return e.value.length ? (unpack(e.value) as Held) : undefined;
}
