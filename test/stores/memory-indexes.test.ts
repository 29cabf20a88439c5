/**
 * The memory index store keeps lists in sorted blocks; its pages must equal a plain sorted list's
 * (the order Redis gives, ties by id; spec 4 preamble: starting_after resumes after that record)
 * whatever the sequence of puts, moves and removes. Block size 4 makes every path cross blocks.
 */
import { describe, expect, it } from 'vitest';
import { MemoryIndexes } from '../../stores/memory/indexes.ts';

/** Deterministic pseudo-random numbers (a test must not depend on unseeded randomness). */
function lcg(seed: number) {
  let x = seed >>> 0;
  return (n: number) => ((x = (Math.imul(x, 1664525) + 1013904223) >>> 0) % n);
}

describe('memory indexes (blocked sorted lists)', () => {
  it('pages equal a reference sorted list after 3,000 random puts, moves and removes, in both orders', async () => {
    const rnd = lcg(42);
    const store = new MemoryIndexes(4);
    const model = new Map<string, string>(); // id -> sortKey
    for (let step = 0; step < 3_000; step++) {
      const id = `m${rnd(300)}`;
      if (rnd(4) === 0) {
        await store.apply([{ op: 'remove', list: 'l', id }]);
        model.delete(id);
      } else {
        const sortKey = String(rnd(50)).padStart(3, '0'); // many ties: order falls back to the id
        await store.apply([{ op: 'put', list: 'l', id, sortKey }]);
        model.set(id, sortKey);
      }
      if (step % 250 !== 0) continue;
      const asc = [...model].sort(([ia, ka], [ib, kb]) => (ka < kb ? -1 : ka > kb ? 1 : ia < ib ? -1 : ia > ib ? 1 : 0)).map(([id]) => id);
      for (const order of ['asc', 'desc'] as const) {
        const expected = order === 'asc' ? asc : [...asc].reverse();
        // walk the whole list in pages of 7 via starting_after
        const seen: string[] = [];
        let after: string | undefined;
        for (;;) {
          const page = await store.page('l', { after, limit: 7, order });
          seen.push(...page.ids);
          expect(page.hasMore).toBe(seen.length < expected.length);
          if (!page.hasMore) break;
          after = page.ids.at(-1);
        }
        expect(seen).toEqual(expected);
      }
    }
  });

  it('fresh puts (new members, or again with the same sort key) keep pages equal to the reference, in short and long lists', async () => {
    const rnd = lcg(99);
    const store = new MemoryIndexes(4);
    const model = new Map<string, string>();
    for (let step = 0; step < 2_000; step++) {
      // a write-once record: its sort key follows from its id, and it may be put again (a feed read twice)
      const n = rnd(400);
      const id = `r${n}`;
      const sortKey = String(n % 37).padStart(3, '0');
      const list = n % 3 === 0 ? 'short' : 'long';
      if (list === 'short' && n > 24) continue;
      await store.apply([{ op: 'put', list, id, sortKey, fresh: true }]);
      model.set(`${list} ${id}`, sortKey);
    }
    for (const list of ['short', 'long']) {
      const asc = [...model].filter(([k]) => k.startsWith(`${list} `)).map(([k, sk]) => [k.slice(list.length + 1), sk] as const)
        .sort(([ia, ka], [ib, kb]) => (ka < kb ? -1 : ka > kb ? 1 : ia < ib ? -1 : 1)).map(([id]) => id);
      const seen: string[] = [];
      let after: string | undefined;
      for (;;) {
        const page = await store.page(list, { after, limit: 5, order: 'asc' });
        seen.push(...page.ids);
        if (!page.hasMore) break;
        after = page.ids.at(-1);
      }
      expect(seen, list).toEqual(asc);
    }
  });

  it('an id that is not in the list gives an empty page', async () => {
    const store = new MemoryIndexes(4);
    await store.apply(['a', 'b', 'c'].map((id) => ({ op: 'put' as const, list: 'l', id, sortKey: id })));
    expect(await store.page('l', { after: 'zz', limit: 5, order: 'asc' })).toEqual({ ids: [], hasMore: false });
    await store.apply([{ op: 'remove', list: 'l', id: 'b' }]);
    expect(await store.page('l', { after: 'b', limit: 5, order: 'desc' })).toEqual({ ids: [], hasMore: false });
    expect(await store.page('l', { after: 'c', limit: 5, order: 'desc' })).toEqual({ ids: ['a'], hasMore: false });
  });

  it('a short list (found by scanning, not by a map) and one that grows past it and shrinks back page like the reference, ids sharing endings included', async () => {
    const rnd = lcg(7);
    const store = new MemoryIndexes();
    // ids that end alike, one with a NUL (hostile ids reach the store): a scan must not confuse them
    const ids = ['a', 'ba', 'b\u0000a', 'a\u0000', 'aa', 'x', 'yx', 'zyx', 'q', 'r', 'qr', 'rq'];
    const model = new Map<string, string>();
    const check = async () => {
      const asc = [...model].sort(([ia, ka], [ib, kb]) => (ka < kb ? -1 : ka > kb ? 1 : ia < ib ? -1 : ia > ib ? 1 : 0)).map(([id]) => id);
      const all = await store.page('l', { limit: 100, order: 'asc' });
      expect(all.ids).toEqual(asc);
      for (let i = 0; i < asc.length; i++) expect((await store.page('l', { after: asc[i], limit: 1, order: 'asc' })).ids).toEqual(asc.slice(i + 1, i + 2));
    };
    for (let step = 0; step < 2_000; step++) {
      // the first and last thousand steps keep to 6 ids (always short); between, all 12 (past 8 members)
      const id = ids[rnd(step < 500 || step >= 1_500 ? 6 : ids.length)];
      if (rnd(3) === 0 || (step >= 1_500 && rnd(2) === 0)) {
        await store.apply([{ op: 'remove', list: 'l', id }]);
        model.delete(id);
      } else {
        const sortKey = String(rnd(4));
        await store.apply([{ op: 'put', list: 'l', id, sortKey }]);
        model.set(id, sortKey);
      }
      if (step % 50 === 0) await check();
    }
    await check();
  });
});
