/**
 * The actor system (DESIGN "The runtime"): one instance per actor id, activated on first use
 * (snapshot, then the journal after it), one bounded mailbox each, processed serially.
 *
 * Dispatch: an actor with mail joins one ready queue, drained after the current I/O phase
 * (setImmediate), so the commands of every request that arrived in it are decided and committed
 * together rather than one commit per request. A drain pass takes ready actors in order and
 * gives each a turn: up to `batchSize` commands decided and evolved in memory, synchronously.
 * The turns of a pass are then committed together (one group commit over all their streams, each
 * with its expected version) while the next pass proceeds with other actors; an actor gets no new
 * turn until its commit is settled, so its commands stay in mailbox order. Only after the commit
 * are callers answered, index and timer changes written (a journal that writes effects takes them
 * in the same transaction as the events: Journal.writesEffects), snapshots taken when due and
 * commit listeners told. If an actor's append fails nothing of its turn is kept and each of its callers
 * gets a retryable error.
 *
 * Over an ordered journal (Journal.ordered: appends kept in order, and none after a failed one)
 * a turn goes ahead once its append is queued: the actor takes its state, its callers are
 * answered and it may take its next turn, decided on that state, while the commit is in flight.
 * Commit listeners and snapshots still wait for the commit. Nothing outside the process is told
 * before the commit (whatever acknowledges a write waits for Stores.flushed()); a failed append
 * reloads the actor and leaves the stores taking no more writes.
 *
 * Checks before decide run in a fixed order: organisation (403 organisation_mismatch), existence
 * (404 not_found unless the command creates), dedupe (a duplicate gets the current view).
 *
 * Effects after a takeover: a commit's effects are written after its append, so a node killed in
 * between leaves the events durable and their list or timer writes undone (a timer lost so breaks
 * every chain of reminders an area keeps, such as a payout instruction's tally). A node that took
 * a shard over from a lapsed lease (Placement.recoverSince) therefore, when it activates an actor
 * whose journal after its snapshot holds events since then, writes that actor's list memberships
 * and timers again from the state before those events to the state now; a timer already held with
 * the same due time, command and payload is left alone. Commit listeners are not told again (they
 * start outbound work; an area's own reminders recover it). A snapshot is written only after its
 * commit's effects, so events it covers need nothing.
 */
import type { CommitEffects, IndexPage, Stores, StoredEvent } from '../stores/index.ts';
import { isStoreFault, VersionConflictError } from '../stores/index.ts';
import type { AnyActorDef, CommandOf, CommandContext, EventMeta, PayloadOf } from './actor.ts';
import type { AskOptions } from './ask.ts';
import type { Clock } from './clock.ts';
import { decodeSnapshot, encodeSnapshot } from './codec.ts';
import { listed, remember, seen, type Remembered } from './dedupe.ts';
import { indexOps, listName, timerOps } from './effects.ts';
import { ApiError, isApiError, newId, outcomeUnknown, shownId } from '../kernel/base/index.ts';
import { DEFAULT_LIMITS, type Limits } from './limits.ts';
import { Mailbox, type Envelope } from './mailbox.ts';
import { ReactionDispatcher } from './reactions.ts';
import { ReminderScheduler } from './scheduler.ts';

export interface Committed {
  kind: string;
  id: string;
  /** The journal stream of the actor (`<kind>.<id>`). */
  stream: string;
  org: string;
  events: StoredEvent[];
  /** The actor's state after the commit (read it, never change it). */
  readonly state: unknown;
  /** The API view after the commit (computed on first read). */
  readonly view: unknown;
}

