/**
 * Memory follows the active set (DESIGN "The runtime", "Stores"): above `maxActive` the idle
 * actors are passivated with a snapshot, and a flood of new actors never leaves more resident than
 * the limit once it is over; every record stays readable from the stores.
 */
import { afterEach, expect, it } from 'vitest';
import { ActorSystem, ManualClock } from '../../runtime/index.ts';
import type { Stores } from '../../stores/index.ts';
import { testStores } from '../../support/stores.ts';
import { until } from '../../support/until.ts';
import { Counter } from './counter.ts';

let stores: Stores | undefined;
let system: ActorSystem | undefined;
afterEach(async () => {
  await system?.stop();
  await stores?.close();
  system = stores = undefined;
});

it('a flood of 2,000 new actors over a limit of 100: back at or under the limit once it is over, each readable', async () => {
  const clock = new ManualClock();
  stores = await testStores(clock);
  system = new ActorSystem({ stores, clock, kinds: [Counter], limits: { maxActive: 100 }, log: () => {} });
  await system.start();
  const ids = Array.from({ length: 2_000 }, (_, i) => `ctr_${i}`);
  await Promise.all(ids.map((id) => system!.ask(Counter, id, 'open', {}, { org: 'org_a' })));
  await system.settle();
  await until(() => system!.activeCount <= 100, 10_000);
  expect(system.activeCount).toBeLessThanOrEqual(100);
  for (const id of [ids[0], ids[999], ids[1_999]]) expect(await system.get(Counter, id, 'org_a')).toMatchObject({ id, status: 'open' });
});
