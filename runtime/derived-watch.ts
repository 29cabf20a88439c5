/**
 * Rebuilds the list indexes when their store lost them (DESIGN "Stores": Redis keeps only what the
 * journal gives back; stores/types.ts DerivedMarker). Every node looks at the marker at start and
 * every `derivedCheckMs`; the one that claims a missing marker replays the journal into the
 * indexes (reindex.ts) while the platform serves, renewing its claim at every page, and marks the
 * indexes whole when done. A node that dies or loses its claim midway leaves the claim to lapse
 * and another starts over. An operator may ask for a rebuild whatever the marker says.
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
  ms: number;
}

export class DerivedWatch {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<DerivedRebuild | undefined> | undefined;
  private stopped = false;

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
      if (!(await this.marker.finish(token))) throw new Error('the claim was lost as the rebuild ended');
      const done = { ...r, ms: Math.round(performance.now() - t0) };
      if (force || r.ops > 0) this.log(`list indexes rebuilt from the journal: ${r.ops} entries of ${r.actors} records in ${done.ms} ms`);
      return done;
    } catch (e) {
      // the claim lapses and a later check (here or on another node) starts over
      this.log('rebuilding the list indexes failed; a later check starts over', e);
      return undefined;
    }
  }
}
