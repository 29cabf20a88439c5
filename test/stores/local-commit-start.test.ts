/**
 * When the local family's transactions begin (docs/architecture.md "What a write costs (local
 * stores)", stores/local/writer.ts): one at a time, each as soon as the one before is committed and
 * logged, with no timed wait for more writers, whether the one before held one writer or many (a
 * wait would be added to every answer of a closed-loop client). setTimeout is vitest's fake one,
 * never advanced, so a write that settles waited on no timer. Local project only.
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

it.runIf(process.env.TEST_STORES === 'local')('a lone write begins its transaction at once: one write after another settles with no timer run', async () => {
  const stores = open();
  vi.useFakeTimers({ toFake: ['setTimeout'] });
  await stores.kv.set('lone:a', 1);
  await stores.flushed!();
  await stores.kv.set('lone:b', 2);
  expect(await settlesWithin(stores.flushed!())).toBe(true);
  expect(await stores.kv.get('lone:b')).toBe(2);
});

it.runIf(process.env.TEST_STORES === 'local')('after a transaction of 64 writers the next begins once it is done, with no timer run, and commits', async () => {
  const stores = open();
  vi.useFakeTimers({ toFake: ['setTimeout'] });
  await Promise.all(Array.from({ length: 64 }, (_, i) => stores.kv.set(`busy:${i}`, i)));
  await stores.flushed!();
  await stores.kv.set('after', 'x');
  expect(await settlesWithin(stores.flushed!())).toBe(true);
  expect(await stores.kv.get('after')).toBe('x');
});
