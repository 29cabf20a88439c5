/**
 * List indexes are derived data (DESIGN "Sharding": "rebuildable from the journal"): replaying every actor's
 * events through its kind's evolve and asking `indexes(state)` gives every membership again. Used
 * after losing Redis, or into a fresh index store to check one. Memory use is one state per actor.
 */
import type { IndexOp, IndexStore, Journal } from '../../stores/index.ts';
import type { AnyActorDef } from '../actor.ts';
import { indexOps } from '../effects.ts';

const FEED_PAGE = 1000;
const APPLY_CHUNK = 500;

export async function rebuildIndexes(kinds: readonly AnyActorDef[], journal: Journal, indexes: IndexStore): Promise<{ actors: number; ops: number }> {
  const defs = new Map(kinds.filter((d) => d.indexes && !d.ephemeral).map((d) => [d.kind, d]));
  const actors = new Map<string, { def: AnyActorDef; id: string; org: string; state: unknown }>();
  for (let after = 0; ; ) {
    const page = await journal.readFeed(after, FEED_PAGE);
    if (page.length === 0) break;
    for (const { stream, event } of page) {
      const dot = stream.indexOf('.');
      const def = defs.get(stream.slice(0, dot));
      if (!def) continue;
      let a = actors.get(stream);
      if (!a) actors.set(stream, (a = { def, id: stream.slice(dot + 1), org: event.org, state: def.initial(stream.slice(dot + 1), event.org) }));
      a.state = def.evolve(a.state, event.data, { at: event.at, version: event.version, eventId: event.id, org: event.org });
    }
    after = page[page.length - 1].position;
  }
  let ops: IndexOp[] = [];
  let total = 0;
  for (const a of actors.values()) {
    ops.push(...indexOps(a.def, a.id, a.org, undefined, a.state, false));
    if (ops.length >= APPLY_CHUNK) {
      await indexes.apply(ops);
      total += ops.length;
      ops = [];
    }
  }
  await indexes.apply(ops);
  return { actors: actors.size, ops: total + ops.length };
}
