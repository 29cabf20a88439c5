/**
 * A cluster node (DESIGN "Sharding"): the Placement the actor system consults on every
 * ask and get. An actor whose shard this node holds runs here; any other travels as a NATS
 * request to the owner's subject `<ns>.node.<owner>`. A request for a shard the receiver does not
 * serve (being handed over, just lost) is answered `moved`, with nothing applied, and the caller
 * retries against the lease table until an owner appears or `forwardWaitMs` passes.
 *
 * A new owner loads snapshot + journal on first use (ActorSystem activation); the journal's
 * expected-sequence append refuses a stale owner's write, so an actor never has two writers.
 * Reactions are read by one node at a time, the holder of their feed reader's lease (DESIGN
 * "Reactions"), not by shard; reminders are claimed atomically in Redis, so any node may fire
 * them. drain() (SIGTERM) hands every shard over without failing a caller: asks wait for the new
 * owner rather than erroring.
 *
 * A call travels in the message body, never in the subject (docs/cluster.md "Names"), and is
 * bounded by the server's max_payload on both legs: an oversize call is refused before it is sent
 * (413) and an oversize answer becomes a fault reply, so neither can cost the node its connection.
 *
 * The node is also the platform's Membership (kernel/membership.ts): its member name and whether
 * another member's lease has lapsed, from the lease table's membership keys.
 */
import type { Msg, NatsConnection, Subscription } from '@nats-io/transport-node';
import { isStoreFault, type ClusterStores } from '../../stores/index.ts';
import { ApiError, assertNever, outcomeUnknown } from '../../kernel/base/index.ts';
import { SystemClock } from '../clock.ts';
import type { ActorSystem, Placement, RemoteCall } from '../system.ts';
import { DEFAULT_TIMINGS, ShardLeases, type LeaseTimings } from './leases.ts';
import { TakeoverRecovery } from './takeover-recovery.ts';
import { batchOf, type Batched, decodeBatch, NoResponders, Requests, RequestsStopped, RequestTimedOut, TargetLapsed } from './requests.ts';
import { DEFAULT_SHARDS, shardOf, shardOfStream } from './shards.ts';
import { ASK_PROTOCOL, BATCHED_ASKS, decodeReply, decodeRequest, encode, replyOf, unwrap, type RemoteReply } from './wire.ts';
import { logOf } from '../../kernel/base/index.ts';

const CLUSTER_LOG = logOf('cluster');

/** NATS's default max_payload, used until the server's INFO says otherwise. */
const DEFAULT_MAX_PAYLOAD = 1 << 20;
/** The answer to an ask for a shard this node does not serve: nothing was applied. */
const MOVED = encode({ t: 'moved' });
/** How long after its append a starved node may still be writing a commit's effects (recoverSince). */
const RECOVERY_SLACK_MS = 60_000;

/** An id as error messages show it: a hostile one may be megabytes long. */
const shown = (id: string): string => (id.length > 80 ? `${id.slice(0, 80)}...` : id);

export interface ClusterNodeOptions {
  stores: ClusterStores;
  nodeId: string;
  shards?: number;
  timings?: Partial<LeaseTimings>;
  /** How long one remote ask may take before the caller gets a retryable 503 (outcome_unknown for a command). */
  requestTimeoutMs?: number;
  /** How long an ask waits for its shard to get an owner (failover, hand-over) before a 503. */
  forwardWaitMs?: number;
  /** Wall clock for leases (never a ManualClock: leases are about real processes). */
  now?: () => number;
  log?: (msg: string, err?: unknown) => void;
  /**
   * The remote-ask protocol this node announces (wire.ts ASK_PROTOCOL, the default); 1 stands in
   * for a node from before batches, in the tests of a rolling upgrade.
   */
  askProtocol?: number;
}

