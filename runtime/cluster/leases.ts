/**
 * Shard leases and membership in one NATS KV bucket (DESIGN "Sharding"; docs/cluster.md "Leases").
 *
 *   n.<node>   { node, until, boot }   a node's heartbeat, put every renewMs; boot is fresh at each start
 *   s.<shard>  { node, until, boot }   the lease of one shard, renewed by compare-and-set on revision
 *
 * The 2.9 server ignores per-key TTLs, so expiry is the `until` (wall ms) written in the value.
 *
 * Never two live holders. Every lease write is a compare-and-set on the key's revision, and a
 * revision is the stream sequence of the key's latest entry, which only grows: a write succeeds
 * only if nobody wrote the key since the entry it names. A holder serves a shard only until
 * `sent + ttl - margin`, `sent` being when its last confirmed renewal left (confirmed by its
 * acknowledgement, or by reading back its own entry: same node and boot, `sent = until - ttl` on
 * its own clock); a write never confirmed extends nothing. Another node takes a lease over only
 * by a compare-and-set on an entry whose `until + margin` has passed on its clock; if that entry
 * is the holder's latest, the holder stopped serving at `until - margin` on a clock at most
 * `margin` apart, and if the holder wrote since, the takeover fails. So a holder may keep its
 * claim through a metadata stall (a JetStream election, a reconnect): it stops serving when its
 * own clock says so, keeps its revision and its actors, and retries; the first renewal that lands
 * on that revision proves nobody wrote the key meanwhile, so nobody served the shard, and it serves
 * again with nothing to reload. The lease lifetime stays as short as failover needs, since riding
 * out a stall does not depend on it: writes come back a renewal period after the bucket does.
 * Only an entry written by someone else (seen on the watch, in a read, or as a failed renewal)
 * takes a shard away.
 *
 * No lease stays expired while a node lives. A compare-and-set that fails on a stale revision (the
 * watch lagging, or an earlier write that timed out but landed) re-reads the key from the stream
 * leader and retries; an entry this process wrote is adopted as its own. A sweep re-reads every
 * shard the watch shows as unowned, and restarts the watch when it has ended or has not echoed this
 * node's own heartbeat within a lease lifetime. A shard whose preferred node does not take it is
 * taken by any node once it has stayed free for two lease lifetimes.
 *
 * Which live node should hold a shard is rendezvous hashing over the live members (lease-members.ts);
 * a holder that is no longer preferred (a node joined) or that is draining releases the shard: it
 * first stops serving it, passivates its actors, then deletes the lease so the preferred node takes it.
 */
import { randomBytes } from 'node:crypto';
import type { NatsConnection } from '@nats-io/transport-node';
import { LeaseMembers } from './lease-members.ts';
import { openLeaseBucket, StaleRevision, type BucketEntry, type LeaseBucket, type LeaseOptions, type LeaseRecord } from './lease-bucket.ts';
import { CAS_ATTEMPTS, DEFAULT_TIMINGS, START_WAIT_MS, writeTimeoutMs, type LeaseTimings } from './lease-timings.ts';
import { preferredOwner } from './shards.ts';

export { DEFAULT_TIMINGS, type LeaseTimings } from './lease-timings.ts';

/** A lease key as last seen; value undefined once deleted (the revision still names the tombstone). */
type Seen = Omit<BucketEntry, 'key'>;

interface Held {
  /** The revision of this node's latest entry on the key. */
  revision: number;
  /** Local time the latest confirmed renewal was sent; the shard is served until sentAt + ttl - margin. */
  sentAt: number;
  /** The release under way, once one began: a drain awaits it whoever began it (a tick or the drain). */
  releasing?: Promise<void>;
  /** The release is deleting the key: no renewal may move its revision now. */
  deleting?: boolean;
  /** The renewal in flight: one at a time, and a release waits for it so its delete names the latest revision. */
  renewal?: Promise<void>;
}