/** Routes asks for actors this node does not own (cluster mode); absent when embedded. */
export interface Placement {
  isLocal(kind: string, id: string): boolean;
  forward(kind: string, id: string, call: RemoteCall): Promise<unknown>;
  /** For an actor of a shard taken over from a lapsed lease: the earliest event time whose effects may be missing (header). */
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

interface Cell {
  def: AnyActorDef;
  id: string;
  key: string;
  org: string | undefined;
  state: unknown;
  version: number;
  snapVersion: number;
  /** Recent dedupe ids applied, at least the last `dedupeMemory` (made on first use). */
  dedupe: Remembered;
  /**
   * Made when mail arrives and let go once the cell has none: most cells hold none at rest, and a
   * mailbox per resident cell was an object more for the collector to copy.
   */
  mailbox: Mailbox | undefined;
  ready: boolean;
  loading: Promise<void> | undefined;
  /** In the ready queue. */
  queued: boolean;
  /** Removed from the system (passivated, failed, reloading); a new cell serves the id next. */
  dropped: boolean;
  /** Activating for a turn, or a turn decided and its commit not yet settled. */
  running: boolean;
  /**
   * Turns answered ahead of their commit and not yet committed (an ordered journal: header). The
   * cell's state includes them; it is not passivated meanwhile, since an activation reads the disk.
   */
  ahead: number;
  lastActive: number;
}

/** A decided turn awaiting its commit; it is its own journal append item (stream, expected version, events). */
interface Turn {
  cell: Cell;
  stream: string;
  /** The version before the turn. */
  expectedVersion: number;
  /** The events staged by the turn. */
  events: StoredEvent[];
  beforeState: unknown;
  beforeOrg: string | undefined;
  state: unknown;
  version: number;
  org: string | undefined;
  /** Dedupe ids applied in this turn (allocated on first use). */
  dedupe: string[] | undefined;
  /** List and timer changes handed to a journal that writes them with the events (Journal.writesEffects). */
  effects?: CommitEffects;
  /** The envelopes taken, in order, linked through `next`, each with its outcome. */
  first: Envelope | undefined;
  last: Envelope | undefined;
  taken: number;
}

type KindRef = AnyActorDef | string;

const yieldToLoop = () => new Promise<void>((r) => setImmediate(r));

/** Events after an actor's last snapshot below which passivation writes none (passivate). */
const PASSIVATION_TAIL = 8;

/** Actors a shedding pass passivates at once (their snapshots written together). */
const SHED_TOGETHER = 1_024;

/** Messages waiting for a cell. */
const mailOf = (cell: Cell): number => cell.mailbox?.size ?? 0;

/** In a turn, waiting for one, or holding turns not yet committed: not to be passivated. */
const busy = (cell: Cell): boolean => cell.running || cell.queued || cell.ahead > 0 || mailOf(cell) > 0;

function outcome(turn: Turn, env: Envelope, ok: boolean, value: unknown): void {
  env.ok = ok;
  env.value = value;
  if (turn.last) turn.last.next = env;
  else turn.first = env;
  turn.last = env;
  turn.taken++;
}

/** Delivers every outcome of a turn to its caller. */
function deliver(turn: Turn): void {
  for (let o = turn.first; o; ) {
    const next = o.next;
    o.next = undefined;
    if (o.ok) o.resolve(o.value);
    else o.reject(o.value);
    o = next;
  }
}

/**
 * A committed event as one literal of its exact fields (absent ones left out, as the stores and
 * the feed have always read them). Adding the optional fields after the literal gave every event
 * an out-of-object property array, an object more per event for the collector to copy while the
 * journal keeps it.
 */
function storedEvent(version: number, id: string, type: string, data: unknown, at: number, org: string, requestId: string | undefined, principal: string | undefined, dedupe: string | undefined): StoredEvent {
  if (dedupe === undefined) {
    if (principal === undefined) return requestId === undefined ? { version, id, type, data, at, org } : { version, id, type, data, at, org, requestId };
    return requestId === undefined ? { version, id, type, data, at, org, principal } : { version, id, type, data, at, org, requestId, principal };
  }
  if (principal === undefined) return requestId === undefined ? { version, id, type, data, at, org, dedupe } : { version, id, type, data, at, org, requestId, dedupe };
  return requestId === undefined ? { version, id, type, data, at, org, principal, dedupe } : { version, id, type, data, at, org, requestId, principal, dedupe };
}

export class ActorSystem {
  readonly limits: Limits;
  readonly clock: Clock;
  readonly stores: Stores;
  private readonly kinds = new Map<string, AnyActorDef>();
  /** Active actors, one map per kind (no key building on the hot path). */
  private readonly cells = new Map<AnyActorDef, Map<string, Cell>>();
  private cellCount = 0;
  private shedding = false;
  private readonly listeners = new Set<(c: Committed) => void>();
  /** Listeners told of a turn that went ahead of its commit (onCommit `ahead`, an ordered journal). */
  private readonly aheadListeners = new Set<(c: Committed) => void>();
  private readonly tracked = new Set<Promise<unknown>>();
  private readonly scheduler: ReminderScheduler;
  private readonly reactions: ReactionDispatcher;
  private placement: Placement | undefined;
  private readonly log: (msg: string, err?: unknown) => void;
  /** Actors queued, activating for a turn, or with a commit in flight. */
  private inflight = 0;
  /** Turns that went ahead of their commit (an ordered journal) and are not yet committed. */
  private uncommitted = 0;
  /** Group commits whose turns went ahead, until each turn's effects and commit listeners have run. */
  private readonly settling = new Set<Promise<void>>();
  private readonly ready: Cell[] = [];
  private readyHead = 0;
  private drainScheduled = false;
  private readonly ctx: CommandContext = { now: 0, id: '', org: '', version: 0, requestId: undefined, principal: undefined, newId };
  private readonly meta: EventMeta = { at: 0, version: 0, eventId: '', org: '' };
  private reactionsOn = false;
  private shuttingDown = false;
  private sweepTimer: NodeJS.Timeout | undefined;

