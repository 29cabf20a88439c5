/**
 * Committing turns (DESIGN "The runtime"): the turns of a drain pass are committed together, one
 * group commit over all their streams, each with its expected version; each turn is then kept or
 * dropped on its own. Only after the commit are callers answered, index and timer changes written
 * (a journal that writes effects takes them in the same transaction as the events:
 * Journal.writesEffects), snapshots taken when due and commit listeners told. If an actor's append
 * fails nothing of its turn is kept and each of its callers gets a retryable error.
 *
 * Over an ordered journal (Journal.ordered: appends kept in order, and none after a failed one)
 * a turn goes ahead once its append is queued: the actor takes its state, its callers are
 * answered and it may take its next turn, decided on that state, while the commit is in flight.
 * Commit listeners and snapshots still wait for the commit. Nothing outside the process is told
 * before the commit (whatever acknowledges a write waits for Stores.flushed()); a failed append
 * reloads the actor and leaves the stores taking no more writes.
 */
import type { CommitEffects, Stores, StoredEvent } from '../stores/index.ts';
import { isStoreFault, VersionConflictError } from '../stores/index.ts';
import { busy, type Cell, type Cells } from './cells.ts';
import { remember } from './dedupe.ts';
import type { EffectWriter } from './effect-writer.ts';
import { ApiError, outcomeUnknown } from '../kernel/base/index.ts';
import type { Limits } from './limits.ts';
import type { ReminderScheduler } from './scheduler.ts';
import { commitEffects, deliver, type Turn } from './turns.ts';

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

export class Commits {
  /** Listeners told of every commit once it is durable (ActorSystem.onCommit). */
  readonly listeners = new Set<(c: Committed) => void>();
  /** Listeners told of a turn that went ahead of its commit (onCommit `ahead`, an ordered journal). */
  readonly aheadListeners = new Set<(c: Committed) => void>();
  /** Group commits whose turns went ahead, until each turn's effects and commit listeners have run. */
  private readonly settling = new Set<Promise<void>>();
  private uncommittedTurns = 0;

  constructor(
    private readonly stores: Stores,
    private readonly cells: Cells,
    private readonly scheduler: ReminderScheduler,
    private readonly writer: EffectWriter,
    private readonly limits: Limits,
    private readonly log: (msg: string, err?: unknown) => void,
    /** The cell leaves the pipeline once its turn is answered (the system's dispatch). */
    private readonly release: (cell: Cell) => void,
  ) {}

  /** Turns that went ahead of their commit (an ordered journal) and are not yet committed. */
  get uncommitted(): number {
    return this.uncommittedTurns;
  }

  /**
   * One group commit for the turns of a pass; each turn is then kept or dropped on its own. Over
   * an ordered journal (Journal.ordered) the turns go ahead once their appends are queued: each
   * actor takes its turn's state and may take its next turn, and callers are answered, while the
   * commit is in flight (header).
   */
  commit(turns: Turn[]): Promise<void> {
    const p = this.commitTurns(turns);
    if (!this.stores.journal.ordered) return p;
    this.settling.add(p);
    const done = () => void this.settling.delete(p);
    p.then(done, done);
    return p;
  }

  /** Group appends to the journal so far, and the seconds they took (the metrics read both). */
  appends = 0;
  appendSeconds = 0;

  /**
   * Every turn answered so far committed and its commit listeners run, and every write made so far
   * on disk (ActorSystem.flushed). The writes are the ones queued when this is called: an
   * acknowledgement waits for what it rests on, not for what listeners and feed readers write
   * after it (records derived from the journal, written again from the feed after a crash).
   */
  async flushed(): Promise<void> {
    const disk = this.stores.flushed?.();
    disk?.catch(() => undefined); // awaited below; a failure meanwhile is not an unhandled rejection
    if (this.settling.size) await Promise.all(this.settling);
    await disk;
  }

  private async commitTurns(turns: Turn[]): Promise<void> {
    const durable = turns.some((t) => t.cell.def.ephemeral) ? turns.filter((t) => !t.cell.def.ephemeral) : turns;
    const journal = this.stores.journal;
    // The outcome of each durable turn's append, by its position in `durable`.
    let results: Array<Error | undefined> = [];
    if (durable.length) {
      // A journal that writes effects with the events gets each turn's list and timer changes now,
      // so one transaction keeps both or neither (DESIGN "Stores"); the others get them after.
      if (journal.writesEffects) for (const t of durable) t.effects = commitEffects(t);
      let appended: Promise<Array<Error | undefined>>;
      try {
        appended = journal.appendMany
          ? journal.appendMany(durable)
          : Promise.all(durable.map((t) => journal.append(t.stream, t.expectedVersion, t.events).then(() => undefined, (e: Error) => e)));
      } catch (e) {
        appended = Promise.resolve(durable.map(() => e as Error));
      }
      if (journal.ordered) for (const t of turns) this.goAhead(t);
      const began = performance.now();
      try {
        results = await appended;
      } catch (e) {
        results = durable.map(() => e as Error);
      }
      this.appends++;
      this.appendSeconds += (performance.now() - began) / 1000;
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
    this.uncommittedTurns++;
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
      this.uncommittedTurns--;
      if (busy(cell)) return;
      this.cells.forgetIfEmpty(cell);
      // shedding skips actors with turns not yet committed: start it again as they come to rest
      this.cells.shedIfFull();
    };
    if (err) {
      this.log(`append to ${cell.key} failed after its turn went ahead: reloading`, err);
      // a version moved under it: whatever was decided on this turn's outcome must not be kept either
      if (err instanceof VersionConflictError) this.stores.journal.halt?.(err);
      for (const env of cell.mailbox?.drain() ?? []) env.reject(new ApiError('unavailable', 'The record is being reloaded; retry.', { retryable: true }));
      this.cells.drop(cell);
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
      this.cells.drop(cell);
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
        // a listener or a snapshot failed (list and timer changes never reject: effect-writer.ts)
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

  /** Index and timer diffs (unless written with the events), snapshot when due, commit listeners. */
  private async effects(cell: Cell, beforeState: unknown, existedBefore: boolean, events: StoredEvent[], written: CommitEffects | undefined, state: unknown): Promise<void> {
    const { def } = cell;
    const org = cell.org!;
    if (written) {
      for (const r of written.reminderPuts) this.scheduler.poke(r.dueAt);
    } else if (def.indexes || def.timers) await this.writer.write(cell, beforeState, existedBefore, state);
    // listeners first: they are told once the events are durable, and a snapshot is only a cache
    if (this.listeners.size) this.tell(this.listeners, cell, org, events, state);
    // none while changes are unwritten: a takeover recovers them from the events after the last one
    if (!def.ephemeral && !cell.unwritten && cell.version - cell.snapVersion >= (def.snapshotEvery ?? this.limits.snapshotEvery)) await this.cells.snapshot(cell);
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
}
