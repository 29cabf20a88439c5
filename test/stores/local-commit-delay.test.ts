/**
 * The local family's commit delay (docs/architecture.md "What a write costs (local stores)"): when
 * the transaction before held the work of at least COMMIT_SIBLINGS writers, the next waits
 * COMMIT_DELAY_MS before it begins (stores/local/writer.ts), as PostgreSQL's commit_delay with commit_siblings, so the requests arriving meanwhile
 * share its commit; a lone write never waits. The delay's timer is vitest's fake setTimeout, so
 * "waits" is a write that cannot settle until the timer is advanced, and "never waits" one that
 * settles with the timer never advanced. Local project only.
 */
import { afterEach, expect, it, vi } from 'vitest';
import { ManualClock } from '../../runtime/index.ts';
import type { LocalStores } from '../../stores/index.ts';
import { localTestStores } from '../../support/stores.ts';

const opened: LocalStores[] = [];
afterEach(async () => {
  vi.runOnlyPendingTimers(); // a delay still pending would hold the close
  vi.useRealTimers();
  await Promise.all(opened.splice(0).map((s) => s.close()));
});

function open(): LocalStores {
  const stores = localTestStores(new ManualClock());
  opened.push(stores);
  return stores;
}

/** Whether `p` settles within `turns` turns of the event loop, none of them a timer's (a commit with no delay takes far fewer). */
async function settlesWithin(p: Promise<unknown>, turns = 10_000): Promise<boolean> {
  let settled = false;
  void p.then(() => (settled = true), () => (settled = true));
  for (let i = 0; i < turns && !settled; i++) await new Promise<void>((r) => setImmediate(r));
  return settled;
}

it.runIf(process.env.TEST_STORES === 'local')('a lone write never waits for the commit delay: one write after another settles with no timer run', async () => {
  const stores = open();
  vi.useFakeTimers({ toFake: ['setTimeout'] });
  await stores.kv.set('lone:a', 1);
  await stores.flushed!();
  await stores.kv.set('lone:b', 2);
  expect(await settlesWithin(stores.flushed!())).toBe(true);
  expect(await stores.kv.get('lone:b')).toBe(2);
});

it.runIf(process.env.TEST_STORES === 'local')('after a transaction of 16 writers the next waits for the commit delay before it begins, and commits once it has passed', async () => {
  const stores = open();
  vi.useFakeTimers({ toFake: ['setTimeout'] });
  for (let i = 0; i < 16; i++) await stores.kv.set(`busy:${i}`, i);
  await stores.flushed!();
  await stores.kv.set('after', 'x');
  const after = stores.flushed!();
  expect(await settlesWithin(after)).toBe(false);
  vi.advanceTimersByTime(4);
  expect(await settlesWithin(after)).toBe(true);
  expect(await stores.kv.get('after')).toBe('x');
});