  constructor(opts: ActorSystemOptions) {
    this.limits = { ...DEFAULT_LIMITS, ...opts.limits };
    this.clock = opts.clock;
    this.stores = opts.stores;
    this.placement = opts.placement;
    this.log = opts.log ?? ((m, e) => console.error(`[runtime] ${m}`, e ?? ''));
    for (const def of opts.kinds) {
      if (this.kinds.has(def.kind)) throw new Error(`actor kind ${def.kind} defined twice`);
      this.kinds.set(def.kind, def);
      this.cells.set(def, new Map());
    }
    this.scheduler = new ReminderScheduler(this, opts.stores.reminders, opts.clock, this.limits, this.log);
    this.reactions = new ReactionDispatcher(this, opts.stores, [...this.kinds.values()], this.limits, this.log);
  }

  async start(): Promise<void> {
    await this.setReactionDispatch(true);
    this.scheduler.start();
    this.sweepTimer = setInterval(() => void this.sweep(), this.limits.sweepEveryMs).unref();
  }

  /** Stop accepting, drain every mailbox, flush snapshots, detach timers. */
  async stop(): Promise<void> {
    this.shuttingDown = true;
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    this.scheduler.stop();
    await this.setReactionDispatch(false);
    await this.settleMailboxes();
    await Promise.allSettled([...this.tracked]);
    const cells = [...this.allCells()];
    await Promise.all(cells.map((c) => this.snapshot(c)));
    for (const c of cells) this.drop(c);
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

  ask<D extends AnyActorDef, K extends CommandOf<D>>(ref: D | string, id: string, command: K, payload: PayloadOf<D, K>, opts: AskOptions): Promise<unknown> {
    const def = this.kind(ref);
    if (!Object.hasOwn(def.decide, command)) return Promise.reject(new Error(`${def.kind} has no command ${command}`));
    if (this.placement && !this.placement.isLocal(def.kind, id)) {
      return this.placement.forward(def.kind, id, { op: 'ask', command, payload, opts });
    }
    return this.askLocal(def, id, command, payload, opts);
  }

  /** Ask on this node (the cluster transport calls this for asks it received). */
  askLocal(def: AnyActorDef, id: string, command: string, payload: unknown, opts: AskOptions): Promise<unknown> {
    if (this.shuttingDown) return Promise.reject(new ApiError('unavailable', 'This node is shutting down; retry.', { retryable: true }));
    const cell = this.cellFor(def, id);
    return new Promise((resolve, reject) => {
      const env: Envelope = {
        command, payload, org: opts.org, requestId: opts.requestId, principal: opts.principal, dedupeId: opts.dedupeId,
        noReply: opts.noReply === true, resolve, reject, ok: false, value: undefined, next: undefined,
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
  async state<S = unknown>(ref: KindRef, id: string, org: string): Promise<S> {
    const def = this.kind(ref);
    if (this.placement && !this.placement.isLocal(def.kind, id)) return (await this.placement.forward(def.kind, id, { op: 'state', org })) as S;
    return (await this.stateLocal(def, id, org)) as S;
  }

  async stateLocal(def: AnyActorDef, id: string, org: string): Promise<unknown> {
    const cell = this.cellFor(def, id);
    if (!cell.ready) await this.activate(cell);
    if (!this.exists(cell)) {
      this.forgetIfEmpty(cell);
      throw new ApiError('not_found', `No ${def.kind} with id ${shownId(id)}.`);
    }
    if (cell.org !== org) throw new ApiError('organisation_mismatch', `${id} belongs to another organisation.`);
    cell.lastActive = this.clock.now();
    return cell.state;
  }

  /** A page of a list (indexes declared by the kind), as views. */
  /** One page of the ids on a kind's list, in the list's order (for reads that need states, not views). */
  listIds(ref: KindRef, org: string, list: string, opts: { after?: string; limit: number; order: 'asc' | 'desc' }): Promise<IndexPage> {
    return this.stores.indexes.page(listName(org, this.kind(ref).kind, list), opts);
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
    const cells = this.cells.get(def)!;
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
   * turn goes ahead, before the commit (header): it must start nothing outside the process. Others
   * are told once the commit is durable (they may start outbound work).
   */
  onCommit(listener: (c: Committed) => void, opts: { ahead?: boolean } = {}): () => void {
    const set = opts.ahead && this.stores.journal.ordered ? this.aheadListeners : this.listeners;
    set.add(listener);
    return () => set.delete(listener);
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
      quiet = this.inflight === 0 && this.uncommitted === 0 && this.tracked.size === 0 && this.reactions.idle ? quiet + 1 : 0;
    }
  }

  /** Number of actors in memory. */
  get activeCount(): number {
    return this.cellCount;
  }

  /** Snapshot and drop idle actors (the sweep calls this; tests may too). */
  async passivateIdle(idleMs = this.limits.idleMs): Promise<number> {
    const horizon = this.clock.now() - idleMs;
    let n = 0;
    for (const cell of [...this.allCells()]) {
      if (cell.def.ephemeral || busy(cell) || !cell.ready) continue;
      if (cell.lastActive > horizon) continue;
      await this.passivate(cell);
      n++;
    }
    return n;
  }

  /** Drop every local actor matching `which` (cluster: a shard handed to another node). */
  async passivateWhere(which: (kind: string, id: string) => boolean): Promise<void> {
    const targets = [...this.allCells()].filter((c) => which(c.def.kind, c.id));
    await Promise.all(targets.map(async (c) => {
      while (busy(c)) await yieldToLoop();
      await this.passivate(c);
    }));
  }

  // ----------------------------------------------------------------------------------------------
  // Cells

  private *allCells(): IterableIterator<Cell> {
    for (const m of this.cells.values()) yield* m.values();
  }

  private drop(cell: Cell): void {
    if (cell.dropped) return;
    cell.dropped = true;
    this.cells.get(cell.def)!.delete(cell.id);
    this.cellCount--;
  }

  private cellFor(def: AnyActorDef, id: string): Cell {
    const m = this.cells.get(def)!;
    let cell = m.get(id);
    if (!cell) {
      cell = {
        def, id, key: [def.kind, id].join('.'), org: undefined, state: undefined, version: 0, snapVersion: 0, dedupe: undefined,
        mailbox: undefined,
        ready: false, loading: undefined, queued: false, dropped: false, running: false, ahead: 0, lastActive: this.clock.now(),
      };
      m.set(id, cell);
      if (++this.cellCount > this.limits.maxActive) void this.shed();
    }
    return cell;
  }

  private exists(cell: Cell): boolean {
    return cell.org !== undefined;
  }

  private forgetIfEmpty(cell: Cell): void {
    if (!this.exists(cell) && !busy(cell)) this.drop(cell);
  }

  private activate(cell: Cell): Promise<void> {
    return (cell.loading ??= this.load(cell));
  }

  private async load(cell: Cell): Promise<void> {
    try {
      await this.loadState(cell);
    } finally {
      cell.loading = undefined;
    }
  }

  private async loadState(cell: Cell): Promise<void> {
    const { def, id, key } = cell;
    let state: unknown;
    let version = 0;
    let org: string | undefined;
    const dedupe: string[] = [];
    if (!def.ephemeral) {
      const blob = await this.stores.snapshots.load(key);
      if (blob) {
        try {
          const snap = decodeSnapshot(blob);
          if (snap.schema === (def.schema ?? 1) && snap.kind === def.kind && snap.id === id) {
            ({ state, version, org } = snap);
            dedupe.push(...snap.dedupe);
          }
        } catch (e) {
          this.log(`snapshot of ${key} unreadable; replaying the journal`, e);
        }
      }
      const snapVersion = version;
      const events = await this.stores.journal.read(key, version);
      const since = events.length && (def.indexes || def.timers) ? this.placement?.recoverSince?.(def.kind, id) : undefined;
      let recoverFrom: { state: unknown; existed: boolean } | undefined;
      for (const e of events) {
        if (since !== undefined && !recoverFrom && e.at >= since) recoverFrom = { state, existed: org !== undefined };
        org ??= e.org;
        state = def.evolve(state ?? def.initial(id, e.org), e.data, { at: e.at, version: e.version, eventId: e.id, org: e.org });
        version = e.version;
        if (e.dedupe) dedupe.push(e.dedupe);
      }
      cell.snapVersion = snapVersion;
      if (recoverFrom && org !== undefined) await this.recoverEffects(def, id, org, recoverFrom.state, recoverFrom.existed, state);
    }
    cell.state = state;
    cell.version = version;
    cell.org = org;
    cell.dedupe = remember(undefined, dedupe.slice(-this.limits.dedupeMemory), this.limits.dedupeMemory);
    cell.ready = true;
  }

  /** Effects after a takeover (header): list memberships and timers written again, each failure logged. */
  private async recoverEffects(def: AnyActorDef, id: string, org: string, before: unknown, existedBefore: boolean, state: unknown): Promise<void> {
    try {
      const ops = indexOps(def, id, org, before, state, existedBefore, false);
      if (ops.length) await this.stores.indexes.apply(ops);
      const timers = timerOps(def, id, org, before, state, existedBefore);
      for (const key of timers.cancel) await this.stores.reminders.cancel(key);
      // every timer the state wishes, not only those that changed: a put lost with the old owner
      // may be one an earlier event asked for
      for (const r of timerOps(def, id, org, undefined, state, false).put) {
        const held = await this.stores.reminders.get(r.key);
        if (held && held.dueAt === r.dueAt && held.command === r.command && JSON.stringify(held.payload) === JSON.stringify(r.payload)) continue;
        await this.stores.reminders.put(r);
        this.scheduler.poke(r.dueAt);
        this.log(`timer ${r.name} of ${def.kind}.${shownId(id)} written again after a takeover (${held ? 'it was held as an earlier wish' : 'it was missing'})`);
      }
    } catch (e) {
      this.log(`recovering the effects of ${def.kind}.${shownId(id)} after a takeover failed`, e);
    }
  }

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
    if (this.cellCount > this.limits.maxActive && !this.shedding) void this.shed();
    if (mailOf(cell) > 0) {
      if (!cell.dropped) this.schedule(cell);
      else this.forgetIfEmpty(cell);
    } else {
      cell.mailbox = undefined;
      this.forgetIfEmpty(cell);
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
      const turn = this.decideTurn(cell);
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
    if (turns.length) void this.commit(turns);
    if (this.readyHead < this.ready.length && !this.drainScheduled) {
      this.drainScheduled = true;
      setImmediate(this.drain); // budget spent: let I/O in before the next pass
    }
  };

  private activateForTurn(cell: Cell): void {
    this.activate(cell).then(
      () => this.release(cell),
      (e) => {
        // A store is unreachable: everyone waiting gets an answer they can retry.
        for (const env of cell.mailbox?.drain() ?? []) env.reject(new ApiError('unavailable', 'The record could not be loaded; retry.', { retryable: true }));
        this.log(`activation of ${cell.key} failed`, e);
        this.drop(cell);
        this.release(cell);
      },
    );
  }

  /** Decide up to batchSize commands against the actor's state in memory; nothing is kept yet. */
  private decideTurn(cell: Cell): Turn {
    const { def, id } = cell;
    const now = this.clock.now();
    let state = cell.state;
    let version = cell.version;
    let org = cell.org;
    const staged: StoredEvent[] = [];
    const turn: Turn = {
      cell, stream: cell.key, expectedVersion: version, events: staged, beforeState: state, beforeOrg: org,
      state, version, org, dedupe: undefined, effects: undefined, first: undefined, last: undefined, taken: 0,
    };
    // One context and one event meta for every command, updated in place: decide and evolve are
    // synchronous and must not keep them.
    const ctx = this.ctx;
    ctx.now = now;
    ctx.id = id;
    const meta = this.meta;
    meta.at = now;

    for (let n = 0; n < this.limits.batchSize; n++) {
      const env = cell.mailbox?.take();
      if (!env) break;
      if (org !== undefined && env.org !== org) {
        outcome(turn, env, false, new ApiError('organisation_mismatch', `${id} belongs to another organisation.`));
        continue;
      }
      const exists = org !== undefined;
      if (!exists && !def.creates.includes(env.command)) {
        outcome(turn, env, false, new ApiError('not_found', `No ${def.kind} with id ${shownId(id)}.`));
        continue;
      }
      if (env.dedupeId !== undefined && (seen(cell.dedupe, env.dedupeId) || turn.dedupe?.includes(env.dedupeId))) {
        outcome(turn, env, true, exists && !env.noReply ? def.view(state) : undefined);
        continue;
      }
      const base = exists ? state : def.initial(id, env.org);
      ctx.org = env.org;
      ctx.version = version;
      ctx.requestId = env.requestId;
      ctx.principal = env.principal;
      const mark = staged.length;
      try {
        const decision = def.decide[env.command](base, env.payload, ctx);
        const events = Array.isArray(decision) ? decision : decision.events;
        let next = base;
        for (let k = 0; k < events.length; k++) {
          const ev = events[k];
          const stored = storedEvent(version + 1 + k, newId('evt_'), ev.type, ev, now, env.org, env.requestId, env.principal, env.dedupeId);
          meta.version = stored.version;
          meta.eventId = stored.id;
          meta.org = env.org;
          next = def.evolve(next, ev, meta);
          staged.push(stored);
        }
        if (events.length > 0) {
          state = next;
          version += events.length;
          org ??= env.org;
          if (env.dedupeId !== undefined) (turn.dedupe ??= []).push(env.dedupeId);
        }
        const reply = Array.isArray(decision) || decision.reply === undefined ? (org !== undefined && !env.noReply ? def.view(state) : undefined) : decision.reply;
        outcome(turn, env, true, reply);
      } catch (e) {
        staged.length = mark;
        if (!isApiError(e)) this.log(`${def.kind}.${env.command} on ${id} threw`, e);
        outcome(turn, env, false, isApiError(e) ? e : new ApiError('internal_error', 'The command failed unexpectedly; nothing was applied.'));
      }
    }
    turn.state = state;
    turn.version = version;
    turn.org = org;
    return turn;
  }

  /**
   * One group commit for the turns of a pass; each turn is then kept or dropped on its own. Over
   * an ordered journal (Journal.ordered) the turns go ahead once their appends are queued: each
   * actor takes its turn's state and may take its next turn, and callers are answered, while the
   * commit is in flight (header).
   */
  private commit(turns: Turn[]): Promise<void> {
    const p = this.commitTurns(turns);
    if (!this.stores.journal.ordered) return p;
    this.settling.add(p);
    const done = () => void this.settling.delete(p);
    p.then(done, done);
    return p;
  }

  /**
   * Settles once every turn answered so far is committed and its effects and commit listeners have
   * run (read models included), then once the stores' writes are on disk (Stores.flushed); rejects
   * when they are not. What acknowledges a write outside the process waits for this: over an
   * ordered journal a turn's callers are answered before its commit (header).
   */
  async flushed(): Promise<void> {
    if (this.settling.size) await Promise.all(this.settling);
    await this.stores.flushed?.();
  }

  private async commitTurns(turns: Turn[]): Promise<void> {
    const durable = turns.some((t) => t.cell.def.ephemeral) ? turns.filter((t) => !t.cell.def.ephemeral) : turns;
    const journal = this.stores.journal;
    // The outcome of each durable turn's append, by its position in `durable`.
    let results: Array<Error | undefined> = [];
    if (durable.length) {
      // A journal that writes effects with the events gets each turn's list and timer changes now,
      // so one transaction keeps both or neither (DESIGN "Stores"); the others get them after.
      if (journal.writesEffects) for (const t of durable) t.effects = this.commitEffects(t);
      let appended: Promise<Array<Error | undefined>>;
      try {
        appended = journal.appendMany
          ? journal.appendMany(durable)
          : Promise.all(durable.map((t) => journal.append(t.stream, t.expectedVersion, t.events).then(() => undefined, (e: Error) => e)));
      } catch (e) {
        appended = Promise.resolve(durable.map(() => e as Error));
      }
      if (journal.ordered) for (const t of turns) this.goAhead(t);
      try {
        results = await appended;
      } catch (e) {
        results = durable.map(() => e as Error);
      }
    } else if (journal.ordered) for (const t of turns) this.goAhead(t);
    let pending: Promise<void>[] | undefined;
    for (let i = 0, d = 0; i < turns.length; i++) {
      const t = turns[i];
      const err = durable[d] === t ? results[d++] : undefined;
      const p = journal.ordered ? this.settleAhead(t, err) : this.settleTurn(t, err);
      if (p) (pending ??= []).push(p);
    }
    if (pending) await Promise.all(pending);
  }

  /** Takes a turn's outcome before its commit settles (an ordered journal), answers its callers and lets the actor go on. */
  private goAhead(turn: Turn): void {
    const { cell } = turn;
    this.keep(turn);
    if (this.aheadListeners.size && turn.events.length && turn.org !== undefined) this.tell(this.aheadListeners, cell, turn.org, turn.events, turn.state);
    cell.ahead++;
    this.uncommitted++;
    this.answer(turn);
  }

  /**
   * The commit of a turn that went ahead. Its callers have their answers, and nothing outside this
   * process has been told (whatever acknowledges a write waits for Stores.flushed()); a failed
   * append means the actor's state in memory holds a turn the disk does not, so the actor is
   * reloaded, and the journal fails every later append as well (Journal.ordered).
   */
  private settleAhead(turn: Turn, err: Error | undefined): Promise<void> | undefined {
    const { cell } = turn;
    const done = () => {
      cell.ahead--;
      this.uncommitted--;
      if (busy(cell)) return;
      this.forgetIfEmpty(cell);
      // shedding skips actors with turns not yet committed: start it again as they come to rest
      if (this.cellCount > this.limits.maxActive && !this.shedding) void this.shed();
    };
    if (err) {
      this.log(`append to ${cell.key} failed after its turn went ahead: reloading`, err);
      // a version moved under it: whatever was decided on this turn's outcome must not be kept either
      if (err instanceof VersionConflictError) this.stores.journal.halt?.(err);
      for (const env of cell.mailbox?.drain() ?? []) env.reject(new ApiError('unavailable', 'The record is being reloaded; retry.', { retryable: true }));
      this.drop(cell);
      done();
      return undefined;
    }
    if (cell.dropped || !this.hasEffects(cell)) {
      done();
      return undefined;
    }
    return this.effects(cell, turn.beforeState, turn.beforeOrg !== undefined, turn.events, turn.effects, turn.state).then(done, (e) => {
      this.log(`effects of a commit to ${cell.key} failed`, e);
      done();
    });
  }

  /** Keeps or drops a committed turn; returns a promise only when effects must be written first. */
  private settleTurn(turn: Turn, err: Error | undefined): Promise<void> | undefined {
    const { cell } = turn;
    if (err) {
      const conflict = err instanceof VersionConflictError;
      this.log(`append to ${cell.key} failed${conflict ? ' (another writer): reloading' : ''}`, conflict ? undefined : err);
      // a store fault (a time-out after sending) may have kept the append: its outcome is unknown
      const refusal = !conflict && isStoreFault(err) ? outcomeUnknown('The change could not be confirmed') : new ApiError('unavailable', 'The change could not be recorded; retry.', { retryable: true });
      for (let o = turn.first; o; o = o.next) {
        if (o.ok) (o.ok = false), (o.value = refusal);
      }
      deliver(turn);
      for (const env of cell.mailbox?.drain() ?? []) env.reject(new ApiError('unavailable', 'The record is being reloaded; retry.', { retryable: true }));
      this.drop(cell);
      this.release(cell);
      return undefined;
    }
    this.keep(turn);
    if (!this.hasEffects(cell)) {
      this.answer(turn);
      return undefined;
    }
    return this.effects(cell, turn.beforeState, turn.beforeOrg !== undefined, turn.events, turn.effects, turn.state).then(
      () => this.answer(turn),
      (e) => {
        // The events are durable; a list or timer write that failed is logged (indexes can be rebuilt from the journal).
        this.log(`effects of a commit to ${cell.key} failed`, e);
        this.answer(turn);
      },
    );
  }

  /** The actor takes the turn's state, version and dedupe ids. */
  private keep(turn: Turn): void {
    const { cell } = turn;
    cell.state = turn.state;
    cell.version = turn.version;
    cell.org = turn.org;
    if (turn.dedupe) cell.dedupe = remember(cell.dedupe, turn.dedupe, this.limits.dedupeMemory);
  }

  private answer(turn: Turn): void {
    deliver(turn);
    this.release(turn.cell);
  }

  private hasEffects(cell: Cell): boolean {
    const def = cell.def;
    return !!(def.indexes || def.timers || this.listeners.size || (!def.ephemeral && cell.version - cell.snapVersion >= (def.snapshotEvery ?? this.limits.snapshotEvery)));
  }

  /** A turn's list and timer changes, from the state before it to the state after. */
  private commitEffects(turn: Turn): CommitEffects {
    const { def, id } = turn.cell;
    const existed = turn.beforeOrg !== undefined;
    const org = turn.org!;
    const timers = timerOps(def, id, org, turn.beforeState, turn.state, existed);
    return { indexOps: indexOps(def, id, org, turn.beforeState, turn.state, existed), reminderPuts: timers.put, reminderCancels: timers.cancel };
  }

  /** Index and timer diffs (unless written with the events), snapshot when due, commit listeners. */
  private async effects(cell: Cell, beforeState: unknown, existedBefore: boolean, events: StoredEvent[], written: CommitEffects | undefined, state: unknown): Promise<void> {
    const { def, id } = cell;
    const org = cell.org!;
    if (written) {
      for (const r of written.reminderPuts) this.scheduler.poke(r.dueAt);
    } else {
      const ops = indexOps(def, id, org, beforeState, state, existedBefore);
      if (ops.length) await this.stores.indexes.apply(ops);
      const timers = timerOps(def, id, org, beforeState, state, existedBefore);
      for (const key of timers.cancel) await this.stores.reminders.cancel(key);
      for (const r of timers.put) {
        await this.stores.reminders.put(r);
        this.scheduler.poke(r.dueAt);
      }
    }
    // listeners first: they are told once the events are durable, and a snapshot is only a cache
    if (this.listeners.size) this.tell(this.listeners, cell, org, events, state);
    if (!def.ephemeral && cell.version - cell.snapVersion >= (def.snapshotEvery ?? this.limits.snapshotEvery)) await this.snapshot(cell);
  }

  private tell(listeners: ReadonlySet<(c: Committed) => void>, cell: Cell, org: string, events: StoredEvent[], state: unknown): void {
    const { def, id } = cell;
    let view: unknown;
    let viewed = false;
    const committed: Committed = {
      kind: def.kind, id, stream: cell.key, org, events, state,
      get view() {
        if (!viewed) (view = def.view(state)), (viewed = true);
        return view;
      },
    };
    for (const l of listeners) {
      try {
        l(committed);
      } catch (e) {
        this.log(`commit listener failed on ${cell.key}`, e);
      }
    }
  }


  private async snapshot(cell: Cell): Promise<void> {
    if (cell.def.ephemeral || cell.org === undefined || cell.version <= cell.snapVersion) return;
    const version = cell.version;
    const blob = encodeSnapshot({ schema: cell.def.schema ?? 1, kind: cell.def.kind, id: cell.id, version, org: cell.org, state: cell.state, dedupe: listed(cell.dedupe, this.limits.dedupeMemory) });
    try {
      await this.stores.snapshots.save(cell.key, version, blob);
      cell.snapVersion = Math.max(cell.snapVersion, version);
    } catch (e) {
      this.log(`snapshot of ${cell.key} failed (the journal still holds every event)`, e);
    }
  }

  /**
   * A snapshot first; when shedding (`shortTail: 'skip'`), not if the journal after the last one is
   * short (PASSIVATION_TAIL events): the next activation replays that tail as cheaply as it would
   * read a snapshot, and shedding a flood of new actors then costs no write per actor.
   */
  private async passivate(cell: Cell, shortTail: 'snapshot' | 'skip' = 'snapshot'): Promise<void> {
    if (shortTail === 'snapshot' || cell.version - cell.snapVersion >= PASSIVATION_TAIL) await this.snapshot(cell);
    if (!busy(cell)) this.drop(cell);
  }

  /**
   * Above maxActive, passivates idle actors (oldest first) down to 1/64 below it, one pass at a
   * time: a pass per new actor, each copying every cell, made a full system quadratic. A pass
   * passivates its victims together, so their snapshots share the stores' writes (over the local
   * stores, a commit each one by one could not keep up with a flood of new actors), and passes go
   * on while actors arrived meanwhile keep the count above the limit.
   */
  private async shed(): Promise<void> {
    if (this.shedding) return;
    this.shedding = true;
    try {
      while (this.cellCount > this.limits.maxActive) {
        const floor = this.limits.maxActive - Math.ceil(this.limits.maxActive / 64);
        const victims: Cell[] = [];
        for (const cell of this.allCells()) {
          if (this.cellCount - victims.length <= floor) break;
          if (cell.def.ephemeral || busy(cell) || !cell.ready) continue;
          victims.push(cell);
        }
        if (victims.length === 0) break; // every actor is busy: the next new one tries again
        for (let i = 0; i < victims.length; i += SHED_TOGETHER) await Promise.all(victims.slice(i, i + SHED_TOGETHER).map((c) => this.passivate(c, 'skip')));
      }
    } finally {
      this.shedding = false;
    }
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
    while (this.inflight > 0 || this.uncommitted > 0) await yieldToLoop();
  }
}
