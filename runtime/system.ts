/**
 * The actor system (DESIGN "The runtime"): one instance per actor id, activated on first use
 * (activation.ts), one bounded mailbox each, processed serially; its asks and reads, its lifecycle
 * and the dispatch of turns.
 *
 * Dispatch: an actor with mail joins one ready queue, drained after the current I/O phase
 * (setImmediate), so the commands of every request that arrived in it are decided and committed
 * together rather than one commit per request. A drain pass takes ready actors in order and
 * gives each a turn: up to `batchSize` commands decided and evolved in memory, synchronously
 * (turns.ts). The turns of a pass are then committed together (commits.ts) while the next pass
 * proceeds with other actors; an actor gets no new turn until its commit is settled, so its
 * commands stay in mailbox order.
 */
import type { IndexPage, Stores } from '../stores/index.ts';
import { Activation } from './activation.ts';
import type { AnswerOf, AnyActorDef, CommandOf, CommandContext, EventMeta, PayloadOf, StateOf } from './actor.ts';
import type { AskOptions } from './ask.ts';
import { busy, Cells, exists, mailOf, type Cell } from './cells.ts';
import type { Clock } from './clock.ts';
import { Commits, type Committed } from './commits.ts';
import { listName } from './effects.ts';
import { listPage } from './list-page.ts';
import { ApiError, logOf, newId, shownId } from '../kernel/base/index.ts';
import { DerivedWatch } from './derived-watch.ts';
import { followDeclarations } from './index-declarations.ts';
import { EffectWriter } from './effect-writer.ts';
import { FeedLag } from './feed-lag.ts';
import { FigureBoard, type RuntimeFigures } from './figures.ts';
import { DEFAULT_LIMITS, type Limits } from './limits.ts';
import { Mailbox, type Envelope } from './mailbox.ts';
import { ReactionDispatcher } from './reactions.ts';
import { ReminderScheduler } from './scheduler.ts';
import { decideTurn, deliver, type Turn } from './turns.ts';
const RUNTIME_LOG = logOf('runtime');

export type { Committed } from './commits.ts';

/** Routes asks for actors this node does not own (cluster mode); absent when embedded. */
export interface Placement {
  isLocal(kind: string, id: string): boolean;
  forward(kind: string, id: string, call: RemoteCall): Promise<unknown>;
  /** For an actor of a shard taken over from a lapsed lease: the earliest event time whose effects may be missing (activation.ts). */
  recoverSince?(kind: string, id: string): number | undefined;
}

export type RemoteCall =
  | { op: 'ask'; command: string; payload: unknown; opts: AskOptions }
  | { op: 'get' | 'state'; org: string };

export interface ActorSystemOptions {
  stores: Stores;
  clock: Clock;
  kinds: readonly AnyActorDef[];
  limits?: Partial<Limits>;
  placement?: Placement;
  /** Where faults that reach no caller are reported (a failed listener, a dead reaction). */
  log?: (msg: string, err?: unknown) => void;
}

type KindRef = AnyActorDef | string;

const yieldToLoop = () => new Promise<void>((r) => setImmediate(r));

export class ActorSystem {
  readonly limits: Limits;
  readonly clock: Clock;
  readonly stores: Stores;
  /** Figures the areas add to the metrics (figures.ts). */
  readonly board = new FigureBoard();
  /** Every reader of the journal feed on this node, for their lag on the board (feed-lag.ts). */
  readonly feeds: FeedLag;
  private readonly kinds = new Map<string, AnyActorDef>();
  private readonly cells: Cells;
  private readonly activation: Activation;
  private readonly commits: Commits;
  private readonly tracked = new Set<Promise<unknown>>();
  private readonly scheduler: ReminderScheduler;
  private readonly reactions: ReactionDispatcher;
  /** Rebuilds the list indexes when their store lost them; absent where they cannot be lost apart from the journal. */
  readonly derived: DerivedWatch | undefined;
  private placement: Placement | undefined;
  private readonly log: (msg: string, err?: unknown) => void;
  /** Actors queued, activating for a turn, or with a commit in flight. */
  private inflight = 0;
  private readonly ready: Cell[] = [];
  private readyHead = 0;
  private drainScheduled = false;
  /** The one context and event meta every turn updates in place (decideTurn). */
  private readonly ctx: CommandContext = { now: 0, id: '', org: '', version: 0, requestId: undefined, principal: undefined, newId };
  private readonly meta: EventMeta = { at: 0, version: 0, eventId: '', org: '' };
  private reactionsOn = false;
  /** Says why a create asked with these options is refused, or nothing (limitCreation). */
  private creationLimit: ((opts: AskOptions) => string | undefined) | undefined;
  private shuttingDown = false;
  private sweepTimer: NodeJS.Timeout | undefined;

