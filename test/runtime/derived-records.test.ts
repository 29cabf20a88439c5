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
beforeAll(async () => {
  stores = await testStores(new ManualClock());
});
afterAll(async () => {
  await stores?.close();
});

it(`page - a list member whose record is missing is left out, the rest shown in order (${storeFamily()})`, async () => {
  const records = new DerivedRecords<{ n: number }>(stores, 'probe_entry');
  await records.put([1, 2, 3].map((n) => ({ id: `prb_${n}`, org: 'org_1', record: { n }, lists: [{ list: 'all', sortKey: String(n) }] })));
  await stores.kv.delete('derived:probe_entry:prb_2');
  const page = await records.page('org_1', 'all', { limit: 10, order: 'asc' }, (id, r) => ({ id, n: r.n }));
  expect(page).toEqual({ data: [{ id: 'prb_1', n: 1 }, { id: 'prb_3', n: 3 }], has_more: false });
});
