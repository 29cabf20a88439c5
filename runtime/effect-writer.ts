/**
 * Writing a commit's list and timer changes (effects.ts) where the stores take them apart from the
 * journal (the cluster's Redis indexes and reminder bucket; a journal that writes effects takes them
 * in its own transaction and never comes here). Such a write can fail after the events are durable.
 * It is not dropped: the cell keeps the state from before its first change not written
 * (`unwritten`), its later commits leave their changes to it, and the change from that state to the
 * cell's state now is tried again, with backoff, until it is written. Meanwhile the cell stays
 * resident (cells.ts busy) and writes no snapshot (activation.ts recovers a dead node's unwritten
 * changes from the events after the last snapshot), and settle() waits for it.
 *
 * A node that dies with changes unwritten leaves them to the shard's next owner, which writes an
 * actor's lists and timers again when it activates one with events since the lapsed lease
 * (activation.ts).
 */
import type { Stores } from '../stores/index.ts';
import type { AnyActorDef } from './actor.ts';
import type { Cell } from './cells.ts';
import { indexOps, timerOps } from './effects.ts';
import { shownId } from '../kernel/base/index.ts';
import type { ReminderScheduler } from './scheduler.ts';

/** First wait before a failed change is tried again, doubled per failure up to RETRY_MAX_MS (wall time). */
const RETRY_FIRST_MS = 50;
const RETRY_MAX_MS = 2_000;
/** A change still failing is logged again every this many tries. */
const LOG_EVERY = 20;

export class EffectWriter {
  constructor(
    private readonly stores: Stores,
    private readonly scheduler: ReminderScheduler,
    private readonly log: (msg: string, err?: unknown) => void,
    /** ActorSystem.track: settle() waits for a change being retried. */
    private readonly track: <T>(p: Promise<T>) => Promise<T>,
    /** True once the system stops: a change still failing then is left to the next owner's recovery. */
    private readonly stopping: () => boolean,
  ) {}

  /**
   * Writes the change of a commit from `before` to `state` (the cell's state after it). Resolves
   * once written, or once left to the retries when it failed; never rejects.
   */
  async write(cell: Cell, before: unknown, existedBefore: boolean, state: unknown): Promise<void> {
    if (cell.unwritten) return; // the retry under way writes this change with the earlier ones
    try {
      await this.apply(cell.def, cell.id, cell.org!, before, existedBefore, state);
    } catch (e) {
      this.log(`list and timer changes of a commit to ${cell.def.kind}.${shownId(cell.id)} failed; retrying until written`, e);
      this.retryFrom(cell, before, existedBefore);
    }
  }

  /** Leaves the change from `before` to the cell's state to the retries (a failed write, or a takeover's recovery). */
  retryFrom(cell: Cell, before: unknown, existedBefore: boolean): void {
    if (cell.unwritten) return;
    cell.unwritten = { state: before, existed: existedBefore };
    void this.track(this.retry(cell));
  }

  private async retry(cell: Cell): Promise<void> {
    const { def, id } = cell;
    for (let attempt = 1, delay = RETRY_FIRST_MS; cell.unwritten; attempt++) {
      await new Promise((r) => setTimeout(r, delay));
      const from = cell.unwritten;
      const to = cell.state;
      try {
        await this.apply(def, id, cell.org!, from.state, from.existed, to);
        // a commit meanwhile left its change to this retry: go on from what was just written
        cell.unwritten = cell.state === to ? undefined : { state: to, existed: true };
        delay = 0;
        if (!cell.unwritten) this.log(`list and timer changes of ${def.kind}.${shownId(id)} written after ${attempt} tries`);
      } catch (e) {
        if (cell.dropped || this.stopping()) {
          cell.unwritten = undefined;
          this.log(`list and timer changes of ${def.kind}.${shownId(id)} still unwritten as it leaves this node; the next owner's activation writes them`, e);
          return;
        }
        if (attempt % LOG_EVERY === 0) this.log(`list and timer changes of ${def.kind}.${shownId(id)} still failing after ${attempt} tries`, e);
        delay = Math.min(Math.max(delay * 2, RETRY_FIRST_MS), RETRY_MAX_MS);
      }
    }
  }

  private async apply(def: AnyActorDef, id: string, org: string, before: unknown, existedBefore: boolean, state: unknown): Promise<void> {
    const ops = indexOps(def, id, org, before, state, existedBefore);
    if (ops.length) await this.stores.indexes.apply(ops);
    const timers = timerOps(def, id, org, before, state, existedBefore);
    for (const key of timers.cancel) await this.stores.reminders.cancel(key);
    for (const r of timers.put) {
      await this.stores.reminders.put(r);
      this.scheduler.poke(r.dueAt);
    }
  }
}