  constructor(opts: ActorSystemOptions) {
    this.limits = { ...DEFAULT_LIMITS, ...opts.limits };
    this.clock = opts.clock;
    this.stores = opts.stores;
    this.placement = opts.placement;
    this.log = opts.log ?? ((m, e) => (e === undefined ? RUNTIME_LOG.info(m) : RUNTIME_LOG.error(m, e)));
    for (const def of opts.kinds) {
      if (this.kinds.has(def.kind)) throw new Error(`actor kind ${def.kind} defined twice`);
      this.kinds.set(def.kind, def);
    }
    this.cells = new Cells(this.kinds.values(), opts.stores, opts.clock, this.limits, this.log);
    this.scheduler = new ReminderScheduler(this, opts.stores.reminders, opts.clock, this.limits, this.log);
    this.feeds = new FeedLag(opts.stores.journal, this.board);
    this.reactions = new ReactionDispatcher(this, opts.stores, [...this.kinds.values()], this.limits, this.log, this.feeds);
    const writer = new EffectWriter(opts.stores, this.scheduler, this.log, (p) => this.track(p), () => this.shuttingDown);
    this.activation = new Activation(opts.stores, this.scheduler, writer, this.limits, this.log, (kind, id) => this.placement?.recoverSince?.(kind, id));
    this.commits = new Commits(opts.stores, this.cells, this.scheduler, writer, this.limits, this.log, (cell) => this.release(cell));
    const marker = opts.stores.derived;
    if (marker) this.derived = new DerivedWatch(marker, [...this.kinds.values()], opts.stores.journal, opts.stores.indexes, this.limits.derivedCheckMs, this.log, (p) => this.track(p));
  }

  async start(): Promise<void> {
    // before the first request: a list declared anew over existing records starts whole
    await followDeclarations([...this.kinds.values()], this.stores, this.derived, this.log);
    await this.setReactionDispatch(true);
    this.scheduler.start();
    this.derived?.start();
    this.sweepTimer = setInterval(() => void this.sweep(), this.limits.sweepEveryMs).unref();
  }

  /** Stop accepting, drain every mailbox, flush snapshots, detach timers. */
  async stop(): Promise<void> {
    this.shuttingDown = true;
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    this.scheduler.stop();
    await this.derived?.stop();
    await this.setReactionDispatch(false);
    await this.settleMailboxes();
    await Promise.allSettled([...this.tracked]);
    const cells = [...this.cells.all()];
    await Promise.all(cells.map((c) => this.cells.snapshot(c)));
    for (const c of cells) this.cells.drop(c);
  }

  /**
   * Whether this node takes part in reading reactions (on from start() to stop()). In cluster mode
   * every node taking part runs a reader and the holder of its lease reads (DESIGN "Reactions").
   */
  async setReactionDispatch(on: boolean): Promise<void> {
    if (on === this.reactionsOn) return;
    this.reactionsOn = on;
    if (on) this.reactions.start();
    else await this.reactions.stop();
  }

  /** Asked on the asking node of every command that may create; its reason refuses the command where it would create. */
  limitCreation(limit: ((opts: AskOptions) => string | undefined) | undefined): void {
    this.creationLimit = limit;
  }

  setPlacement(p: Placement | undefined): void {
    this.placement = p;
  }

  kind(ref: KindRef): AnyActorDef {
    const def = typeof ref === 'string' ? this.kinds.get(ref) : ref;
    if (!def || this.kinds.get(def.kind) !== def) throw new Error(`unknown actor kind ${typeof ref === 'string' ? ref : ref.kind}`);
    return def;
  }

  get kindNames(): string[] {
    return [...this.kinds.keys()];
  }

