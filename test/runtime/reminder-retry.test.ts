/**
 * A reminder whose command fails retryably fires again after a delay that doubles with each failure
 * in a row, from reminderRetryMs up to reminderRetryMaxMs (runtime/scheduler.ts; DESIGN
 * "Reminders"): soon after a store's election, rarely while a target stays down. Time is a
 * ManualClock; the stores are the family under test.
 */
import { afterEach, expect, it } from 'vitest';
import { ApiError } from '../../kernel/index.ts';
import { ActorSystem, defineActor, ManualClock } from '../../runtime/index.ts';
import type { Stores } from '../../stores/index.ts';
import { storeFamily, testStores } from '../../support/stores.ts';

const ORG = 'org_alpha';
let failing = 0;
const fired: number[] = [];

interface PingState { dueAt: number | null; pinged: boolean }
const Pinger = defineActor({
  kind: 'test_pinger',
  prefix: 'png_',
  creates: ['arm'],
  initial: (): PingState => ({ dueAt: null, pinged: false }),
  decide: {
    arm: (_s: PingState, cmd: { dueAt: number }) => [{ type: 'pinger.armed' as const, dueAt: cmd.dueAt }],
    ping: (_s: PingState, _cmd: unknown, ctx) => {
      fired.push(ctx.now);
      if (failing-- > 0) throw new ApiError('unavailable', 'the target is down', { retryable: true });
      return [{ type: 'pinger.pinged' as const }];
    },
  },
  evolve: (s: PingState, e: { type: 'pinger.armed'; dueAt: number } | { type: 'pinger.pinged' }) => (e.type === 'pinger.armed' ? { dueAt: e.dueAt, pinged: false } : { dueAt: null, pinged: true }),
  view: (s: PingState) => s,
  timers: (s: PingState) => (s.dueAt === null ? [] : [{ name: 'ping', dueAt: s.dueAt, command: 'ping' }]),
});

let stores: Stores | undefined;
let system: ActorSystem | undefined;
afterEach(async () => {
  await system?.stop();
  await stores?.close();
});

it(`a retryably failing reminder fires again after 1, 2 and 4 s, then every 4 s (the cap) until it succeeds (${storeFamily()})`, async () => {
  const clock = new ManualClock();
  stores = await testStores(clock);
  system = new ActorSystem({ stores, clock, kinds: [Pinger], limits: { reminderRetryMs: 1_000, reminderRetryMaxMs: 4_000 }, log: () => {} });
  await system.start();
  failing = 5;
  fired.length = 0;
  const t0 = clock.now();
  await system.ask(Pinger, 'png_1', 'arm', { dueAt: t0 + 10_000 }, { org: ORG });
  for (let s = 0; s < 60; s++) {
    await clock.advance(500);
    await system.settle();
  }
  // due at 10 s; failures push it by 1, 2, 4, then 4 (the cap), 4 s; the sixth try succeeds
  expect(fired.map((t) => t - t0)).toEqual([10_000, 11_000, 13_000, 17_000, 21_000, 25_000]);
  expect(((await system.get(Pinger, 'png_1', ORG)) as PingState).pinged).toBe(true);
});
