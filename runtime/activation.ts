/**
 * Activation (DESIGN "The runtime"): an actor is activated on first use, from its snapshot, then
 * the journal after it; a snapshot that cannot be read, or of another schema, is passed over and
 * the whole journal replayed.
 *
 * Effects after a takeover: a commit's effects are written after its append, so a node killed in
 * between leaves the events durable and their list or timer writes undone (a timer lost so breaks
 * every chain of reminders an area keeps, such as a payout instruction's tally). A node that took
 * a shard over from a lapsed lease (Placement.recoverSince) therefore, when it activates an actor
 * whose journal after its snapshot holds events since then, writes that actor's list memberships
 * and timers again from the state before those events to the state now; a timer already held with
 * the same due time, command and payload is left alone. Commit listeners are not told again (they
 * start outbound work; an area's own reminders recover it). A snapshot is written only after its
 * commit's effects, so events it covers need nothing. An actor nothing addresses again is
 * activated for this by the takeover's own read of the journal (cluster/takeover-recovery.ts); a
 * recovery that fails is retried until written (effect-writer.ts).
 */
import type { Stores } from '../stores/index.ts';
import type { AnyActorDef } from './actor.ts';
import type { Cell } from './cells.ts';
import { decodeSnapshot } from './codec.ts';
import { remember } from './dedupe.ts';
import type { EffectWriter } from './effect-writer.ts';
import { indexOps, timerOps } from './effects.ts';
import { shownId } from '../kernel/base/index.ts';
import type { Limits } from './limits.ts';
import type { ReminderScheduler } from './scheduler.ts';

export class Activation {
  constructor(
    private readonly stores: Stores,
    private readonly scheduler: ReminderScheduler,
    private readonly writer: EffectWriter,
    private readonly limits: Limits,
    private readonly log: (msg: string, err?: unknown) => void,
    /** The earliest event time whose effects may be missing for an actor of a shard taken over (Placement.recoverSince). */
    private readonly recoverSince: (kind: string, id: string) => number | undefined,
  ) {}

  /** Loads the cell's state once, however many wait for it. */
  activate(cell: Cell): Promise<void> {
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
    /** Set when the recovery after a takeover failed: retried from there (effect-writer.ts). */
    let retry: { state: unknown; existed: boolean } | undefined;
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
      const since = events.length && (def.indexes || def.timers) ? this.recoverSince(def.kind, id) : undefined;
      let recoverFrom: { state: unknown; existed: boolean } | undefined;
      for (const e of events) {
        if (since !== undefined && !recoverFrom && e.at >= since) recoverFrom = { state, existed: org !== undefined };
        org ??= e.org;
        state = def.evolve(state ?? def.initial(id, e.org), e.data, { at: e.at, version: e.version, eventId: e.id, org: e.org });
        version = e.version;
        if (e.dedupe) dedupe.push(e.dedupe);
      }
      cell.snapVersion = snapVersion;
      if (recoverFrom && org !== undefined && !(await this.recoverEffects(def, id, org, recoverFrom.state, recoverFrom.existed, state))) retry = recoverFrom;
    }
    cell.state = state;
    cell.version = version;
    cell.org = org;
    cell.dedupe = remember(undefined, dedupe.slice(-this.limits.dedupeMemory), this.limits.dedupeMemory);
    cell.ready = true;
    if (retry) this.writer.retryFrom(cell, retry.state, retry.existed);
  }

  /** Effects after a takeover (header): list memberships and timers written again; false when that failed. */
  private async recoverEffects(def: AnyActorDef, id: string, org: string, before: unknown, existedBefore: boolean, state: unknown): Promise<boolean> {
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
      return true;
    } catch (e) {
      this.log(`recovering the effects of ${def.kind}.${shownId(id)} after a takeover failed; retrying until written`, e);
      return false;
    }
  }
}