  // ----------------------------------------------------------------------------------------------
  // Calls

  /** Typed from the definition: the command's payload, and its answer (AnswerOf: the reply, else the view). */
  ask<D extends AnyActorDef, K extends CommandOf<D>>(ref: D | string, id: string, command: K, payload: PayloadOf<D, K>, opts: AskOptions): Promise<AnswerOf<D, K>> {
    const def = this.kind(ref);
    if (!Object.hasOwn(def.decide, command)) return Promise.reject(new Error(`${def.kind} has no command ${command}`));
    const why = this.creationLimit !== undefined && !def.ephemeral && def.creates.includes(command) ? this.creationLimit(opts) : undefined;
    if (why !== undefined) opts = { ...opts, refuseCreate: why };
    if (this.placement && !this.placement.isLocal(def.kind, id)) {
      return this.placement.forward(def.kind, id, { op: 'ask', command, payload, opts }) as Promise<AnswerOf<D, K>>;
    }
    return this.askLocal(def, id, command, payload, opts) as Promise<AnswerOf<D, K>>;
  }

  /** Ask on this node (the cluster transport calls this for asks it received). */
  askLocal(def: AnyActorDef, id: string, command: string, payload: unknown, opts: AskOptions): Promise<unknown> {
    if (this.shuttingDown) return Promise.reject(new ApiError('unavailable', 'This node is shutting down; retry.', { retryable: true }));
    const cell = this.cells.cellFor(def, id);
    return new Promise((resolve, reject) => {
      const env: Envelope = {
        command, payload, org: opts.org, requestId: opts.requestId, principal: opts.principal, dedupeId: opts.dedupeId,
        noReply: opts.noReply === true, refuseCreate: opts.refuseCreate, resolve, reject, ok: false, value: undefined, next: undefined,
      };
      if (!(cell.mailbox ??= new Mailbox(this.limits.mailboxCapacity, this.limits.systemLaneCapacity)).push(env, opts.lane ?? 'user')) {
        reject(new ApiError('overloaded', `${def.kind} ${id} is busy; retry shortly.`, { retryable: true }));
        return;
      }
      this.schedule(cell);
    });
  }

  /** The API view of a committed actor. */
  async get(ref: KindRef, id: string, org: string): Promise<unknown> {
    const def = this.kind(ref);
    if (this.placement && !this.placement.isLocal(def.kind, id)) return this.placement.forward(def.kind, id, { op: 'get', org });
    return def.view(await this.stateLocal(def, id, org));
  }

  /** The raw committed state of an actor (for engines and read models in the same area). */
  /** Typed from the definition (StateOf); a caller naming S, or naming the kind by string, reads the state as S. */
  state<D extends AnyActorDef>(ref: D, id: string, org: string): Promise<StateOf<D>>;
  state<S = unknown>(ref: KindRef, id: string, org: string): Promise<S>;
  async state(ref: KindRef, id: string, org: string): Promise<unknown> {
    const def = this.kind(ref);
    if (this.placement && !this.placement.isLocal(def.kind, id)) return (await this.placement.forward(def.kind, id, { op: 'state', org })) as never;
    return (await this.stateLocal(def, id, org)) as never;
  }

  async stateLocal(def: AnyActorDef, id: string, org: string): Promise<unknown> {
    const cell = this.cells.cellFor(def, id);
    if (!cell.ready) await this.activation.activate(cell);
    if (!exists(cell)) {
      this.cells.forgetIfEmpty(cell);
      throw new ApiError('not_found', `No ${def.kind} with id ${shownId(id)}.`);
    }
    if (cell.org !== org) throw new ApiError('organisation_mismatch', `${id} belongs to another organisation.`);
    cell.lastActive = this.clock.now();
    return cell.state;
  }

  /** One page of the ids on a kind's list, in the list's order (for reads that need states, not views). */
  listIds(ref: KindRef, org: string, list: string, opts: { after?: string; limit: number; order: 'asc' | 'desc' }): Promise<IndexPage> {
    const def = this.kind(ref);
    return listPage(this.stores.indexes, def, org, list, opts, (id) => this.state(def, id, org));
  }

