/**
 * Shard leases and membership in one NATS KV bucket (DESIGN "Sharding").
 *
 *   n.<node>   { node, until, boot }   a node's heartbeat, put every renewMs; boot is fresh at each start
 *   s.<shard>  { node, until }         the lease of one shard, renewed by compare-and-set on revision
 *
 * The 2.9 server ignores per-key TTLs, so expiry is the `until` (wall ms) written in the value:
 * a holder trusts its lease only until `sent + ttl - margin` (sent = when its renewal left), and
 * others take it over only after `until + margin`, so with clocks within `margin` of each other
 * a lease never has two live holders. Every write is a CAS on the key's revision, so two nodes
 * racing for a free shard cannot both win. A node that stops renewing (killed, partitioned)
 * loses its shards `ttl` after its last renewal; survivors take them on their next tick.
 *
 * Which live node should hold a shard is rendezvous hashing over the live members; a holder that
 * is no longer preferred (a node joined) or that is draining releases the shard: it first stops
 * serving it, passivates its actors, then deletes the lease so the preferred node takes it.
 *
 * Membership also tells the rest of the platform which processes are gone (hasLapsed): a claim
 * a node holds outside the actor system (an idempotency key in flight, docs/cluster.md
 * "Idempotency claims") names its `member`, `<node>/<boot>`, and a survivor takes it over once
 * that member lapsed, left, or its node id came back as a new incarnation.
 */
import { randomBytes } from 'node:crypto';
import { Kvm, type KV, type KvEntry } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { preferredOwner } from './shards.ts';

export interface LeaseTimings {
  /** Lease lifetime after a renewal. */
  ttlMs: number;
  renewMs: number;
  /** How often placement is re-evaluated (also after any change seen on the bucket). */
  tickMs: number;
  /** Allowed clock difference between nodes. */
  marginMs: number;
  /** Wait after joining before taking shards, to hear of nodes starting at the same moment. */
  joinMs: number;
}

export const DEFAULT_TIMINGS: LeaseTimings = { ttlMs: 3000, renewMs: 750, tickMs: 250, marginMs: 500, joinMs: 1000 };

interface Lease {
  node: string;
  until: number;
}

/** A membership key as last seen; `left` once deleted (a drain), kept until it would have lapsed. */
interface Member extends Lease {
  /** Absent from nodes that predate incarnations. */
  boot?: string;
  left?: boolean;
}

interface Seen {
  value: Lease;
  revision: number;
}

interface Held {
  revision: number;
  /** Local time the renewal that produced `revision` was sent. */
  sentAt: number;
  releasing: boolean;
  /** The renewal in flight: a release waits for it, so its delete names the latest revision. */
  renewal?: Promise<void>;
}

export interface LeaseHooks {
  /** The shard became this node's: it may serve it now. */
  gained(shard: number): void;
  /** Before a graceful release: stop and passivate the shard's actors (asks already see it as remote). */
  releasing(shard: number): Promise<void>;
  /** The shard was taken away or lapsed without a release. */
  lost(shard: number): void;
}

const enc = (l: Member) => new TextEncoder().encode(JSON.stringify(l));
const dec = (e: KvEntry): Member | undefined => (e.operation === 'PUT' && e.value.length ? (JSON.parse(new TextDecoder().decode(e.value)) as Member) : undefined);

/** A member that lapsed this long ago is forgotten (it is then gone as one never heard of). */
const FORGET_AFTER_TTLS = 20;

export class ShardLeases {
  private kv!: KV;
  private readonly seen = new Map<number, Seen>();
  private readonly members = new Map<string, Member>();
  private readonly held = new Map<number, Held>();
  private readonly freeSince = new Map<number, number>();
  /** Local time this node last took each shard over from a lease that lapsed (not one released to it). */
  private readonly takeovers = new Map<number, number>();
  private tickTimer: NodeJS.Timeout | undefined;
  private renewTimer: NodeJS.Timeout | undefined;
  private watchStop: (() => void) | undefined;
  private ticking = false;
  private tickAgain = false;
  private joinedAt = Infinity;
  private draining = false;
  private stopped = false;
  private readonly changeWaiters = new Set<() => void>();
  /** This start of the node: a member name no other process ever had. */
  private readonly boot = randomBytes(6).toString('base64url');
  /** Local time the bucket watch started, and of the last change it delivered. */
  private watchingSince = Infinity;
  private heardAt = -Infinity;