export interface LeaseHooks {
  /** The shard became this node's: it may serve it now. */
  gained(shard: number): void;
  /** Before a graceful release: stop and passivate the shard's actors (asks already see it as remote). */
  releasing(shard: number): Promise<void>;
  /** The shard was taken by another node. */
  lost(shard: number): void;
}

export class ShardLeases {
  private bucketStore!: LeaseBucket;
  private readonly seen = new Map<number, Seen>();
  readonly members: LeaseMembers;
  private readonly held = new Map<number, Held>();
  private readonly freeSince = new Map<number, number>();
  /** Local time this node last took each shard over from a lease that lapsed (not one released to it). */
  private readonly takeovers = new Map<number, number>();
  /** Shards whose compare-and-set met a stale revision since they last had a valid lease (logged once). */
  private readonly stale = new Set<number>();
  /** Shards whose acquire timed out (it may have landed), and whether it replaced a lease that lapsed. */
  private readonly unsure = new Map<number, boolean>();
  private readonly timers: NodeJS.Timeout[] = [];
  private watchStop: (() => void) | undefined;
  private watching = false;
  private watchGeneration = 0;
  private ticking = false;
  private tickAgain = false;
  private sweeping = false;
  private joinedAt = Infinity;
  private draining = false;
  private stopped = false;
  private readonly changeWaiters = new Set<() => void>();
  /** This start of the node: a member name no other process ever had. */
  private readonly boot = randomBytes(6).toString('base64url');

