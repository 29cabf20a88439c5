import type { IndexOp, IndexPage, IndexStore } from '../types.ts';

/**
 * Ordered lists in memory, in the order Redis gives a sorted set read by lex: by sort key, ties by
 * id. Each list is a sequence of sorted blocks of at most `blockSize` members, found by binary
 * search over the blocks' last members, so a put or remove anywhere in a list of n members moves at
 * most one block, not n members.
 */

/**
 * Joined, not concatenated: a concatenation is a tree of string pieces (seven for an audit entry's
 * key) that stays a tree while the list keeps it, every piece an object for the collector to copy;
 * a join is one flat string.
 */
const composite = (sortKey: string, id: string) => [sortKey, id].join('\u0000');
const idOf = (c: string) => c.slice(c.indexOf('\u0000') + 1);

/**
 * A list this short finds a member's key by scanning its members instead of keeping a map by id:
 * most lists are short (one per record, e.g. a record's audit entries), and a Map with its table
 * is several hundred bytes more for the collector to copy per list.
 */
const SMALL = 8;

class BlockedList {
  private blocks: string[][] = [];
  /**
   * The member key of each id: made the first time a longer list is asked for one (a move, a
   * remove, a page after an id), kept from then on. A list only ever added to with fresh puts and
   * read from its ends (an audit trail, an event stream) never makes it: an insert into a map of
   * hundreds of thousands of ids is a cache miss per member.
   */
  private byId: Map<string, string> | undefined;
  private count = 0;

  constructor(private readonly blockSize: number) {}

  get size(): number {
    return this.count;
  }

  /** The member key (sort key and id) of `id`, if it is a member. */
  keyOf(id: string): string | undefined {
    if (this.byId) return this.byId.get(id);
    if (this.count > SMALL) {
      const byId = (this.byId = new Map());
      for (const block of this.blocks) for (const k of block) byId.set(idOf(k), k);
      return byId.get(id);
    }
    for (const block of this.blocks) for (const c of block) if (c.endsWith(id) && c.indexOf('\u0000') === c.length - id.length - 1) return c;
    return undefined;
  }

  /** Adds the member key `c` of `id`, unless the list holds `c` already (a fresh put again). */
  add(id: string, c: string): void {
    if (!this.insert(c)) return;
    this.count++;
    this.byId?.set(id, c);
  }

  /** Removes `id`, whose member key is `c`. */
  remove(id: string, c: string): void {
    this.delete(c);
    this.count--;
    this.byId?.delete(id);
  }

  /** Inserts `c` in order; false when it is a member already. */
  insert(c: string): boolean {
    const blocks = this.blocks;
    if (blocks.length === 0) {
      blocks.push([c]);
      return true;
    }
    // Most lists are kept by time or sequence, so a new member usually goes last: one comparison.
    const lastBlock = blocks[blocks.length - 1];
    if (lastBlock[lastBlock.length - 1] < c) {
      if (lastBlock.length < this.blockSize) lastBlock.push(c);
      else blocks.push([c]);
      return true;
    }
    const b = Math.min(this.blockFor(c), blocks.length - 1);
    const block = blocks[b];
    const i = search(block, c);
    if (block[i] === c) return false;
    block.splice(i, 0, c);
    if (block.length > this.blockSize) blocks.splice(b + 1, 0, block.splice(block.length >> 1));
    return true;
  }

  delete(c: string): void {
    const b = this.blockFor(c);
    const block = this.blocks[b];
    if (!block) return;
    const i = search(block, c);
    if (block[i] !== c) return;
    block.splice(i, 1);
    if (block.length === 0) this.blocks.splice(b, 1);
  }

  /** Position (block, offset) of the first member > c (asc) or the last member < c (desc). */
  private positionAfter(c: string, order: 'asc' | 'desc'): [number, number] {
    const b = this.blockFor(c);
    const block = this.blocks[b];
    const i = search(block, c); // block[i] === c: members are unique
    return order === 'asc' ? [b, i + 1] : [b, i - 1];
  }

  page(after: string | undefined, limit: number, order: 'asc' | 'desc'): IndexPage {
    const blocks = this.blocks;
    let [b, i] = after === undefined ? (order === 'asc' ? [0, 0] : [blocks.length - 1, (blocks.at(-1)?.length ?? 0) - 1]) : this.positionAfter(after, order);
    const ids: string[] = [];
    // normalise a start that fell off the end of its block
    if (order === 'asc' && b < blocks.length && i >= blocks[b].length) (b++, (i = 0));
    if (order === 'desc' && i < 0 && b > 0) (b--, (i = blocks[b].length - 1));
    while (ids.length < limit && b >= 0 && b < blocks.length && i >= 0) {
      ids.push(idOf(blocks[b][i]));
      if (order === 'asc') {
        if (++i >= blocks[b].length) (b++, (i = 0));
      } else if (--i < 0) {
        b--;
        i = b >= 0 ? blocks[b].length - 1 : -1;
      }
    }
    const hasMore = b >= 0 && b < blocks.length && i >= 0 && i < blocks[b].length;
    return { ids, hasMore };
  }

  /** Index of the first block whose last member is >= c (blocks.length when none). */
  private blockFor(c: string): number {
    let lo = 0;
    let hi = this.blocks.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const block = this.blocks[mid];
      if (block[block.length - 1] < c) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

export class MemoryIndexes implements IndexStore {
  private readonly lists = new Map<string, BlockedList>();

  constructor(private readonly blockSize = 512) {}

  async apply(ops: IndexOp[]): Promise<void> {
    // A record in several lists under one sort key (an audit entry in its module's and its
    // record's) keeps one member key string for all of them.
    let lastSortKey: string | undefined;
    let lastId: string | undefined;
    let last: string | undefined;
    for (const op of ops) {
      let l = this.lists.get(op.list);
      if (!l) {
        if (op.op === 'remove') continue;
        this.lists.set(op.list, (l = new BlockedList(this.blockSize)));
      }
      let c: string | undefined;
      if (op.op === 'put') {
        if (op.sortKey !== lastSortKey || op.id !== lastId) (lastSortKey = op.sortKey), (lastId = op.id), (last = composite(op.sortKey, op.id));
        c = last;
        // no other place to look for: a look-up in a long list's map by id is a cache miss
        if (op.fresh === true) {
          l.add(op.id, c!);
          continue;
        }
      }
      const prev = l.keyOf(op.id);
      if (prev !== undefined) {
        if (prev === c) continue;
        l.remove(op.id, prev);
      }
      if (c !== undefined) l.add(op.id, c);
      else if (l.size === 0) this.lists.delete(op.list);
    }
  }

  async page(list: string, opts: { after?: string; limit: number; order: 'asc' | 'desc' }): Promise<IndexPage> {
    const l = this.lists.get(list);
    if (!l) return { ids: [], hasMore: false };
    let after: string | undefined;
    if (opts.after !== undefined) {
      after = l.keyOf(opts.after);
      if (after === undefined) return { ids: [], hasMore: false };
    }
    return l.page(after, opts.limit, opts.order);
  }

  async close(): Promise<void> {}
}

/** Leftmost position where `c` is or would be inserted. */
function search(keys: string[], c: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (keys[mid] < c) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