export class ClusterNode implements Placement {
  readonly nodeId: string;
  readonly shards: number;
  readonly leases: ShardLeases;
  private system: ActorSystem | undefined;
  private sub: Subscription | undefined;
  private stopped = false;
  private readonly nc: NatsConnection;
  private readonly subjectPrefix: string;
  private readonly requestTimeoutMs: number;
  private readonly forwardWaitMs: number;
  private readonly log: (msg: string, err?: unknown) => void;
  private readonly now: () => number;
  /** Requests to other nodes, failed at once when the owner's membership lapses. */
  private readonly requests: Requests;
  private watchdog: NodeJS.Timeout | undefined;
  /** Writes a dead node's unwritten list and timer changes on the shards taken over from it. */
  private recovery: TakeoverRecovery | undefined;
  /** The shards being released in this turn, passivated together (passivate). */
  private releasing: { shards: Set<number>; done: Promise<void> } | undefined;

  constructor(opts: ClusterNodeOptions) {
    this.nodeId = opts.nodeId;
    this.shards = opts.shards ?? DEFAULT_SHARDS;
    this.nc = opts.stores.nats;
    this.subjectPrefix = `${opts.stores.namespace}.node`;
    this.requestTimeoutMs = opts.requestTimeoutMs ?? 5_000;
    this.forwardWaitMs = opts.forwardWaitMs ?? 15_000;
    this.log = opts.log ?? ((m, e) => (e === undefined ? CLUSTER_LOG.info(m, { node: opts.nodeId }) : CLUSTER_LOG.error(m, e, { node: opts.nodeId })));
    const clock = new SystemClock();
    this.now = opts.now ?? (() => clock.now());
    const protocol = opts.askProtocol ?? ASK_PROTOCOL;
    // a batch goes only to an owner whose membership says it reads one (wire.ts ASK_PROTOCOL)
    const batchTo = (owner: string) => protocol >= BATCHED_ASKS && this.leases.members.speaks(owner) >= BATCHED_ASKS;
    this.requests = new Requests(this.nc, this.now, this.log, opts.stores.atTurnEnd, batchTo);
    this.leases = new ShardLeases(
      this.nc,
      `${opts.stores.namespace}_shards`,
      opts.nodeId,
      this.shards,
      { gained: (s) => this.recovery?.gained(s), releasing: (s) => this.passivate(s), lost: (s) => void this.lostShard(s) },
      this.now,
      { ...DEFAULT_TIMINGS, ...opts.timings },
      this.log,
      { replicas: opts.stores.replicas, protocol },
    );
  }

  /** Serve remote asks for `system` and start taking shards. */
  async start(system: ActorSystem): Promise<void> {
    this.system = system;
    system.setPlacement(this);
    this.recovery = new TakeoverRecovery({
      system,
      journal: system.stores.journal,
      shards: this.shards,
      takenOverAt: (s) => this.leases.takenOverAt(s),
      recoverSince: (at) => this.sinceTakeover(at),
      holds: (s) => this.leases.holds(s),
      log: this.log,
    });
    this.sub = this.nc.subscribe(`${this.subjectPrefix}.${this.nodeId}`, {
      callback: (err, msg) => {
        if (!err) this.received(msg);
      },
    });
    this.requests.start();
    await this.nc.flush();
    await this.leases.start();
    this.watchdog = setInterval(() => this.requests.sweep((owner) => this.leases.hasLapsed(owner)), this.leases.timings.tickMs);
  }

  /** This process as a cluster member (kernel Membership): node id and this start's incarnation. */
  get member(): string {
    return this.leases.member;
  }

  /** Live members, this node included (kernel Membership.liveCount). */
  liveCount(): number {
    return this.leases.liveMembers().length;
  }

  /** True once `member` surely holds no membership lease (kernel Membership; ShardLeases.hasLapsed). */
  hasLapsed(member: string): boolean {
    return this.leases.hasLapsed(member);
  }

  isLocal(kind: string, id: string): boolean {
    return this.system !== undefined && this.leases.holds(shardOf(kind, id, this.shards));
  }

  /**
   * The earliest event time whose effects may be missing for an actor of a shard this node took
   * over from a lapsed lease: the previous holder committed only while its lease was valid (at most
   * a lease lifetime before the takeover, with the clock margin), and wrote each commit's effects
   * right after it, which a busy node may take seconds to do (RECOVERY_SLACK_MS).
   */
  recoverSince(kind: string, id: string): number | undefined {
    const at = this.leases.takenOverAt(shardOf(kind, id, this.shards));
    return at === undefined ? undefined : this.sinceTakeover(at);
  }

