/**
 * Who is in the cluster, as one node sees the `n.<node>` keys of the lease bucket (DESIGN
 * "Sharding"; docs/cluster.md "Idempotency claims"). Placement asks which members are live;
 * the rest of the platform asks whether a member surely lapsed (hasLapsed). Both answers lean to
 * "still there" whenever this node could not have heard otherwise: silence is not death while its
 * own watch is quiet or its own writes to the bucket fail, and for a lease lifetime after they
 * land again, so a JetStream election that stalls every heartbeat at once neither makes a node
 * think every other one died nor moves shards when the bucket comes back.
 *
 * A claim a node holds outside the actor system (an idempotency key in flight) names its
 * `member`, `<node>/<boot>`, and a survivor takes it over once that member lapsed, left, or its
 * node id came back as a new incarnation.
 */
import type { BucketEntry, LeaseBucket, LeaseRecord } from './lease-bucket.ts';
import { writeTimeoutMs, type LeaseTimings } from './lease-timings.ts';

/** A membership key as last seen; `left` once deleted (a drain), kept until it would have lapsed. */
interface Member extends LeaseRecord {
  left?: boolean;
}

/** A member that lapsed this long ago is forgotten (it is then gone as one never heard of). */
const FORGET_AFTER_TTLS = 20;

export class LeaseMembers {
  private readonly members = new Map<string, Member>();
  /** Local time the bucket watch first started, and of the last change it delivered. */
  private watchingSince = Infinity;
  private heardAt = -Infinity;
  /** This node's heartbeat the watch has yet to deliver: its revision, and when it is overdue. */
  private echo: { revision: number; due: number } | undefined;
  /** The highest revision the watch delivered (it may deliver a write before the write's acknowledgement). */
  private watched = 0;
  private heartbeating = false;
  /** This node's writes to the bucket fail since (a transport fault); the last such episode, once over. */
  private troubleSince: number | undefined;
  private lastTrouble = { from: Infinity, to: -Infinity };

  constructor(
    private readonly nodeId: string,
    private readonly boot: string,
    private readonly timings: LeaseTimings,
    private readonly now: () => number,
    /** The remote-ask protocol this node announces in its heartbeat (LeaseOptions.protocol). */
    private readonly protocol = 1,
  ) {}

  /**
   * Puts this node's heartbeat (skipped while one is in flight, or draining); true once written.
   * The first, at start, may wait for a bucket whose stream is still electing its leader.
   */
  async heartbeat(bucket: LeaseBucket, skip: boolean): Promise<boolean> {
    if (skip || this.heartbeating) return false;
    this.heartbeating = true;
    try {
      const record: LeaseRecord = { node: this.nodeId, until: this.now() + this.timings.ttlMs, boot: this.boot };
      if (this.protocol > 1) record.protocol = this.protocol;
      const revision = await bucket.put(`n.${this.nodeId}`, record, writeTimeoutMs(this.timings));
      if (revision > this.watched) this.echo ??= { revision, due: this.now() + this.timings.ttlMs };
      return true;
    } finally {
      this.heartbeating = false;
    }
  }

  watchStarted(): void {
    this.watchingSince = Math.min(this.watchingSince, this.now());
    this.echo = undefined;
    this.watched = 0;
  }

  /** The watch delivered an entry. */
  heard(revision: number): void {
    this.heardAt = this.now();
    this.watched = Math.max(this.watched, revision);
    if (this.echo && revision >= this.echo.revision) this.echo = undefined;
  }

  /** The watch has not delivered this node's own heartbeat a lease lifetime after it was written: it is stuck. */
  echoOverdue(): boolean {
    return this.echo !== undefined && this.now() > this.echo.due;
  }

  /** A change of an `n.` key; true when it may change placement (a member came, went, or restarted). */
  observe(e: BucketEntry): boolean {
    const node = e.key.slice(2);
    const known = this.members.get(node);
    const changed = !e.value || !known || known.left === true || known.until < this.now() || known.boot !== e.value.boot;
    if (e.value) this.members.set(node, e.value);
    else if (known) known.left = true;
    return changed;
  }

  /** The live members; this node among them unless draining (it runs, whatever a stale watch last said of it). */
  live(draining: boolean): string[] {
    const t = this.now();
    for (const [node, m] of this.members) if (m.until < t - FORGET_AFTER_TTLS * this.timings.ttlMs) this.members.delete(node);
    const live = [...this.members.values()].filter((m) => !m.left && m.node !== this.nodeId && this.alive(m, t, 0)).map((m) => m.node);
    return (draining ? live : [...live, this.nodeId]).sort();
  }

  /**
   * True once `member` surely holds no membership: its last heartbeat's lease ended (with the
   * clock margin), it left (drain) and that lease ended, or its node id heartbeats as another
   * incarnation (restarted). False whenever this node cannot be sure: for itself, while its own
   * watch has heard nothing for a lease lifetime or its own writes fail (cut off from NATS, silence
   * is not death), and for a member never heard of until the watch has run long enough to have
   * heard any live one. A bare node id stands for whichever incarnation holds it.
   */
  hasLapsed(member: string, stopped: boolean): boolean {
    if (member === `${this.nodeId}/${this.boot}`) return false;
    const t = this.now();
    const { ttlMs, marginMs } = this.timings;
    if (stopped || t - this.heardAt > ttlMs) return false;
    const slash = member.lastIndexOf('/');
    const m = this.members.get(slash < 0 ? member : member.slice(0, slash));
    if (!m) return t - this.watchingSince > ttlMs + marginMs;
    if (m.boot !== undefined && slash >= 0 && m.boot !== member.slice(slash + 1)) return true;
    return !this.alive(m, t, marginMs);
  }

  /**
   * The remote-ask protocol `node` speaks, as its latest heartbeat seen here announces it: 1 (one
   * ask per message, which every node reads) for a node whose heartbeat names none or that this
   * node has not heard of.
   */
  speaks(node: string): number {
    return this.members.get(node)?.protocol ?? 1;
  }

  /** Whether this node's writes to the bucket are failing now. */
  get inTrouble(): boolean {
    return this.troubleSince !== undefined;
  }

  /** A write failed for a transport reason; true when that starts an episode. */
  failed(): boolean {
    if (this.troubleSince !== undefined) return false;
    this.troubleSince = this.now();
    return true;
  }

  /** A write landed; the length of the episode it ends, if any. */
  wrote(): number | undefined {
    if (this.troubleSince === undefined) return undefined;
    const t = this.now();
    this.lastTrouble = { from: this.troubleSince, to: t };
    this.troubleSince = undefined;
    return t - this.lastTrouble.from;
  }

  /**
   * Alive while its heartbeat's lease runs; and, when that lease ended during (or a lease lifetime
   * before) an episode of failing writes here, until a lease lifetime after the episode ended.
   */
  private alive(m: Member, t: number, margin: number): boolean {
    if (m.until + margin > t) return true;
    const { from, to } = this.troubleSince === undefined ? this.lastTrouble : { from: this.troubleSince, to: Infinity };
    return m.until >= from - this.timings.ttlMs && t < to + this.timings.ttlMs + margin;
  }
}
