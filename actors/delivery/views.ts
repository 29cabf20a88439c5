/**
 * The record of an actor as it stood right after one of its events: the `data` of a public event
 * (spec 6). Folded from the journal with the kind's own evolve and view, so it is exact even when
 * a commit held several events and it survives restarts (nothing is kept only in memory). Streams
 * read recently stay folded in a bounded map, so the common case costs one evolve per event; the
 * states this node commits are offered to it too (`remember`), so the view at a commit's last event
 * costs nothing more than the view of the committed state.
 */
import { type AnyActorDef, BoundedMap } from '../../runtime/index.ts';
import type { StoredEvent } from '../../stores/index.ts';

/** One actor's events, oldest first (the kernel's actorEvents over a platform). */
export type ReadEvents = (def: AnyActorDef, id: string) => Promise<StoredEvent[]>;

interface Folded {
  version: number;
  state: unknown;
}

export class ViewFolder {
  private readonly cache: BoundedMap<string, Folded>;
  private readonly committed: BoundedMap<string, Folded>;

  constructor(private readonly readEvents: ReadEvents, capacity = 10_000) {
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

  /**
   * The state of `stream` right after `ev`, or undefined when the journal does not reach it.
   * Synchronous (no promise, no turn of the feed's loop) unless the journal has to be read: the
   * commit seen on this node, the event after the one folded last, and a stream's first event all
   * answer at once.
   */
  stateAt(def: AnyActorDef, stream: string, id: string, ev: StoredEvent): unknown | Promise<unknown> {
    let f: Folded | undefined;
    let c: Folded | undefined;
    if (ev.version === 1) {
      // A stream's first event: nothing before it to read, and one evolve costs less than asking
      // for the commit (evolve is pure: the same state either way).
      f = { version: 1, state: def.evolve(def.initial(id, ev.org), ev.data, { at: ev.at, version: 1, eventId: ev.id, org: ev.org }) };
    } else if ((c = this.committed.get(stream)) !== undefined && c.version === ev.version) {
      f = c;
    } else {
      const prev = this.cache.get(stream);
      if (prev === undefined || prev.version !== ev.version - 1) return this.readAt(def, stream, id, ev);
      f = { version: ev.version, state: def.evolve(prev.state, ev.data, { at: ev.at, version: ev.version, eventId: ev.id, org: ev.org }) };
    }
    this.cache.set(stream, f);
    return f.state;
  }

  /** Folds the stream from the journal up to `ev`: a reader that is not right behind the stream's last event. */
  private async readAt(def: AnyActorDef, stream: string, id: string, ev: StoredEvent): Promise<unknown> {
    let f: Folded = { version: 0, state: undefined };
    for (const e of await this.readEvents(def, id)) {
      if (e.version > ev.version) break;
      f = { version: e.version, state: def.evolve(f.state ?? def.initial(id, e.org), e.data, { at: e.at, version: e.version, eventId: e.id, org: e.org }) };
    }
    this.cache.set(stream, f);
    return f.version === ev.version ? f.state : undefined;
  }
}