  /** Every id on a kind's list, a page at a time, in the list's order. */
  async *eachIds(ref: KindRef, org: string, list: string, order: 'asc' | 'desc' = 'asc', pageSize = 500): AsyncGenerator<string[]> {
    let after: string | undefined;
    for (;;) {
      const page = await this.listIds(ref, org, list, { after, limit: pageSize, order });
      if (page.ids.length) yield page.ids;
      if (!page.hasMore || page.ids.length === 0) return;
      after = page.ids[page.ids.length - 1];
    }
  }

  async list(ref: KindRef, org: string, list: string, opts: { after?: string; limit: number; order: 'asc' | 'desc' }): Promise<{ data: unknown[]; has_more: boolean }> {
    const def = this.kind(ref);
    const page = await this.listIds(def, org, list, opts);
    const ids = page.ids;
    const data: unknown[] = new Array(ids.length);
    // Members active on this node are read in place; the rest (to activate, or on another node)
    // through get(), together. A page of 25 active keys then costs no promise per member.
    const cells = this.cells.of(def);
    const placement = this.placement;
    const now = this.clock.now();
    let pending: Array<Promise<void>> | undefined;
    for (let i = 0; i < ids.length; i++) {
      const cell = placement === undefined || placement.isLocal(def.kind, ids[i]) ? cells.get(ids[i]) : undefined;
      if (cell !== undefined && cell.ready && cell.org === org) {
        cell.lastActive = now;
        data[i] = def.view(cell.state);
      } else {
        (pending ??= []).push(this.get(def, ids[i], org).then((v) => void (data[i] = v)));
      }
    }
    if (pending) await Promise.all(pending);
    return { data, has_more: page.hasMore };
  }

  /**
   * `listener` is told of every commit on this node. With `ahead` (a read model kept in memory,
   * which the request that made a turn reads next), over an ordered journal it is told when the
   * turn goes ahead, before the commit (commits.ts): it must start nothing outside the process. Others
   * are told once the commit is durable (they may start outbound work).
   */
  onCommit(listener: (c: Committed) => void, opts: { ahead?: boolean } = {}): () => void {
    const set = opts.ahead && this.stores.journal.ordered ? this.commits.aheadListeners : this.commits.listeners;
    set.add(listener);
    return () => set.delete(listener);
  }

  /**
   * Settles once every turn answered so far is committed and its effects and commit listeners have
   * run (read models included), and every write queued before the call is on disk (Stores.flushed);
   * rejects when they are not. What acknowledges a write outside the process waits for this: over
   * an ordered journal a turn's callers are answered before its commit (commits.ts).
   */
  flushed(): Promise<void> {
    return this.commits.flushed();
  }

  /** True once stop() began: asks are refused, and work tracked for settle() should wind down rather than retry. */
  get stopping(): boolean {
    return this.shuttingDown;
  }

  /** Let settle() wait for outside work an area started (for example an outbound HTTP attempt). */
  track<T>(p: Promise<T>): Promise<T> {
    this.tracked.add(p);
    // Unnamed callbacks: a named closure made per call costs a name definition under tsx.
    p.then(
      () => this.tracked.delete(p),
      () => this.tracked.delete(p),
    );
    return p;
  }

  /** Wait until mailboxes are empty, reactions caught up, due timers fired and tracked work done. */
  async settle(): Promise<void> {
    for (let quiet = 0; quiet < 3; ) {
      await yieldToLoop();
      if (this.clock.manual) await this.scheduler.fireDue(this.clock.now());
      await Promise.allSettled([...this.tracked]);
      await this.reactions.caughtUp();
      quiet = this.inflight === 0 && this.commits.uncommitted === 0 && this.tracked.size === 0 && this.reactions.idle ? quiet + 1 : 0;
    }
  }

  /** Number of actors in memory. */
  get activeCount(): number {
    return this.cells.count;
  }

  /** What an operator watches the runtime by (gateway/metrics.ts), read when asked. */
  figures(): RuntimeFigures {
    return {
      resident: this.cells.count, passivations: this.cells.passivations, mailboxDepth: this.cells.mailboxDepth(), turnsInFlight: this.inflight, uncommittedTurns: this.commits.uncommitted,
      journalAppends: this.commits.appends, journalAppendSeconds: this.commits.appendSeconds, remindersFired: this.scheduler.fired, remindersPostponed: this.scheduler.postponed,
    };
  }

