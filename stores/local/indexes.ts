import type { Database } from 'lmdb';
import type { IndexOp, IndexPage, IndexStore } from '../types.ts';
import { join, PAST, SEP } from './keys.ts';
import type { Writer } from './writer.ts';

/**
 * Ordered lists on disk, in the order the other families give: by sort key, ties by id. A list is
 * a key range of `members` (list, sort key, id -> id), and `places` keeps each member's sort key
 * (list, id -> sort key) for a move, a removal and a page after an id.
 */
export class LocalIndexes implements IndexStore {
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

  async page(list: string, opts: { after?: string; limit: number; order: 'asc' | 'desc' }): Promise<IndexPage> {
    // after the writes queued before it: a turn's list changes are written with its events, and
    // the runtime answers a turn before its commit (Journal.ordered)
    await this.writer.idle();
    const lo = list + SEP;
    const hi = list + PAST;
    let from: string | undefined;
    if (opts.after !== undefined) {
      const sortKey = this.places.get(join(list, opts.after)) as string | undefined;
      if (sortKey === undefined) return { ids: [], hasMore: false };
      from = join(list, sortKey, opts.after);
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

  async close(): Promise<void> {}
}