  private sinceTakeover(at: number): number {
    const { ttlMs, marginMs } = this.leases.timings;
    return at - ttlMs - marginMs - RECOVERY_SLACK_MS;
  }

  /** Resolves once no takeover recovery runs (tests). */
  recovered(): Promise<void> {
    return this.recovery?.idle() ?? Promise.resolve();
  }

  /** Streams (journal `${kind}.${id}`) whose shard this node serves. */
  ownsStream(stream: string): boolean {
    return this.leases.holds(shardOfStream(stream, this.shards));
  }

  async forward(kind: string, id: string, call: RemoteCall): Promise<unknown> {
    const shard = shardOf(kind, id, this.shards);
    const deadline = this.now() + this.forwardWaitMs;
    let pause = 25;
    for (;;) {
      if (this.stopped) throw new ApiError('unavailable', 'This node has left the cluster; retry.', { retryable: true });
      if (this.system !== undefined && this.leases.holds(shard)) return this.local(kind, id, call);
      const owner = this.leases.ownerOf(shard);
      if (owner !== undefined && owner !== this.nodeId) {
        const reply = await this.request(owner, kind, id, call);
        if (reply !== undefined && reply.t !== 'moved') return unwrap(reply);
      }
      if (this.now() >= deadline) throw new ApiError('unavailable', `No node serves ${kind} ${shown(id)} right now; retry.`, { retryable: true });
      await this.leases.changed(pause);
      pause = Math.min(pause * 2, 250);
    }
  }

  /** Hand every shard to the other nodes (SIGTERM); asks from here keep working through them. */
  async drain(): Promise<void> {
    await this.leases.drain();
  }

  /** Stop serving and leave (after drain(), or abruptly in tests). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.watchdog);
    await this.recovery?.stop();
    await this.leases.stop();
    await this.sub?.drain().catch(() => {});
    this.sub = undefined;
    this.requests.stop();
  }

  // ----------------------------------------------------------------------------------------------

  /**
   * One request to the owner; undefined when it is gone (no responders) so the caller waits. A
   * request the owner took and never answered (killed mid-request) ends when its membership lapses,
   * not after the whole request timeout.
   */
  private async request(owner: string, kind: string, id: string, call: RemoteCall): Promise<RemoteReply | undefined> {
    const data = encode({ kind, id, call });
    if (data.length > this.maxPayload()) {
      throw new ApiError('payload_too_large', `A call to ${kind} ${shown(id)} is ${data.length} bytes; at most ${this.maxPayload()} travel between nodes.`);
    }
    try {
      return decodeReply(await this.requests.send(`${this.subjectPrefix}.${owner}`, owner, data, this.requestTimeoutMs));
    } catch (e) {
      if (e instanceof NoResponders) return undefined;
      if (e instanceof TargetLapsed || e instanceof RequestTimedOut) {
        // The owner may have applied a command before going quiet: only the client may retry
        // (with its Idempotency-Key), never this node behind its back. A read applied nothing.
        if (call.op === 'ask') throw outcomeUnknown(`The node serving ${kind} ${shown(id)} did not answer in time`);
        throw new ApiError('unavailable', `The node serving ${kind} ${shown(id)} did not answer in time; retry.`, { retryable: true });
      }
      if (e instanceof RequestsStopped) {
        if (e.sent && call.op === 'ask') throw outcomeUnknown(`This node left the cluster before ${kind} ${shown(id)} answered`);
        throw new ApiError('unavailable', 'This node has left the cluster; retry.', { retryable: true });
      }
      // Not sent: NATS refused the publish.
      if (isStoreFault(e)) throw new ApiError('unavailable', `The call to ${kind} ${shown(id)} could not be sent; retry.`, { retryable: true });
      throw e;
    }
  }

