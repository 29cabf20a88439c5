/**
 * Over the local stores one process serves the data directory (DESIGN "Stores"), so a claim named
 * by any other member was left by a process that ended: the platform's membership says it lapsed,
 * and a retry after a kill -9 takes the claim over at once instead of waiting out its lease
 * (docs/cluster.md "Idempotency claims"). Over the memory stores there is no membership.
 */
import { afterEach, expect, it } from 'vitest';
import { createPlatform, MEMBERSHIP, stopPlatform, type Platform } from '../../kernel/index.ts';
import { ManualClock } from '../../runtime/index.ts';
import { createMemoryStores } from '../../stores/index.ts';
import { localTestStores } from '../../support/stores.ts';

let platform: Platform | undefined;
afterEach(async () => {
  if (platform) await stopPlatform(platform);
  platform = undefined;
});

it('over the local stores every member but this process has lapsed; this process has not', async () => {
  const clock = new ManualClock();
  platform = await createPlatform({ areas: [], stores: localTestStores(clock), clock });
  const m = platform.services.get(MEMBERSHIP)!;
  expect(m.member).toMatch(/^proc_/);
  expect(m.hasLapsed(m.member)).toBe(false);
  expect(m.hasLapsed('proc_someoneelse')).toBe(true);
  const again = await createPlatform({ areas: [], stores: localTestStores(clock), clock });
  try {
    expect(again.services.get(MEMBERSHIP)!.member).not.toBe(m.member); // a new incarnation each start
  } finally {
    await stopPlatform(again);
  }
});

it('over the memory stores there is no membership: a claim ends with its lease', async () => {
  const clock = new ManualClock();
  platform = await createPlatform({ areas: [], stores: createMemoryStores({ now: () => clock.now() }), clock });
  expect(platform.services.get(MEMBERSHIP)).toBeUndefined();
});
