/**
 * The record of an actor as it stood right after one of its events: the `data` of a public event
 * (spec 6). Folded from the journal with the kind's own evolve and view, so it is exact even when
 * a commit held several events and it survives restarts (nothing is kept only in memory). Streams
 * read recently stay folded in a bounded map, so the common case costs one evolve per event; the
 * states this node commits are offered to it too (`remember`), so the view at a commit's last event
 * costs nothing more than the view of the committed state.
 */
import type { AnyActorDef } from '../../runtime/actor.ts';
import type { Journal, StoredEvent } from '../../stores/index.ts';

interface Folded {
  version: number;
  state: unknown;
}

export class ViewFolder {
  private readonly cache = new Map<string, Folded>();
  private readonly committed = new Map<string, Folded>();

  constructor(private readonly journal: Journal, private readonly capacity = 10_000) {}

  /**
   * The state of `stream` right after its event `version` (a commit seen on this node). Kept apart
   * from the folds: a reader behind the commits keeps folding forward from where it is.
   */
  remember(stream: string, version: number, state: unknown): void {
    bounded(this.committed, stream, { version, state }, this.capacity);
  }

  async viewAt(def: AnyActorDef, stream: string, id: string, ev: StoredEvent): Promise<unknown> {
    let f = this.cache.get(stream);
    const c = this.committed.get(stream);
    if (c && c.version === ev.version) {
      f = c;
      this.committed.delete(stream);
    } else if (f && f.version === ev.version - 1) {
      f = { version: ev.version, state: def.evolve(f.state, ev.data, { at: ev.at, version: ev.version, eventId: ev.id, org: ev.org }) };
    } else if (ev.version === 1) {
      // A stream's first event: nothing before it to read.
      f = { version: 1, state: def.evolve(def.initial(id, ev.org), ev.data, { at: ev.at, version: 1, eventId: ev.id, org: ev.org }) };
    } else {
      f = { version: 0, state: undefined };
      for (const e of await this.journal.read(stream, 0)) {
        if (e.version > ev.version) break;
        f = { version: e.version, state: def.evolve(f.state ?? def.initial(id, e.org), e.data, { at: e.at, version: e.version, eventId: e.id, org: e.org }) };
      }
    }
    this.keep(stream, f);
    return f.version === ev.version ? def.view(f.state) : null;
  }

  private keep(stream: string, f: Folded): void {
    bounded(this.cache, stream, f, this.capacity);
  }
}

/**
 * Set, dropping the entry set first when full. Replacing an entry keeps its place (no reordering:
 * a Map that deletes and re-adds on every event spends its time compacting), so the oldest stream
 * to appear goes first; the feed reads in order, so a stream it still needs was seen recently.
 */
function bounded(m: Map<string, Folded>, key: string, f: Folded, capacity: number): void {
  m.set(key, f);
  if (m.size > capacity) m.delete(m.keys().next().value!);
}
