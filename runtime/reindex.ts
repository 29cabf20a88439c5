/**
 * List indexes are derived data (DESIGN "Sharding": "rebuildable from the journal"): replaying every
 * actor's events through its kind's evolve and asking `indexes(state)` gives every membership
 * again. Used after the index store lost what it held (derived-watch.ts), on an operator's request,
 * or into a fresh index store to check one. Memory use is one state per actor.
 *
 * The platform keeps serving meanwhile, and its commits write their own list changes. A membership
 * the replay computed from an older state could undo a newer commit's removal, so once the feed's
 * end is reached the replay goes on from there: every actor with events past it gets the change
 * from its state at the end to its state now, removals included, until a read finds nothing new.
 */
import type { IndexOp, IndexStore, Journal } from '../stores/index.ts';
import type { AnyActorDef } from './actor.ts';
import { indexOps } from './effects.ts';

const FEED_PAGE = 1000;
const APPLY_CHUNK = 500;

interface Replayed {
  def: AnyActorDef;
  id: string;
  org: string;
  state: unknown;
}

export interface RebuildOptions {
  /** Asked before each page: false stops the rebuild (its claim was lost), which then throws. */
  keepGoing?: () => Promise<boolean>;
}

export class RebuildStopped extends Error {}

export async function rebuildIndexes(kinds: readonly AnyActorDef[], journal: Journal, indexes: IndexStore, opts: RebuildOptions = {}): Promise<{ actors: number; ops: number }> {
  const defs = new Map(kinds.filter((d) => d.indexes && !d.ephemeral).map((d) => [d.kind, d]));
  const actors = new Map<string, Replayed>();
  let ops: IndexOp[] = [];
  let total = 0;
  const flush = async (min: number) => {
    if (ops.length < min || ops.length === 0) return;
    await indexes.apply(ops);
    total += ops.length;
    ops = [];
  };
  const stillOurs = async () => {
    if (opts.keepGoing && !(await opts.keepGoing())) throw new RebuildStopped('the index rebuild lost its claim');
  };
  /** Replays a page; returns the streams it moved, with their states before it (undefined: new). */
  const replay = async (after: number): Promise<{ last: number; moved: Map<string, unknown> } | undefined> => {
    await stillOurs();
    const page = await journal.readFeed(after, FEED_PAGE);
    if (page.length === 0) return undefined;
    const moved = new Map<string, unknown>();
    for (const { stream, event } of page) {
      const dot = stream.indexOf('.');
      const def = defs.get(stream.slice(0, dot));
      if (!def) continue;
      let a = actors.get(stream);
      if (!moved.has(stream)) moved.set(stream, a?.state);
      if (!a) actors.set(stream, (a = { def, id: stream.slice(dot + 1), org: event.org, state: def.initial(stream.slice(dot + 1), event.org) }));
      a.state = def.evolve(a.state, event.data, { at: event.at, version: event.version, eventId: event.id, org: event.org });
    }
    return { last: page[page.length - 1].position, moved };
  };

  let after = 0;
  for (let r = await replay(after); r; r = await replay(after)) after = r.last;
  await stillOurs();
  for (const a of actors.values()) {
    ops.push(...indexOps(a.def, a.id, a.org, undefined, a.state, false, false));
    await flush(APPLY_CHUNK);
  }
  await flush(1);
  // past the end as first read: what committed meanwhile, as a change from the state written above
  for (let r = await replay(after); r; r = await replay(after)) {
    after = r.last;
    for (const [stream, before] of r.moved) {
      const a = actors.get(stream)!;
      ops.push(...indexOps(a.def, a.id, a.org, before, a.state, before !== undefined, false));
    }
    await flush(1);
  }
  return { actors: actors.size, ops: total };
}