  constructor(
    private readonly nc: NatsConnection,
    readonly bucket: string,
    readonly nodeId: string,
    readonly shards: number,
    private readonly hooks: LeaseHooks,
    private readonly now: () => number,
    readonly timings: LeaseTimings = DEFAULT_TIMINGS,
    private readonly log: (msg: string, err?: unknown) => void = () => {},
    private readonly replicas = 1,
  ) {
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(nodeId)) throw new Error(`node id must match [A-Za-z0-9_-]{1,64}: ${nodeId}`);
  }

  async start(): Promise<void> {
    const kvm = new Kvm(this.nc);
    this.kv = await kvm.create(this.bucket, { history: 1, replicas: this.replicas });
    const watch = await this.kv.watch({ key: '>' });
    this.watchingSince = this.now();
    this.watchStop = () => watch.stop();
    void (async () => {
      for await (const e of watch) this.observe(e);
    })().catch((e) => this.log('lease watch ended', e));
    await this.heartbeat();
    this.joinedAt = this.now();
    this.renewTimer = setInterval(() => void this.renew(), this.timings.renewMs);
    this.tickTimer = setInterval(() => this.poke(), this.timings.tickMs);
    setTimeout(() => this.poke(), this.timings.joinMs).unref();
  }

  /** This node serves the shard: held, not being released, and its lease surely still valid. */
  holds(shard: number): boolean {
    const h = this.held.get(shard);
    return !!h && !h.releasing && h.sentAt + this.timings.ttlMs - this.timings.marginMs > this.now();
  }

  /**
   * When this node last took the shard over from a lease that lapsed rather than was released
   * (runtime/system.ts "Effects after a takeover"); undefined when it never did.
   */
  takenOverAt(shard: number): number | undefined {
    return this.takeovers.get(shard);
  }

  /** The node whose lease on the shard is valid, as far as this node has seen. */
  ownerOf(shard: number): string | undefined {
    if (this.holds(shard)) return this.nodeId;
    const s = this.seen.get(shard);
    if (!s || s.value.node === this.nodeId) return undefined;
    return s.value.until > this.now() ? s.value.node : undefined;
  }

  heldShards(): number[] {
    return [...this.held.keys()].filter((s) => this.holds(s));
  }

  liveMembers(): string[] {
    const t = this.now();
    return [...this.members.values()].filter((m) => !m.left && m.until > t && !(m.node === this.nodeId && this.draining)).map((m) => m.node).sort();
  }

  /** This process as a member: `<node>/<boot>`. */
  get member(): string {
    return `${this.nodeId}/${this.boot}`;
  }

  /**
   * True once `member` surely holds no membership: its last heartbeat's lease ended (with the
   * clock margin), it left (drain) and that lease ended, or its node id heartbeats as another
   * incarnation (restarted). False whenever this node cannot be sure: for itself, while its own
   * watch has heard nothing for a lease lifetime (cut off from NATS, silence is not death), and
   * for a member never heard of until the watch has run long enough to have heard any live one.
   * A bare node id stands for whichever incarnation holds it.
   */
  hasLapsed(member: string): boolean {
    if (member === this.member) return false;
    const t = this.now();
    const { ttlMs, marginMs } = this.timings;
    if (this.stopped || t - this.heardAt > ttlMs) return false;
    const slash = member.lastIndexOf('/');
    const m = this.members.get(slash < 0 ? member : member.slice(0, slash));
    if (!m) return t - this.watchingSince > ttlMs + marginMs;
    if (m.boot !== undefined && slash >= 0 && m.boot !== member.slice(slash + 1)) return true;
    return m.until + marginMs < t;
  }

  /** Resolves at the next change seen on the bucket, or after `ms`. */
  changed(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(t);
        this.changeWaiters.delete(done);
        resolve();
      };
      const t = setTimeout(done, ms);
      this.changeWaiters.add(done);
    });
  }

  /** Hand every shard over: leave the member list, then release each held shard. */
  async drain(): Promise<void> {
    this.draining = true;
    await this.kv.delete(`n.${this.nodeId}`).catch(() => {});
    await Promise.all([...this.held.keys()].map((s) => this.release(s)));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.tickTimer);
    clearInterval(this.renewTimer);
    this.watchStop?.();
    for (const w of [...this.changeWaiters]) w();
  }

  /** Delete the bucket (tests). */
  async destroy(): Promise<void> {
    await this.kv.destroy().catch(() => false);
  }

  // ----------------------------------------------------------------------------------------------

  private observe(e: KvEntry): void {
    const value = dec(e);
    // Whether the entry can change what this node should take or give up now. A renewal (the same
    // holder or member, a later expiry) cannot: lapses are found by time, on the tick's own timer.
    // Every node renews all its leases every renewMs, so ticking at each renewal seen was hundreds of
    // passes over every shard a second on an idle cluster.
    let changed: boolean;
    if (e.key.startsWith('s.')) {
      const shard = Number(e.key.slice(2));
      const before = this.seen.get(shard);
      changed = !value || before?.value.node !== value.node;
      if (value) this.seen.set(shard, { value, revision: e.revision });
      else this.seen.delete(shard);
      const h = this.held.get(shard);
      // Someone else wrote our shard's key: it was taken over (we lapsed), so stop serving it.
      if (h && !(value?.node === this.nodeId && e.revision >= h.revision) && e.revision > h.revision) this.drop(shard);
    } else if (e.key.startsWith('n.')) {
      const node = e.key.slice(2);
      const known = this.members.get(node);
      changed = !value || !known || known.left === true || known.until < this.now() || known.boot !== value.boot;
      if (value) this.members.set(node, value);
      else if (known) known.left = true;
    } else changed = true;
    this.heardAt = this.now();
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
    for (const [node, m] of this.members) if (m.until < t - FORGET_AFTER_TTLS * this.timings.ttlMs) this.members.delete(node);
    const work: Promise<void>[] = [];
    for (let shard = 0; shard < this.shards; shard++) {
      const preferred = preferredOwner(shard, live);
      const h = this.held.get(shard);
      if (h) {
        if (h.sentAt + this.timings.ttlMs - this.timings.marginMs <= t) this.drop(shard); // lapsed: renewals failed
        else if (!h.releasing && (this.draining || (preferred !== undefined && preferred !== this.nodeId))) work.push(this.release(shard));
        continue;
      }
      if (this.draining) continue;
      const s = this.seen.get(shard);
      const free = !s || s.value.until + this.timings.marginMs < t;
      if (!free) {
        this.freeSince.delete(shard);
        continue;
      }
      if (!this.freeSince.has(shard)) this.freeSince.set(shard, t);
      const orphaned = t - this.freeSince.get(shard)! > 2 * this.timings.ttlMs;
      if (preferred === this.nodeId || orphaned) work.push(this.acquire(shard, s));
    }
    await Promise.all(work);
  }

  private async acquire(shard: number, s: Seen | undefined): Promise<void> {
    const sentAt = this.now();
    const value = enc({ node: this.nodeId, until: sentAt + this.timings.ttlMs });
    try {
      const revision = s ? await this.kv.update(`s.${shard}`, value, s.revision) : await this.kv.create(`s.${shard}`, value);
      this.held.set(shard, { revision, sentAt, releasing: false });
      this.freeSince.delete(shard);
      // A lease still on the bucket lapsed (its holder died or was cut off); a released one is deleted.
      if (s) this.takeovers.set(shard, sentAt);
      this.hooks.gained(shard);
    } catch {
      // Another node won the compare-and-set; the watch tells us who.
    }
  }

  private async renew(): Promise<void> {
    if (this.stopped) return;
    await this.heartbeat().catch((e) => this.log('membership heartbeat failed', e));
    let failed = 0;
    let lastError: unknown;
    const renewOne = async (shard: number, h: Held): Promise<void> => {
      const sentAt = this.now();
      try {
        h.revision = await this.kv.update(`s.${shard}`, enc({ node: this.nodeId, until: sentAt + this.timings.ttlMs }), h.revision);
        h.sentAt = sentAt;
      } catch (e) {
        if (/wrong last sequence/i.test(String((e as Error).message))) {
          if (this.held.get(shard) === h) this.drop(shard);
        } else {
          failed++;
          lastError = e;
        }
      }
    };
    await Promise.all([...this.held.entries()].map(([shard, h]) => (h.renewal = renewOne(shard, h))));
    if (failed) this.log(`renewal of ${failed} shard lease(s) failed; they lapse ${this.timings.ttlMs} ms after the last success`, lastError);
  }

  private async heartbeat(): Promise<void> {
    if (this.draining) return;
    await this.kv.put(`n.${this.nodeId}`, enc({ node: this.nodeId, until: this.now() + this.timings.ttlMs, boot: this.boot }));
  }

  private async release(shard: number): Promise<void> {
    const h = this.held.get(shard);
    if (!h || h.releasing) return;
    h.releasing = true;
    try {
      await this.hooks.releasing(shard);
    } catch (e) {
      this.log(`passivating shard ${shard} before release failed`, e);
    }
    if (this.held.get(shard) !== h) return;
    this.held.delete(shard);
    // A renewal sent meanwhile moves the revision: deleting with the old one would fail, and the
    // shard would wait out its lease instead of passing to the preferred node at once.
    await h.renewal;
    await this.kv.delete(`s.${shard}`, { previousSeq: h.revision }).catch(() => {});
  }

  private drop(shard: number): void {
    if (!this.held.delete(shard)) return;
    this.hooks.lost(shard);
  }
}
