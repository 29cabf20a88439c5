/**
 * The lease rules against a lease table with its own faults (runtime/cluster/leases.ts header;
 * DESIGN "Sharding"): a watch that missed entries, reads that lag, a bucket that stops answering,
 * a write that timed out but landed, another node's write. The table is a map with revisions as
 * JetStream gives them (one sequence for the whole bucket); the leases run on wall time with
 * short timings, and every wait is bounded by a deadline.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { StaleRevision, type BucketEntry, type LeaseBucket, type LeaseRecord } from '../../runtime/cluster/lease-bucket.ts';
import { ShardLeases } from '../../runtime/cluster/leases.ts';
import { preferredOwner } from '../../runtime/cluster/shards.ts';
import { until } from '../../support/until.ts';

const TIMINGS = { ttlMs: 600, renewMs: 150, tickMs: 50, marginMs: 100, joinMs: 100, sweepMs: 200 };
const SHARDS = 4;
const unreachable = () => Promise.reject(new Error('timeout'));

class FakeBucket implements LeaseBucket {
  private seq = 0;
  readonly latest = new Map<string, BucketEntry>();
  /** What the watch delivers first, where it differs from the latest (a watch that missed entries). */
  readonly staleView = new Map<string, BucketEntry>();
  /** Keys whose changes the watch does not deliver. */
  readonly muted = new Set<string>();
  /** The watch delivers nothing after its first entries (stuck). */
  stuck = false;
  /** Reads of a key answered from staleView before the latest (a lagging replica). */
  lagReads = 0;
  private readonly reads = new Map<string, number>();
  down = false;
  /** The next write of this key lands but its caller is told it timed out. */
  landButFail = new Set<string>();
  private listeners = new Set<(e: BucketEntry) => void>();

  set(key: string, value: LeaseRecord | undefined): BucketEntry {
    const e = { key, revision: ++this.seq, value };
    this.latest.set(key, e);
    for (const l of this.listeners) if (!this.muted.has(key) && !this.stuck) l(e);
    return e;
  }

  async watch(entry: (e: BucketEntry) => void, ended: (err?: unknown) => void): Promise<() => void> {
    if (this.down) return unreachable();
    for (const [k, e] of this.latest) entry(this.staleView.get(k) ?? e);
    this.listeners.add(entry);
    // As a NATS watch does, a stopped one reports its end afterwards.
    return () => {
      this.listeners.delete(entry);
      setImmediate(() => ended());
    };
  }

  async read(key: string): Promise<BucketEntry | undefined> {
    if (this.down) return unreachable();
    const n = (this.reads.get(key) ?? 0) + 1;
    this.reads.set(key, n);
    return n <= this.lagReads ? (this.staleView.get(key) ?? this.latest.get(key)) : this.latest.get(key);
  }

  async write(key: string, value: LeaseRecord, revision: number): Promise<number> {
    if (this.down) return unreachable();
    if ((this.latest.get(key)?.revision ?? 0) !== revision) throw new StaleRevision(`wrong last sequence: ${this.latest.get(key)?.revision}`);
    const e = this.set(key, value);
    if (this.landButFail.delete(key)) return unreachable();
    return e.revision;
  }

  async put(key: string, value: LeaseRecord): Promise<number> {
    if (this.down) return unreachable();
    return this.set(key, value).revision;
  }

  async delete(key: string, revision?: number): Promise<void> {
    if (this.down) return unreachable();
    if (revision !== undefined && (this.latest.get(key)?.revision ?? 0) !== revision) throw new StaleRevision('wrong last sequence');
    this.set(key, undefined);
  }

  async destroy(): Promise<void> {}
}

const running: ShardLeases[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((l) => l.stop()));
});

function node(bucket: FakeBucket, id = 'a') {
  const logs: string[] = [];
  const lost: number[] = [];
  const leases = new ShardLeases(
    undefined as never,
    'shards',
    id,
    SHARDS,
    { gained: () => {}, releasing: async () => {}, lost: (s) => lost.push(s) },
    () => Date.now(),
    TIMINGS,
    (m) => logs.push(m),
    { replicas: 1 },
    async () => bucket,
  );
  running.push(leases);
  return { leases, logs, lost, all: () => Array.from({ length: SHARDS }, (_, s) => leases.holds(s)).every(Boolean) };
}

/** Every shard's lease lapsed long ago, held by a node that is gone. */
function expiredLeases(bucket: FakeBucket): void {
  for (let s = 0; s < SHARDS; s++) bucket.set(`s.${s}`, { node: 'ghost', until: Date.now() - 60_000 });
}