  constructor(
    private readonly nc: NatsConnection,
    readonly bucket: string,
    readonly nodeId: string,
    readonly shards: number,
    private readonly hooks: LeaseHooks,
    private readonly now: () => number,
    readonly timings: LeaseTimings = DEFAULT_TIMINGS,
    private readonly log: (msg: string, err?: unknown) => void = () => {},
    opts: LeaseOptions = {},
    /** The table itself; tests give one with their own faults. */
    private readonly open: () => Promise<LeaseBucket> = () => openLeaseBucket(nc, bucket, opts.replicas ?? 1),
  ) {
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(nodeId)) throw new Error(`node id must match [A-Za-z0-9_-]{1,64}: ${nodeId}`);
    this.members = new LeaseMembers(nodeId, this.boot, timings, now, opts.protocol);
  }

  async start(): Promise<void> {
    this.bucketStore = await this.open();
    // A bucket just created answers once its stream has a leader.
    const deadline = this.now() + START_WAIT_MS;
    for (;;) {
      try {
        if (!this.watching) await this.startWatch();
        await this.members.heartbeat(this.bucketStore, false);
        this.wrote();
        break;
      } catch (e) {
        if (this.now() > deadline) throw e;
        await new Promise((r) => setTimeout(r, this.timings.tickMs));
      }
    }
    this.joinedAt = this.now();
    this.timers.push(setInterval(() => this.renew(), this.timings.renewMs));
    this.timers.push(setInterval(() => this.poke(), this.timings.tickMs));
    this.timers.push(setInterval(() => void this.sweep(), this.timings.sweepMs ?? 4 * this.timings.tickMs));
    setTimeout(() => this.poke(), this.timings.joinMs).unref();
  }

  /** This node serves the shard: held, not being released, and its lease surely still valid. */
  holds(shard: number): boolean {
    const h = this.held.get(shard);
    return !!h && h.releasing === undefined && h.sentAt + this.timings.ttlMs - this.timings.marginMs > this.now();
  }

  /**
   * When this node last took the shard over from a lease that lapsed rather than was released
   * (runtime/activation.ts "Effects after a takeover"); undefined when it never did.
   */
  takenOverAt(shard: number): number | undefined {
    return this.takeovers.get(shard);
  }

  /** The node whose lease on the shard is valid, as far as this node has seen. */
  ownerOf(shard: number): string | undefined {
    if (this.holds(shard)) return this.nodeId;
    const v = this.seen.get(shard)?.value;
    if (!v || v.node === this.nodeId) return undefined;
    return v.until > this.now() ? v.node : undefined;
  }

  heldShards(): number[] {
    return [...this.held.keys()].filter((s) => this.holds(s));
  }

  liveMembers(): string[] {
    return this.members.live(this.draining);
  }

  /** This process as a member: `<node>/<boot>`. */
  get member(): string {
    return `${this.nodeId}/${this.boot}`;
  }

  /** True once `member` surely holds no membership (LeaseMembers.hasLapsed). */
  hasLapsed(member: string): boolean {
    return this.members.hasLapsed(member, this.stopped);
  }

  /** Resolves at the next change seen on the bucket, or after `ms`. */
  changed(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => (clearTimeout(t), this.changeWaiters.delete(done), resolve());
      const t = setTimeout(done, ms);
      this.changeWaiters.add(done);
    });
  }

  /** Hand every shard over: leave the member list, then release each held shard, and wait for every release to end. */
  async drain(): Promise<void> {
    this.draining = true;
    await this.bucketStore.delete(`n.${this.nodeId}`).catch(() => {});
    await Promise.all([...this.held.keys()].map((s) => this.release(s)));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) clearInterval(t);
    this.watchStop?.();
    for (const w of [...this.changeWaiters]) w();
  }

  /** Delete the bucket (tests). */
  async destroy(): Promise<void> {
    await this.bucketStore.destroy();
  }

  private lease(sentAt: number): LeaseRecord {
    return { node: this.nodeId, until: sentAt + this.timings.ttlMs, boot: this.boot };
  }

  /** Written by this process: the local time its write was sent, else undefined. */
  private sentOf(v: LeaseRecord | undefined): number | undefined {
    return v?.node === this.nodeId && v.boot === this.boot ? v.until - this.timings.ttlMs : undefined;
  }

  private async startWatch(): Promise<void> {
    // A watch stopped for its successor still reports its end: only the current one counts.
    const generation = ++this.watchGeneration;
    this.watchStop?.();
    this.watching = true;
    try {
      this.watchStop = await this.bucketStore.watch(
        (e) => generation === this.watchGeneration && this.observe(e, true),
        (err) => {
          if (generation !== this.watchGeneration) return;
          this.watching = false;
          if (!this.stopped) this.log('lease watch ended; the sweep restarts it', err);
        },
      );
    } catch (e) {
      this.watching = false;
      throw e;
    }
    this.members.watchStarted();
  }

  /** An entry from the watch, a leader read or this node's own write; an older revision than one already seen changes nothing. */
  private observe(e: BucketEntry, fromWatch = false): void {
    const value = e.value;
    let changed = false;
    if (fromWatch) this.members.heard(e.revision);
    if (e.key.startsWith('s.')) {
      const shard = Number(e.key.slice(2));
      const before = this.seen.get(shard);
      if (!before || e.revision > before.revision) {
        // A renewal (the same holder, a later expiry) cannot change what to take or give up:
        // lapses are found by time, on the tick's own timer.
        changed = !value || before?.value?.node !== value.node;
        this.seen.set(shard, { value, revision: e.revision });
      }
      const h = this.held.get(shard);
      if (h && e.revision > h.revision) {
        if (h.deleting && !value) this.held.delete(shard); // our own release's delete
        else if (this.sentOf(value) !== undefined) {
          h.revision = e.revision;
          h.sentAt = Math.max(h.sentAt, this.sentOf(value)!);
        } else this.drop(shard); // someone else wrote our shard's key: it was taken over (we lapsed)
      } else if (!h && this.sentOf(value) !== undefined) changed = true; // a write of ours that timed out but landed: the tick adopts it
    } else if (e.key.startsWith('n.')) changed = this.members.observe(e);
    else changed = true;
    for (const w of [...this.changeWaiters]) w();
    if (changed) this.poke();
  }

  private poke(): void {
    if (this.stopped) return;
    if (this.ticking) {
      this.tickAgain = true;
      return;
    }
    this.ticking = true;
    void this.tick()
      .catch((e) => this.log('lease tick failed', e))
      .finally(() => {
        this.ticking = false;
        if (this.tickAgain) {
          this.tickAgain = false;
          this.poke();
        }
      });
  }

  private async tick(): Promise<void> {
    const t = this.now();
    if (t < this.joinedAt + this.timings.joinMs && !this.draining) return;
    const live = this.liveMembers();
    const work: Promise<void>[] = [];
    const staleBefore = new Set(this.stale);
    for (let shard = 0; shard < this.shards; shard++) {
      const preferred = preferredOwner(shard, live);
      const h = this.held.get(shard);
      if (h) {
        // A held lease past its trust is kept, not dropped: renewals go on against its revision.
        if (h.releasing === undefined && (this.draining || (preferred !== undefined && preferred !== this.nodeId))) work.push(this.release(shard));
        continue;
      }
      if (this.draining) continue;
      const seen = this.seen.get(shard);
      const v = seen?.value;
      const sentAt = this.sentOf(v);
      if (sentAt !== undefined) {
        // An acquire of ours that timed out but landed: the lease is ours, served while it is valid.
        this.held.set(shard, { revision: seen!.revision, sentAt });
        if (this.unsure.get(shard) !== false) this.takeovers.set(shard, sentAt);
        this.unsure.delete(shard);
        this.hooks.gained(shard);
        continue;
      }
      if (v && v.until + this.timings.marginMs >= t) {
        this.freeSince.delete(shard);
        this.stale.delete(shard);
        continue;
      }
      // Time this node cannot write the bucket does not count towards orphaning.
      if (this.members.inTrouble) this.freeSince.delete(shard);
      else if (!this.freeSince.has(shard)) this.freeSince.set(shard, t);
      const orphaned = t - (this.freeSince.get(shard) ?? t) > 2 * this.timings.ttlMs;
      if (preferred === this.nodeId || preferred === undefined || orphaned) work.push(this.acquire(shard));
    }
    await Promise.all(work);
    const fresh = [...this.stale].filter((s) => !staleBefore.has(s));
    if (fresh.length) this.log(`lease compare-and-set met a stale revision on shard(s) ${fresh.join(', ')}; re-read from the stream leader and retried`);
  }

  /** Takes a free shard, re-reading the key after each stale revision; an entry of ours is adopted. */
  private async acquire(shard: number): Promise<void> {
    for (let attempt = 0; attempt < CAS_ATTEMPTS && !this.held.has(shard); attempt++) {
      const s = this.seen.get(shard);
      if (s?.value && s.value.until + this.timings.marginMs >= this.now()) return; // validly held: not free after all
      const sentAt = this.now();
      try {
        const revision = await this.bucketStore.write(`s.${shard}`, this.lease(sentAt), s?.revision ?? 0, writeTimeoutMs(this.timings));
        this.wrote();
        if (this.held.has(shard)) return; // adopted meanwhile from the watch
        this.held.set(shard, { revision, sentAt });
        this.observe({ key: `s.${shard}`, revision, value: this.lease(sentAt) });
        this.freeSince.delete(shard);
        this.stale.delete(shard);
        this.unsure.delete(shard);
        // A lease still on the bucket lapsed (its holder died or was cut off); a released one is deleted.
        if (s?.value) this.takeovers.set(shard, sentAt);
        this.hooks.gained(shard);
        return;
      } catch (e) {
        if (!(e instanceof StaleRevision)) return (this.unsure.set(shard, !!s?.value), this.failed(e));
        this.stale.add(shard);
        if (!(await this.reread(shard))) return;
      }
    }
  }

  /** Reads the shard's key from the stream leader into what this node has seen; false when it cannot. */
  private reread(shard: number): Promise<boolean> {
    return this.bucketStore.read(`s.${shard}`).then(
      (e) => (e && this.observe(e), true),
      (err) => (this.failed(err), false),
    );
  }

  private renew(): void {
    if (this.stopped) return;
    void this.members.heartbeat(this.bucketStore, this.draining).then(
      (wrote) => wrote && this.wrote(),
      (e) => this.failed(e),
    );
    for (const [shard, h] of this.held) if (!h.renewal && !h.deleting) h.renewal = this.renewOne(shard, h).finally(() => (h.renewal = undefined));
  }

  private async renewOne(shard: number, h: Held): Promise<void> {
    const sentAt = this.now();
    try {
      const revision = await this.bucketStore.write(`s.${shard}`, this.lease(sentAt), h.revision, writeTimeoutMs(this.timings));
      this.wrote();
      if (this.held.get(shard) === h && revision > h.revision) {
        h.revision = revision;
        h.sentAt = Math.max(h.sentAt, sentAt);
      }
      this.observe({ key: `s.${shard}`, revision, value: this.lease(sentAt) });
    } catch (e) {
      // A stale revision: an earlier renewal of ours landed late (adopted) or another node wrote (lost).
      if (e instanceof StaleRevision) await this.reread(shard);
      else this.failed(e);
    }
  }

  /** Re-reads every shard that looks unowned, and restarts a watch that ended or stopped echoing. */
  private async sweep(): Promise<void> {
    if (this.stopped || this.sweeping) return;
    this.sweeping = true;
    try {
      const t = this.now();
      if (!this.watching || this.members.echoOverdue()) {
        if (this.watching) this.log('lease watch has not echoed this node for a lease lifetime; restarting it');
        await this.startWatch().catch((e) => this.log('restarting the lease watch failed', e));
      }
      const suspect: number[] = [];
      for (let shard = 0; shard < this.shards; shard++) {
        const v = this.seen.get(shard)?.value;
        if (!this.held.has(shard) && (!v || v.until + this.timings.marginMs < t)) suspect.push(shard);
      }
      for (let i = 0; i < suspect.length; i += 32) if ((await Promise.all(suspect.slice(i, i + 32).map((s) => this.reread(s)))).includes(false)) break;
    } finally {
      this.sweeping = false;
    }
  }

  /** Releases `shard`; a release under way answers for itself, so a drain waits for one a tick began. */
  private release(shard: number): Promise<void> {
    const h = this.held.get(shard);
    return h ? (h.releasing ??= this.releaseHeld(shard, h)) : Promise.resolve();
  }

  private async releaseHeld(shard: number, h: Held): Promise<void> {
    try {
      await this.hooks.releasing(shard);
    } catch (e) {
      this.log(`passivating shard ${shard} before release failed`, e);
    }
    if (this.held.get(shard) !== h) return;
    // A renewal in flight moves the revision: deleting with the old one would fail, and the shard
    // would wait out its lease instead of passing to the preferred node at once. The shard stays
    // held while its key is deleted, so a late write of ours seen meanwhile moves the revision
    // instead of being adopted as a new lease.
    await h.renewal;
    h.deleting = true;
    for (let attempt = 0; attempt < CAS_ATTEMPTS && this.held.get(shard) === h; attempt++) {
      try {
        await this.bucketStore.delete(`s.${shard}`, h.revision);
        break;
      } catch (e) {
        if (!(e instanceof StaleRevision) || !(await this.reread(shard))) break;
      }
    }
    if (this.held.get(shard) === h) this.held.delete(shard);
  }

  private drop(shard: number): void {
    if (this.held.delete(shard)) this.hooks.lost(shard);
  }

  /** A write to the bucket landed: any episode of failing writes is over. */
  private wrote(): void {
    const took = this.members.wrote();
    if (took === undefined) return;
    this.log(`lease bucket writable again after ${took} ms`);
    this.renew(); // held shards past their trust serve again as soon as their renewal lands
  }

  /** A write or read failed for a reason other than a stale revision (logged once per episode). */
  private failed(e: unknown): void {
    if (!this.stopped && this.members.failed()) this.log('lease bucket writes failing; held shards are served while their leases are valid and renewed until they land', e);
  }
}
