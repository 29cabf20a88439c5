/**
 * A command with a dedupe id seen before has no second effect (DESIGN "The runtime"), within one
 * turn too: a turn takes up to `batchSize` commands from the mailbox, and a repeat among them is
 * found however many ids the turn applied before it (runtime/turns.ts looks them up in a set once
 * a turn has applied more than a few).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ActorSystem, ManualClock } from '../../runtime/index.ts';
import { testStores } from '../../support/stores.ts';
import { Counter } from './counter.ts';

const ORG = 'org_alpha';
const systems: ActorSystem[] = [];
afterEach(async () => {
  for (const s of systems.splice(0)) await s.stop().catch(() => {});
});

async function boot(): Promise<ActorSystem> {
  const clock = new ManualClock();
  const system = new ActorSystem({ stores: await testStores(clock), clock, kinds: [Counter], log: () => {} });
  await system.start();
  await system.derived?.check();
  systems.push(system);
  return system;
}

describe('dedupe ids within one turn (DESIGN "The runtime")', () => {
  it('a dedupe id repeated within one turn has no second effect, however many ids the turn applied before it', async () => {
    const system = await boot();
    await system.ask(Counter, 'ctr_dt', 'open', {}, { org: ORG });
    // sent without waiting: one mailbox, so one turn decides them all (batchSize is far above 40)
    const asks: Promise<unknown>[] = [];
    for (let i = 0; i < 30; i++) asks.push(system.ask(Counter, 'ctr_dt', 'add', { n: 1 }, { org: ORG, dedupeId: `t${i}`, noReply: true }));
    // repeats of an id among the first few and of ids applied after the turn's twentieth
    for (const i of [2, 25, 29, 25]) asks.push(system.ask(Counter, 'ctr_dt', 'add', { n: 1000 }, { org: ORG, dedupeId: `t${i}`, noReply: true }));
    asks.push(system.ask(Counter, 'ctr_dt', 'add', { n: 1 }, { org: ORG, dedupeId: 't30', noReply: true }));
    await Promise.all(asks);
    expect(((await system.get(Counter, 'ctr_dt', ORG)) as { total: number }).total).toBe(31);
  });

});