describe('lease compare-and-set against a stale revision (leases.ts "No lease stays expired while a node lives")', () => {
  it('a compare-and-set against a stale revision re-reads the key and retries: every expired lease is taken over, logged once for the episode', async () => {
    const bucket = new FakeBucket();
    expiredLeases(bucket);
    for (let s = 0; s < SHARDS; s++) bucket.staleView.set(`s.${s}`, bucket.latest.get(`s.${s}`)!);
    expiredLeases(bucket); // rewritten unchanged: the watch still shows the older revisions
    bucket.lagReads = 4; // and the first reads come from a lagging replica: more attempts than one pass makes
    const a = node(bucket);
    await a.leases.start();
    await until(a.all, 5_000);
    const staleLines = a.logs.filter((l) => l.includes('stale revision'));
    expect(staleLines).toHaveLength(1);
    expect(staleLines[0]).toContain('shard(s) 0, 1, 2, 3');
  });

  it('a watch that stops delivering (this node\u2019s own heartbeat not echoed for a lease lifetime) is restarted by the sweep, and what it missed is seen', async () => {
    const bucket = new FakeBucket();
    const b = node(bucket, 'b');
    await b.leases.start();
    await until(b.all, 5_000);
    bucket.stuck = true;
    bucket.set('n.c', { node: 'c', until: Date.now() + 60_000, boot: 'c1' });
    await until(() => b.leases.liveMembers().includes('c'), 3_000);
    await new Promise((r) => setTimeout(r, 3 * TIMINGS.sweepMs));
    expect(b.logs.filter((l) => l.includes('has not echoed'))).toHaveLength(1);
    // the watch it replaced reports its end, which does not stop its successor
    expect(b.logs.filter((l) => l.includes('watch ended'))).toEqual([]);
  });

  it('a node whose watch stopped delivering its own heartbeat still counts itself live: it keeps the shards it is preferred for', async () => {
    const bucket = new FakeBucket();
    const others = ['c', 'd', 'e', 'f'].find((c) => Array.from({ length: SHARDS }, (_, s) => preferredOwner(s, ['b', c])).includes('b'))!;
    const mine = Array.from({ length: SHARDS }, (_, s) => s).filter((s) => preferredOwner(s, ['b', others]) === 'b');
    expect(mine.length).toBeGreaterThan(0);
    bucket.set(`n.${others}`, { node: others, until: Date.now() + 60_000, boot: 'x' });
    bucket.muted.add('n.b');
    const b = node(bucket, 'b');
    await b.leases.start();
    await until(() => mine.every((s) => b.leases.holds(s)), 5_000);
    await new Promise((r) => setTimeout(r, 3 * TIMINGS.ttlMs));
    expect(b.leases.heldShards()).toEqual(mine);
    expect(b.leases.liveMembers()).toEqual(['b', others].sort());
  });
});

describe('a holder through a metadata stall (leases.ts "Never two live holders")', () => {
  it('a renewal that fails for a transport reason keeps the shard: served while the lease is valid by its own clock, then not, and again once a renewal lands; nothing is lost', async () => {
    const bucket = new FakeBucket();
    const a = node(bucket);
    await a.leases.start();
    await until(a.all, 5_000);
    bucket.down = true;
    const stalled = Date.now();
    await until(() => !a.leases.holds(0), 2_000);
    // It stopped serving no later than its last confirmed renewal's sent + ttl - margin.
    expect(Date.now() - stalled).toBeLessThanOrEqual(TIMINGS.ttlMs - TIMINGS.marginMs + 50);
    await new Promise((r) => setTimeout(r, 3 * TIMINGS.ttlMs));
    expect(a.leases.heldShards()).toEqual([]);
    bucket.down = false;
    const back = await until(a.all, 2_000);
    expect(back).toBeLessThan(2 * TIMINGS.renewMs + 100);
    expect(a.lost).toEqual([]);
    expect(a.logs.filter((l) => l.includes('writes failing'))).toHaveLength(1);
  });

  it('a renewal that timed out but landed is read back as this node\u2019s own, not as a takeover', async () => {
    const bucket = new FakeBucket();
    const a = node(bucket);
    await a.leases.start();
    await until(a.all, 5_000);
    bucket.muted.add('s.0');
    bucket.landButFail.add('s.0');
    const landed = await until(() => !bucket.landButFail.has('s.0'), 2_000);
    expect(landed).toBeGreaterThanOrEqual(0);
    const revision = bucket.latest.get('s.0')!.revision;
    await until(() => bucket.latest.get('s.0')!.revision > revision, 2_000); // the next renewal went through
    expect(a.leases.holds(0)).toBe(true);
    expect(a.lost).toEqual([]);
  });

  it('a renewal that meets another node\u2019s entry gives the shard up', async () => {
    const bucket = new FakeBucket();
    const a = node(bucket);
    await a.leases.start();
    await until(a.all, 5_000);
    bucket.muted.add('s.1');
    bucket.set('s.1', { node: 'b', until: Date.now() + 60_000, boot: 'other' });
    await until(() => a.lost.includes(1), 2_000);
    expect(a.leases.holds(1)).toBe(false);
    expect(a.leases.ownerOf(1)).toBe('b');
  });
});
