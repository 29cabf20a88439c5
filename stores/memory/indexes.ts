import type { IndexOp, IndexPage, IndexStore } from '../types.ts';

interface List {
  keys: string[]; // composite `${sortKey}\u0000${id}`, kept sorted
  byId: Map<string, string>;
}

const composite = (sortKey: string, id: string) => `${sortKey}\u0000${id}`;
const idOf = (c: string) => c.slice(c.indexOf('\u0000') + 1);

/** Sorted arrays with binary search; the same order Redis gives a sorted set read by lex. */
export class MemoryIndexes implements IndexStore {
  private readonly lists = new Map<string, List>();

  async apply(ops: IndexOp[]): Promise<void> {
    for (const op of ops) {
      let l = this.lists.get(op.list);
      if (!l) {
        if (op.op === 'remove') continue;
        this.lists.set(op.list, (l = { keys: [], byId: new Map() }));
      }
      const prev = l.byId.get(op.id);
      if (prev !== undefined) {
        if (op.op === 'put' && prev === composite(op.sortKey, op.id)) continue;
        l.keys.splice(search(l.keys, prev), 1);
        l.byId.delete(op.id);
      }
      if (op.op === 'put') {
        const c = composite(op.sortKey, op.id);
        l.keys.splice(search(l.keys, c), 0, c);
        l.byId.set(op.id, c);
      }
    }
  }

  async page(list: string, opts: { after?: string; limit: number; order: 'asc' | 'desc' }): Promise<IndexPage> {
    const l = this.lists.get(list);
    if (!l) return { ids: [], hasMore: false };
    const n = l.keys.length;
    let start: number; // position in iteration order of the first member to return
    if (opts.after !== undefined) {
      const c = l.byId.get(opts.after);
      if (c === undefined) return { ids: [], hasMore: false };
      const i = search(l.keys, c);
      start = opts.order === 'asc' ? i + 1 : n - i;
    } else start = 0;
    const ids: string[] = [];
    for (let k = start; k < n && ids.length < opts.limit; k++) {
      ids.push(idOf(l.keys[opts.order === 'asc' ? k : n - 1 - k]));
    }
    return { ids, hasMore: start + ids.length < n };
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
