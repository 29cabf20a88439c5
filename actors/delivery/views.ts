/**
 * The record of an actor as it stood right after one of its events: the `data` of a public event
 * (spec 6). Folded from the journal with the kind's own evolve and view, so it is exact even when
 * a commit held several events and it survives restarts (nothing is kept only in memory). Streams
 * read recently stay folded in a bounded map, so the common case costs one evolve per event; the
 * states this node commits are offered to it too (`remember`), so the view at a commit's last event
 * costs nothing more than the view of the committed state.
 */
import { type AnyActorDef, BoundedMap } from '../../runtime/index.ts';
import type { Journal, StoredEvent } from '../../stores/index.ts';

interface Folded {
  version: number;
  state: unknown;
}

export class ViewFolder {
  private readonly cache: BoundedMap<string, Folded>;
  private readonly committed: BoundedMap<string, Folded>;

  constructor(private readonly journal: Journal, capacity = 10_000) {
    this.cache = new BoundedMap(capacity);
    this.committed = new BoundedMap(capacity);
  }

  /**
   * The state of `stream` right after its event `version` (a commit seen on this node). Kept apart
   * from the folds: a reader behind the commits keeps folding forward from where it is.
   */
  remember(stream: string, version: number, state: unknown): void {
    this.committed.set(stream, { version, state });
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
    this.cache.set(stream, f);
    return f.version === ev.version ? def.view(f.state) : null;
  }
}
