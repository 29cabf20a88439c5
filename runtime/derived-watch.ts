/**
 * Rebuilds the list indexes when their store lost them (DESIGN "Stores": Redis keeps only what the
 * journal gives back; stores/types.ts DerivedMarker). Every node looks at the marker at start and
 * every `derivedCheckMs`; the one that claims a missing marker replays the journal into the
 * indexes (reindex.ts) while the platform serves, renewing its claim at every page, and marks the
 * indexes whole when done. A node that dies or loses its claim midway leaves the claim to lapse
 * and another starts over. An operator may ask for a rebuild whatever the marker says.
 *
 * Areas add what they derive into the same store (DerivedStep: the delivery area's audit entries
 * and public events), rebuilt after the indexes under the same claim.
 *
 * Reminders keep their own due-time index and rebuild it the same way (jetstream-reminders.ts);
 * snapshots need nothing (an actor without one replays its journal).
 */
import type { DerivedMarker, IndexStore, Journal } from '../stores/index.ts';
import type { AnyActorDef } from './actor.ts';
import { rebuildIndexes } from './reindex.ts';

export interface DerivedRebuild {
  actors: number;
  ops: number;
  /** Records the areas' own steps wrote again (DerivedStep). */
  records: number;
  ms: number;
}

/**
 * Something an area derives from the journal into the same store (the delivery area's audit entries
 * and public events), rebuilt after the indexes; returns how many records it wrote. `keepGoing`
 * is false once the claim is lost, and the step then stops by throwing.
 */
export interface DerivedStep {
  name: string;
  run(keepGoing: () => Promise<boolean>): Promise<number>;
}

export class DerivedWatch {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<DerivedRebuild | undefined> | undefined;
  private stopped = false;
  private readonly steps = new Set<DerivedStep>();

  constructor(
    private readonly marker: DerivedMarker,
    private readonly kinds: readonly AnyActorDef[],
    private readonly journal: Journal,
    private readonly indexes: IndexStore,
    private readonly checkMs: number,
    private readonly log: (msg: string, err?: unknown) => void,
    /** ActorSystem.track: settle() waits for a rebuild under way. */
    private readonly track: <T>(p: Promise<T>) => Promise<T>,
  ) {}

  /** Adds an area's step to every rebuild; returns its removal. */
  also(step: DerivedStep): () => void {
    this.steps.add(step);
    return () => void this.steps.delete(step);
  }

  start(): void {
    this.stopped = false;
    void this.check();
    this.timer = setInterval(() => void this.check(), this.checkMs).unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  /**
   * Looks at the marker and rebuilds when this node claims it (`force`: an operator's request,
   * whatever the marker says). What the rebuild did, or undefined when none ran here (whole, or
   * another node building). A check already under way is joined.
   */
  check(force = false): Promise<DerivedRebuild | undefined> {
    if (this.running) return this.running;
    const run = this.run(force).finally(() => (this.running = undefined));
    this.running = run;
    return this.track(run);
  }

  private async run(force: boolean): Promise<DerivedRebuild | undefined> {
    let token: string | undefined;
    try {
      token = await this.marker.claim(force);
    } catch (e) {
      this.log('looking whether the list indexes are whole failed; the next check looks again', e);
      return undefined;
    }
    if (!token) return undefined;
    const t0 = performance.now();
    try {
      const keepGoing = async () => !this.stopped && (await this.marker.renew(token));
      const r = await rebuildIndexes(this.kinds, this.journal, this.indexes, { keepGoing });
      let records = 0;
      for (const step of [...this.steps]) records += await step.run(keepGoing);
      if (!(await this.marker.finish(token))) throw new Error('the claim was lost as the rebuild ended');
      const done = { ...r, records, ms: Math.round(performance.now() - t0) };
      if (force || r.ops > 0 || records > 0) this.log(`rebuilt from the journal: ${r.ops} list entries of ${r.actors} records and ${records} derived records (${[...this.steps].map((s) => s.name).join(', ') || 'no area steps'}) in ${done.ms} ms`);
      return done;
    } catch (e) {
      // the claim lapses and a later check (here or on another node) starts over
      this.log('rebuilding what the stores derived from the journal failed; a later check starts over', e);
      return undefined;
    }
  }
}
