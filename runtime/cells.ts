/**
 * The actors resident in memory (DESIGN "The runtime"): one cell per active actor id, made on
 * first use and dropped when passivated, failed or reloading (a new cell then serves the id).
 * Passivation writes a snapshot and drops an idle cell; above maxActive, shedding passivates idle
 * actors, oldest first, in passes. A cell that is busy (in a turn, waiting for one, or holding
 * turns not yet committed) is never dropped by either.
 */
import type { Stores } from '../stores/index.ts';
import { streamKey, type AnyActorDef } from './actor.ts';
import type { Clock } from './clock.ts';
import { encodeSnapshot } from './codec.ts';
import { listed, type Remembered } from './dedupe.ts';
import type { Limits } from './limits.ts';
import type { Mailbox } from './mailbox.ts';

export interface Cell {
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
   * Turns answered ahead of their commit and not yet committed (an ordered journal: commits.ts). The
   * cell's state includes them; it is not passivated meanwhile, since an activation reads the disk.
   */
  ahead: number;
  /**
   * Set while list and timer changes of its commits are unwritten (effect-writer.ts): the state
   * before the first of them, from which they are being retried. The cell stays resident meanwhile.
   */
  unwritten: { state: unknown; existed: boolean } | undefined;
  lastActive: number;
}

/** Events after an actor's last snapshot below which passivation writes none (passivate). */
const PASSIVATION_TAIL = 8;

/** Actors a shedding pass passivates at once (their snapshots written together). */
const SHED_TOGETHER = 1_024;

/** How long shedding waits before looking again when every resident actor is busy (wall time). */
const SHED_RETRY_MS = 20;

/** Messages waiting for a cell. */
export const mailOf = (cell: Cell): number => cell.mailbox?.size ?? 0;

/** In a turn, waiting for one, or holding turns not yet committed: not to be passivated. */
export const busy = (cell: Cell): boolean => cell.running || cell.queued || cell.ahead > 0 || mailOf(cell) > 0;

/** The actor has been created (its first event committed). */
export const exists = (cell: Cell): boolean => cell.org !== undefined;

export class Cells {
  /** Active actors, one map per kind (no key building on the hot path). */
  private readonly byKind = new Map<AnyActorDef, Map<string, Cell>>();
  private cellCount = 0;
  private shedding = false;
  /** Actors passivated since start (the metrics' counter). */
  passivations = 0;

  constructor(
    kinds: Iterable<AnyActorDef>,
    private readonly stores: Stores,
    private readonly clock: Clock,
    private readonly limits: Limits,
    private readonly log: (msg: string, err?: unknown) => void,
  ) {
    for (const def of kinds) this.byKind.set(def, new Map());
  }

  /** Number of actors in memory. */
  get count(): number {
    return this.cellCount;
  }

  /** The active actors of one kind, by id. */
  of(def: AnyActorDef): ReadonlyMap<string, Cell> {
    return this.byKind.get(def)!;
  }

  *all(): IterableIterator<Cell> {
    for (const m of this.byKind.values()) yield* m.values();
  }

  cellFor(def: AnyActorDef, id: string): Cell {
    const m = this.byKind.get(def)!;
    let cell = m.get(id);
    if (!cell) {
      cell = {
        def, id, key: streamKey(def, id), org: undefined, state: undefined, version: 0, snapVersion: 0, dedupe: undefined,
        mailbox: undefined,
        ready: false, loading: undefined, queued: false, dropped: false, running: false, ahead: 0, unwritten: undefined, lastActive: this.clock.now(),
      };
      m.set(id, cell);
      if (++this.cellCount > this.limits.maxActive) void this.shed();
    }
    return cell;
  }

  drop(cell: Cell): void {
    if (cell.dropped) return;
    cell.dropped = true;
    this.byKind.get(cell.def)!.delete(cell.id);
    this.cellCount--;
  }

  forgetIfEmpty(cell: Cell): void {
    if (!exists(cell) && !busy(cell)) this.drop(cell);
  }

  async snapshot(cell: Cell): Promise<void> {
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
  async passivate(cell: Cell, shortTail: 'snapshot' | 'skip' = 'snapshot'): Promise<void> {
    if (shortTail === 'snapshot' || cell.version - cell.snapVersion >= PASSIVATION_TAIL) await this.snapshot(cell);
    if (!busy(cell)) {
      this.drop(cell);
      this.passivations++;
    }
  }

  /** Commands waiting in every resident actor's mailbox (read at a metrics scrape, not per turn). */
  mailboxDepth(): number {
    let n = 0;
    for (const cell of this.all()) n += cell.mailbox?.size ?? 0;
    return n;
  }

  /** Snapshot and drop the actors idle since before `horizon`. */
  async passivateIdle(horizon: number): Promise<number> {
    let n = 0;
    for (const cell of [...this.all()]) {
      if (cell.def.ephemeral || busy(cell) || cell.unwritten || !cell.ready) continue;
      if (cell.lastActive > horizon) continue;
      await this.passivate(cell);
      n++;
    }
    return n;
  }

  /** Starts shedding when above maxActive and no pass is under way (as actors come to rest). */
  shedIfFull(): void {
    if (this.cellCount > this.limits.maxActive && !this.shedding) void this.shed();
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
        for (const cell of this.all()) {
          if (this.cellCount - victims.length <= floor) break;
          if (cell.def.ephemeral || busy(cell) || cell.unwritten || !cell.ready) continue;
          victims.push(cell);
        }
        if (victims.length === 0) {
          // Every actor is busy (in a turn, or with turns not yet committed: a flood of new ones).
          // Look again shortly, not as each comes to rest: a look reads every resident cell, and
          // one per actor coming to rest made a flood quadratic. The pass stays open meanwhile.
          await new Promise<void>((r) => setTimeout(r, SHED_RETRY_MS).unref());
          continue;
        }
        for (let i = 0; i < victims.length; i += SHED_TOGETHER) await Promise.all(victims.slice(i, i + SHED_TOGETHER).map((c) => this.passivate(c, 'skip')));
      }
    } finally {
      this.shedding = false;
    }
  }
}