  /** A remote ask, or a batch of them (requests.ts), each answered on its own as it completes. */
  private received(msg: Msg): void {
    const batch = msg.reply ? batchOf(msg.reply) : undefined;
    if (batch === undefined) return this.answer(msg.data, (data) => this.requests.reply(msg, data));
    let items: Batched[];
    try {
      items = decodeBatch(msg.data);
    } catch (e) {
      this.log('an unreadable batch of remote asks was dropped (its askers time out)', e);
      return;
    }
    for (const [token, request] of items) this.answer(request, (data) => this.requests.replyTo({ inbox: batch.inbox, token }, data));
  }

  /**
   * Answers one remote ask through `send`: whatever happens, once, within max_payload. A store
   * failing under it travels as a retryable 503 (a bug as a fault): `outcome_unknown` for a
   * command, which may have written, and `unavailable` for a read. An ask for a shard this node does
   * not serve is answered `moved` with nothing applied. Promise callbacks rather than async layers:
   * this runs for most commands of a busy cluster.
   */
  private answer(request: Uint8Array, send: (data: Uint8Array) => void): void {
    let op: RemoteCall['op'] | undefined;
    try {
      const { kind, id, call } = decodeRequest(request);
      op = call.op;
      if (!this.isLocal(kind, id)) return send(MOVED);
      this.local(kind, id, call).then(
        (value) => send(this.answered(value, call.op)),
        (e) => send(this.refusal(e, call.op)),
      );
    } catch (e) {
      send(this.refusal(e, op));
    }
  }

  /** The bytes of an answer, or of the fault it became (unencodable, or over max_payload). */
  private answered(value: unknown, op: RemoteCall['op']): Uint8Array {
    let data: Uint8Array;
    try {
      data = encode({ t: 'ok', value });
    } catch (e) {
      return this.refusal(e, op);
    }
    return this.fitted(data);
  }

  /** An answer as it may travel: one over max_payload becomes a fault. */
  private fitted(data: Uint8Array): Uint8Array {
    return data.length > this.maxPayload() ? encode({ t: 'fault', message: `The answer is ${data.length} bytes; at most ${this.maxPayload()} travel between nodes.` }) : data;
  }

  private refusal(e: unknown, op: RemoteCall['op'] | undefined): Uint8Array {
    if (!isStoreFault(e)) return this.fitted(encode(replyOf(e)));
    if (op === 'ask') return encode(replyOf(outcomeUnknown('A store did not answer while the command ran')));
    return encode(replyOf(new ApiError('unavailable', 'A store did not answer; retry.', { retryable: true })));
  }

  private maxPayload(): number {
    return this.nc.info?.max_payload ?? DEFAULT_MAX_PAYLOAD;
  }

  private local(kind: string, id: string, call: RemoteCall): Promise<unknown> {
    const system = this.system!;
    const def = system.kind(kind);
    switch (call.op) {
      case 'ask':
        return system.askLocal(def, id, call.command, call.payload, call.opts);
      case 'get':
        return system.stateLocal(def, id, call.org).then((state) => def.view(state));
      case 'state':
        return system.stateLocal(def, id, call.org);
      default:
        return assertNever(call);
    }
  }

  /**
   * Passivates the actors of `shard`. Shards released in one turn (a drain releases every shard it
   * holds at once) share one walk over the active actors, each actor's shard worked out once: a
   * walk per shard would hash every actor once per shard, while the other nodes wait for them.
   */
  private passivate(shard: number): Promise<void> {
    let batch = this.releasing;
    if (batch === undefined) {
      const shards = new Set<number>();
      const done = Promise.resolve().then(async () => {
        this.releasing = undefined;
        await this.system?.passivateWhere((kind, id) => shards.has(shardOf(kind, id, this.shards)));
      });
      batch = this.releasing = { shards, done };
    }
    batch.shards.add(shard);
    return batch.done;
  }

  private async lostShard(shard: number): Promise<void> {
    this.log(`lost shard ${shard} without a hand-over`);
    try {
      await this.passivate(shard);
    } catch (e) {
      this.log(`passivating lost shard ${shard} failed`, e);
    }
  }
}