  /** How long the earliest reminder has been due without firing, in ms (0 when none is due): read at a scrape. */
  async reminderLatenessMs(): Promise<number> {
    const next = await this.scheduler.nextDue();
    return next === undefined ? 0 : Math.max(0, this.clock.now() - next);
  }

  /** Snapshot and drop idle actors (the sweep calls this; tests may too). */
  async passivateIdle(idleMs = this.limits.idleMs): Promise<number> {
    return this.cells.passivateIdle(this.clock.now() - idleMs);
  }

  /** Drop every local actor matching `which` (cluster: a shard handed to another node). */
  async passivateWhere(which: (kind: string, id: string) => boolean): Promise<void> {
    const targets = [...this.cells.all()].filter((c) => which(c.def.kind, c.id));
    await Promise.all(targets.map(async (c) => {
      while (busy(c)) await yieldToLoop();
      await this.cells.passivate(c);
    }));
  }

  // ----------------------------------------------------------------------------------------------
  // Dispatch (header)

  private schedule(cell: Cell): void {
    if (cell.queued || cell.running) return;
    cell.queued = true;
    this.inflight++;
    this.ready.push(cell);
    if (!this.drainScheduled) {
      this.drainScheduled = true;
      setImmediate(this.drain);
    }
  }

  /** A cell leaves the pipeline; it rejoins when mail is waiting. */
  private release(cell: Cell): void {
    cell.running = false;
    this.inflight--;
    cell.lastActive = this.clock.now();
    // a flood of new actors can leave none idle to shed while it lasts: shed as they come to rest
    this.cells.shedIfFull();
    if (mailOf(cell) > 0) {
      if (!cell.dropped) this.schedule(cell);
      else this.cells.forgetIfEmpty(cell);
    } else {
      cell.mailbox = undefined;
      this.cells.forgetIfEmpty(cell);
    }
  }

  /** One pass over the ready queue: decide turns synchronously, then commit them together. */
  private readonly drain = (): void => {
    this.drainScheduled = false;
    const turns: Turn[] = [];
    let budget = this.limits.drainBudget;
    while (this.readyHead < this.ready.length && budget > 0) {
      const cell = this.ready[this.readyHead];
      this.ready[this.readyHead++] = undefined as unknown as Cell;
      cell.queued = false;
      cell.running = true;
      if (!!cell.dropped) {
        cell.running = false;
        this.inflight--;
        continue;
      }
      if (!cell.ready) {
        this.activateForTurn(cell);
        continue;
      }
      const turn = decideTurn(cell, this.clock.now(), this.ctx, this.meta, this.limits.batchSize, this.log);
      budget -= turn.taken;
      if (turn.events.length === 0) {
        deliver(turn);
        this.release(cell);
      } else turns.push(turn);
    }
    if (this.readyHead === this.ready.length) {
      this.ready.length = 0;
      this.readyHead = 0;
    } else if (this.readyHead > 4096 && this.readyHead * 2 > this.ready.length) {
      this.ready.splice(0, this.readyHead);
      this.readyHead = 0;
    }
    if (turns.length) void this.commits.commit(turns);
    if (this.readyHead < this.ready.length && !this.drainScheduled) {
      this.drainScheduled = true;
      setImmediate(this.drain); // budget spent: let I/O in before the next pass
    }
  };

  private activateForTurn(cell: Cell): void {
    this.activation.activate(cell).then(
      () => this.release(cell),
      (e) => {
        // A store is unreachable: everyone waiting gets an answer they can retry.
        for (const env of cell.mailbox?.drain() ?? []) env.reject(new ApiError('unavailable', 'The record could not be loaded; retry.', { retryable: true }));
        this.log(`activation of ${cell.key} failed`, e);
        this.cells.drop(cell);
        this.release(cell);
      },
    );
  }

  private async sweep(): Promise<void> {
    try {
      await this.passivateIdle();
    } catch (e) {
      this.log('passivation sweep failed', e);
    }
  }

  private async settleMailboxes(): Promise<void> {
    // a cell with mail is always queued or running, so counted
    while (this.inflight > 0 || this.commits.uncommitted > 0) await yieldToLoop();
  }
}
