/**
 * Derived records (runtime/derived-records.ts): write-once records of journal events with their
 * list places, over the test's store family. In a cluster both live in Redis, written one after the
 * other; a Redis emptied between the two leaves a place without its record (docs/cluster.md "What
 * lives where, and what losing Redis costs"), and a page then leaves that member out, never a 500.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DerivedRecords, ManualClock } from '../../runtime/index.ts';
import type { Stores } from '../../stores/index.ts';
import { storeFamily, testStores } from '../../support/stores.ts';

let stores: Stores;
const listsOf = (r: { n: number }) => [{ list: 'all', sortKey: String(r.n).padStart(4, '0') }, ...(r.n % 2 ? [{ list: 'odd', sortKey: String(r.n).padStart(4, '0') }] : [])];
beforeAll(async () => {
  stores = await testStores(new ManualClock());
});
afterAll(async () => {
  await stores?.close();
});

it(`page - a list member whose record is missing is left out, the rest shown in order (${storeFamily()})`, async () => {
  const records = new DerivedRecords<{ n: number }>(stores, 'probe_entry', listsOf);
  await records.put([1, 2, 3].map((n) => ({ id: `prb_${n}`, org: 'org_1', record: { n }, lists: listsOf({ n }) })));
  await stores.kv.delete('derived:probe_entry:prb_2');
  const page = await records.page('org_1', 'all', { limit: 10, order: 'asc' }, (id, r) => ({ id, n: r.n }));
  expect(page).toEqual({ data: [{ id: 'prb_1', n: 1 }, { id: 'prb_3', n: 3 }], has_more: false });
});

it(`page after a record (spec 4 preamble: starting_after) - from the record on, on its own list; after a record of another organisation or not on the list, empty (${storeFamily()})`, async () => {
  const records = new DerivedRecords<{ n: number }>(stores, 'paged_entry', listsOf);
  await records.put([1, 2, 3, 4, 5].map((n) => ({ id: `pge_${n}`, org: 'org_1', record: { n }, lists: listsOf({ n }) })));
  await records.put([{ id: 'pge_9', org: 'org_2', record: { n: 9 }, lists: listsOf({ n: 9 }) }]);
  const ids = async (list: string, after: string, order: 'asc' | 'desc' = 'asc') => (await records.page('org_1', list, { after, limit: 2, order }, (id) => id)).data;
  expect(await ids('all', 'pge_2')).toEqual(['pge_3', 'pge_4']);
  expect(await ids('all', 'pge_4', 'desc')).toEqual(['pge_3', 'pge_2']);
  expect(await ids('odd', 'pge_1')).toEqual(['pge_3', 'pge_5']);
  expect(await ids('odd', 'pge_2')).toEqual([]); // not on the list
  expect(await ids('all', 'pge_9')).toEqual([]); // another organisation's
  expect(await ids('all', 'pge_404')).toEqual([]); // none
});
