/**
 * A commit's list and timer changes are retried until written (runtime/effect-writer.ts; DESIGN
 * "Stores": the cluster keeps them apart from the journal, in Redis and the reminder bucket, where
 * a write can fail after the events are durable). Over the memory stores with their index and
 * reminder writes failing on demand, as a Redis blip fails them; the other families' tests cover
 * the stores themselves. Time is a ManualClock; the retries wait on wall time, and settle() waits
 * for them.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ActorSystem, ManualClock } from '../../runtime/index.ts';
import { StoreUnavailableError, type Stores } from '../../stores/index.ts';
import { testStores } from '../../support/stores.ts';
import { Counter } from './counter.ts';

const ORG = 'org_alpha';
let stores: Stores | undefined;
let system: ActorSystem | undefined;
afterEach(async () => {
  await system?.stop();
  await stores?.close();
});

/** Memory stores whose index and reminder writes fail while `down` is true. */
async function flaky(clock: ManualClock) {
  const s = await testStores(clock, { family: 'memory' });
  const blip = { down: true, failed: 0 };
  const fail = () => {
    blip.failed++;
    throw new StoreUnavailableError('Redis unreachable (test)');
  };
  const apply = s.indexes.apply.bind(s.indexes);
  s.indexes.apply = async (ops) => (blip.down ? fail() : apply(ops));
  const put = s.reminders.put.bind(s.reminders);
  s.reminders.put = async (r) => (blip.down ? fail() : put(r));
  return { s, blip };
}

const ids = async (s: Stores, list: string) => (await s.indexes.page(`${ORG}/test_counter/${list}`, { limit: 50, order: 'asc' })).ids;

describe('list and timer changes retried until written (DESIGN "Stores"; runtime/effect-writer.ts)', () => {
  it('a commit whose list write failed is answered, and its list places appear once the store is back', async () => {
    const clock = new ManualClock();
    const { s, blip } = await flaky(clock);
    stores = s;
    system = new ActorSystem({ stores: s, clock, kinds: [Counter], log: () => {} });
    await system.start();
    await system.ask(Counter, 'ctr_1', 'open', {}, { org: ORG });
    expect(blip.failed).toBeGreaterThan(0);
    expect(await ids(s, 'all')).toEqual([]);
    setTimeout(() => (blip.down = false), 200);
    await system.settle();
    expect(await ids(s, 'all')).toEqual(['ctr_1']);
    expect(await ids(s, 'status:open')).toEqual(['ctr_1']);
  });

  it('later commits of the same actor wait behind the unwritten change, so an older membership never lands after a newer one', async () => {
    const clock = new ManualClock();
    const { s, blip } = await flaky(clock);
    stores = s;
    system = new ActorSystem({ stores: s, clock, kinds: [Counter], log: () => {} });
    await system.start();
    await system.ask(Counter, 'ctr_2', 'open', {}, { org: ORG });
    await system.ask(Counter, 'ctr_2', 'close', undefined, { org: ORG });
    blip.down = false;
    await system.settle();
    expect(await ids(s, 'status:closed')).toEqual(['ctr_2']);
    expect(await ids(s, 'status:open')).toEqual([]);
  });

  it('a timer whose put failed still fires when due, once written', async () => {
    const clock = new ManualClock();
    const { s, blip } = await flaky(clock);
    stores = s;
    blip.down = false;
    system = new ActorSystem({ stores: s, clock, kinds: [Counter], log: () => {} });
    await system.start();
    await system.ask(Counter, 'ctr_3', 'open', {}, { org: ORG });
    blip.down = true;
    await system.ask(Counter, 'ctr_3', 'arm', { dueAt: clock.now() + 60_000, label: 'wake' }, { org: ORG });
    setTimeout(() => (blip.down = false), 200);
    await system.settle();
    await clock.advance(60_000);
    await system.settle();
    expect(((await system.get(Counter, 'ctr_3', ORG)) as { rings: string[] }).rings).toEqual(['wake']);
  });

  it('an actor with unwritten changes is not passivated (its state is what the retry writes from)', async () => {
    const clock = new ManualClock();
    const { s, blip } = await flaky(clock);
    stores = s;
    system = new ActorSystem({ stores: s, clock, kinds: [Counter], log: () => {} });
    await system.start();
    await system.ask(Counter, 'ctr_4', 'open', {}, { org: ORG });
    await clock.advance(3_600_000);
    expect(await system.passivateIdle(0)).toBe(0);
    expect(system.activeCount).toBe(1);
    blip.down = false;
    await system.settle();
    expect(await system.passivateIdle(0)).toBe(1);
    expect(await ids(s, 'all')).toEqual(['ctr_4']);
  });
});
