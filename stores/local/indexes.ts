import type { Database } from 'lmdb';
import type { IndexOp, IndexPage, IndexStore, PageOptions } from '../types.ts';
import { join, keyParts, PAST, SEP } from './keys.ts';
import type { Writer } from './writer.ts';

/**
 * Ordered lists on disk, in the order the other families give: by sort key, ties by id. A list is
 * a key range of `members` (list, sort key, id -> id). `places` keeps a member's sort key (list,
 * id -> sort key) for a move, a removal and a page after an id, but only for ops that do not name
 * the sort key they leave (`from`): the runtime's lists and the derived records' name it, so their
 * creates and moves write members alone. A place is keyed by the id, which lands on a random page
 * of the B-tree; a member of a list ordered by time lands beside the last one.
 */
export class LocalIndexes implements IndexStore {
  readonly keepsNoPlaces = true;

  constructor(
    private readonly members: Database,
    private readonly places: Database,
    private readonly writer: Writer,
  ) {}

  apply(ops: IndexOp[]): Promise<void> {
    if (ops.length === 0) return Promise.resolve();
    return this.writer.run(() => this.write(ops));
  }

  /** Inside a write transaction (the journal calls it with a commit's events). */
  write(ops: IndexOp[]): void {
    for (const op of ops) {
      if (op.from !== undefined) {
        this.move(op);
        continue;
      }
      const place = join(op.list, op.id);
      // a fresh put has no other place to look for (stores/types.ts IndexOp)
      const prev = op.op === 'put' && op.fresh === true ? undefined : (this.places.get(place) as string | undefined);
      if (op.op === 'put') {
        if (prev === op.sortKey) continue;
        if (prev !== undefined) this.members.remove(join(op.list, prev, op.id));
        this.members.put(join(op.list, op.sortKey, op.id), op.id);
        this.places.put(place, op.sortKey);
      } else if (prev !== undefined) {
        this.members.remove(join(op.list, prev, op.id));
        this.places.remove(place);
      }
    }
  }

  /** An op that names the sort key it leaves: the members alone change. */
  private move(op: IndexOp & { from?: string | null }): void {
    if (op.op === 'put' && op.from === op.sortKey) return;
    if (op.from) this.members.remove(join(op.list, op.from, op.id));
    if (op.op === 'put') this.members.put(join(op.list, op.sortKey, op.id), op.id);
  }

  async page(list: string, opts: PageOptions): Promise<IndexPage> {
    // after the writes queued before it: a turn's list changes are written with its events, and
    // the runtime answers a turn before its commit (Journal.ordered)
    await this.writer.idle();
    const lo = list + SEP;
    const hi = list + PAST;
    let from: string | undefined;
    if (opts.after !== undefined) {
      const sortKey = opts.afterSortKey ?? (this.places.get(join(list, opts.after)) as string | undefined);
      if (sortKey === undefined) return { ids: [], hasMore: false };
      from = join(list, sortKey, opts.after);
      // a sort key the caller named is only where the id would be: the id must be there
      if (opts.afterSortKey !== undefined && this.members.get(from) === undefined) return { ids: [], hasMore: false };
    }
    const asc = opts.order === 'asc';
    // the range's start is inclusive: a page after an id reads one more and drops it
    const range = asc ? { start: from ?? lo, end: hi } : { start: from ?? hi, end: lo, reverse: true };
    const ids: string[] = [];
    let hasMore = false;
    for (const { value } of this.members.getRange({ ...range, limit: opts.limit + 2 })) {
      if (value === opts.after) continue; // ids are unique in a list: this is the page's start
      if (ids.length === opts.limit) {
        hasMore = true;
        break;
      }
      ids.push(value as string);
    }
    return { ids, hasMore };
  }

  /**
   * Every member and place of the lists `which` names, removed in one transaction: a scan of every
   * list, for a start whose list declarations changed. A list whose name was kept as its digest
   * (over keys.ts LONGEST_PART, only from hostile input) is not found by its name and stays.
   */
  dropLists(which: (list: string) => boolean): Promise<number> {
    return this.writer.run(() => {
      const members = this.named(this.members, which);
      for (const key of members) this.members.remove(key);
      for (const key of this.named(this.places, which)) this.places.remove(key);
      return members.length;
    });
  }

  /** The keys of `db` in the lists `which` names, read before any is removed. */
  private named(db: Database, which: (list: string) => boolean): string[] {
    const out: string[] = [];
    for (const key of db.getKeys({}) as Iterable<string>) {
      const parts = keyParts(key);
      if (parts !== undefined && which(parts[0])) out.push(key);
    }
    return out;
  }

  async close(): Promise<void> {}
}
