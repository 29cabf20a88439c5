/**
 * A commit writes only the list memberships and timers that changed (runtime/effects.ts; DESIGN
 * "Stores": lists and durable timers are functions of state). A record on a few lists is matched
 * by scanning, one on many (a work order on each offered worker's list) through maps; both must
 * give the same ops.
 */
import { expect, it } from 'vitest';
import { indexOps, timerOps } from '../../runtime/effects.ts';
import { defineActor, type IndexEntry, type TimerWish } from '../../runtime/index.ts';

interface Listed {
  lists: IndexEntry[];
  timers?: TimerWish[];
}

const Listed = defineActor({
  kind: 'test_listed',
  prefix: 'lst_',
  creates: ['set'],
  initial: (): Listed => ({ lists: [] }),
  decide: { set: (_s: Listed, cmd: { lists: IndexEntry[] }) => [{ type: 'listed.set' as const, lists: cmd.lists }] },
  evolve: (_s: Listed, e: { type: 'listed.set'; lists: IndexEntry[] }): Listed => ({ lists: e.lists }),
  view: (s: Listed) => s,
  indexes: (s: Listed) => s.lists,
  timers: (s: Listed) => s.timers ?? [],
});

const entries = (n: number, key: (i: number) => string, from = 0): IndexEntry[] => Array.from({ length: n }, (_, i) => ({ list: `l${from + i}`, sortKey: key(from + i) }));

/** The ops, sorted so that the two paths compare whatever order each visits lists in. */
const byListAndOp = (a: { list: string; op: string }, b: { list: string; op: string }) => (a.list + a.op < b.list + b.op ? -1 : 1);
const ops = (before: IndexEntry[], after: IndexEntry[], existed = true, known = true) => indexOps(Listed, 'lst_1', 'org_a', { lists: before }, { lists: after }, existed, known).sort(byListAndOp);

for (const size of [3, 40]) {
  it(`indexOps - a commit writes the lists it joined, moved within and left, and nothing for the rest (${size} lists, runtime/effects.ts)`, () => {
    const before = entries(size, (i) => `k${i}`);
    // the first list moves, the last is left, one is joined; the rest keep their keys
    const after = [{ list: 'l0', sortKey: 'moved' }, ...before.slice(1, size - 1), { list: 'joined', sortKey: 'j' }];
    expect(ops(before, after)).toEqual([
      { op: 'put', list: 'org_a/test_listed/joined', id: 'lst_1', sortKey: 'j', fresh: false, from: null },
      { op: 'put', list: 'org_a/test_listed/l0', id: 'lst_1', sortKey: 'moved', fresh: false, from: 'k0' },
      { op: 'remove', list: `org_a/test_listed/l${size - 1}`, id: 'lst_1', from: `k${size - 1}` },
    ]);
    expect(ops(before, before)).toEqual([]);
  });

  it(`indexOps - a new record's lists are fresh puts, and without known lists no op names a sort key it leaves (${size} lists, runtime/effects.ts)`, () => {
    const lists = entries(size, (i) => `k${i}`);
    expect(ops([], lists, false)).toEqual(lists.map((e) => ({ op: 'put', list: `org_a/test_listed/${e.list}`, id: 'lst_1', sortKey: e.sortKey, fresh: true, from: null })).sort(byListAndOp));
    const moved = lists.map((e) => ({ ...e, sortKey: `${e.sortKey}'` }));
    expect(ops(lists, moved.slice(1), true, false)).toContainEqual({ op: 'remove', list: 'org_a/test_listed/l0', id: 'lst_1' });
    expect(ops(lists, moved, true, false).every((o) => !('from' in o))).toBe(true);
  });
}

it('indexOps - a list named twice counts with its first sort key, on many lists as on few (runtime/effects.ts)', () => {
  for (const size of [3, 40]) {
    const before = [...entries(size, (i) => `k${i}`), { list: 'l0', sortKey: 'second' }];
    const after = entries(size, (i) => `k${i}`);
    expect(ops(before, after)).toEqual([]);
  }
});

it('timerOps - a timer is written again only when its due time, command or payload changed, and cancelled when no longer wished (runtime/effects.ts)', () => {
  const constant = { by_clock: true };
  const wishes = (payload: unknown, dueAt = 1000): TimerWish[] => [
    { name: 'window', dueAt, command: 'expire', payload },
    { name: 'offers', dueAt: 2000, command: 'expire_offers', payload: constant },
  ];
  const timers = (before: TimerWish[], after: TimerWish[]) => timerOps(Listed, 'lst_1', 'org_a', { lists: [], timers: before }, { lists: [], timers: after }, true);
  // the same object, and an equal one made again, keep the timer as it is
  expect(timers(wishes(constant), wishes(constant))).toEqual({ put: [], cancel: [] });
  expect(timers(wishes({ n: 1 }), wishes({ n: 1 }))).toEqual({ put: [], cancel: [] });
  // another payload or due time writes it again, under a new generation
  expect(timers(wishes({ n: 1 }), wishes({ n: 2 })).put.map((r) => [r.name, r.payload])).toEqual([['window', { n: 2 }]]);
  expect(timers(wishes(constant), wishes(constant, 1500)).put.map((r) => [r.name, r.dueAt])).toEqual([['window', 1500]]);
  // a timer no longer wished is cancelled by its key
  expect(timers(wishes(constant), wishes(constant).slice(1))).toEqual({ put: [], cancel: ['test_listed.lst_1.window'] });
});
