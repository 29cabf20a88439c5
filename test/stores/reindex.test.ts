/**
 * List indexes are rebuildable from the journal (DESIGN "Sharding"): a fresh index store filled by
 * rebuildIndexes pages exactly as the one written in the commit path.
 */
import { afterEach, expect, it } from 'vitest';
import { ActorSystem, ManualClock, rebuildIndexes } from '../../runtime/index.ts';
import type { Stores } from '../../stores/index.ts';
import { indexOps } from '../../runtime/effects.ts';
import { Counter } from '../runtime/counter.ts';
import { storeFamily, testStores } from '../../support/stores.ts';

const ORG = 'org_alpha';
const opened: Stores[] = [];
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
});

it(`rebuildIndexes - the journal gives back every list membership (${storeFamily()})`, async () => {
  const clock = new ManualClock();
  const stores = await testStores(clock);
  const fresh = await testStores(clock);
  opened.push(stores, fresh);
  const system = new ActorSystem({ stores, clock, kinds: [Counter], log: () => {} });
  for (let i = 0; i < 7; i++) {
    await clock.advance(1000);
    await system.ask(Counter, `ctr_${i}`, 'open', {}, { org: i === 6 ? 'org_beta' : ORG });
  }
  for (const i of [1, 4]) await system.ask(Counter, `ctr_${i}`, 'close', undefined, { org: ORG });
  await system.stop();

  const result = await rebuildIndexes([Counter], stores.journal, fresh.indexes);
  expect(result.actors).toBe(7);
  for (const list of [`${ORG}/test_counter/all`, `${ORG}/test_counter/status:open`, `${ORG}/test_counter/status:closed`, 'org_beta/test_counter/all']) {
    for (const order of ['asc', 'desc'] as const) {
      expect(await fresh.indexes.page(list, { limit: 50, order })).toEqual(await stores.indexes.page(list, { limit: 50, order }));
    }
  }
  expect((await fresh.indexes.page(`${ORG}/test_counter/status:closed`, { limit: 50, order: 'asc' })).ids).toEqual(['ctr_1', 'ctr_4']);
  expect((await fresh.indexes.page(`${ORG}/test_counter/status:open`, { limit: 50, order: 'asc' })).ids).toEqual(['ctr_0', 'ctr_2', 'ctr_3', 'ctr_5']);
});

it(`rebuildIndexes - a change committed while it runs is not undone by a membership replayed from before it (${storeFamily()})`, async () => {
  const clock = new ManualClock();
  const stores = await testStores(clock);
  const fresh = await testStores(clock);
  opened.push(stores, fresh);
  const system = new ActorSystem({ stores, clock, kinds: [Counter], log: () => {} });
  for (let i = 0; i < 3; i++) {
    await clock.advance(1000);
    await system.ask(Counter, `ctr_${i}`, 'open', {}, { org: ORG });
  }
  let pages = 0;
  const keepGoing = async () => {
    // the third look comes after the whole journal was read, before its memberships are written:
    // ctr_0 closes then, and its commit writes its own list change first, as a serving node's does
    if (++pages === 3) {
      const before = await system.state(Counter, 'ctr_0', ORG);
      await system.ask(Counter, 'ctr_0', 'close', undefined, { org: ORG });
      await system.flushed(); // an ordered journal answers before its commit is readable
      await fresh.indexes.apply(indexOps(Counter, 'ctr_0', ORG, before, await system.state(Counter, 'ctr_0', ORG), true));
    }
    return true;
  };
  await rebuildIndexes([Counter], stores.journal, fresh.indexes, { keepGoing });
  await system.stop();
  expect((await fresh.indexes.page(`${ORG}/test_counter/status:open`, { limit: 50, order: 'asc' })).ids).toEqual(['ctr_1', 'ctr_2']);
  expect((await fresh.indexes.page(`${ORG}/test_counter/status:closed`, { limit: 50, order: 'asc' })).ids).toEqual(['ctr_0']);
});

it(`rebuildIndexes - stops, throwing, once its claim is lost (${storeFamily()})`, async () => {
  const clock = new ManualClock();
  const stores = await testStores(clock);
  opened.push(stores);
  await expect(rebuildIndexes([Counter], stores.journal, stores.indexes, { keepGoing: async () => false })).rejects.toThrow(/lost its claim/);
});
