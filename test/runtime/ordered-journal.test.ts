/**
 * A turn over an ordered journal (stores/types.ts Journal.ordered; runtime/commits.ts header;
 * docs/architecture.md "Stores: what is on disk when an answer leaves"): its callers are answered
 * and in-memory read models told before its commit, nothing outside the process hears of it
 * before the commit, and once a write fails the stores take no more, so nothing decided on a lost
 * turn is ever kept. The journal's halt() stands in for a failed transaction (a full disk).
 * Local project only: the local family is the ordered one.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type Committed, ActorSystem, ManualClock } from '../../runtime/index.ts';
import type { Stores } from '../../stores/index.ts';
import { startHarness, type Harness } from '../../support/http.ts';
import { storeFamily, testStores } from '../../support/stores.ts';
import { Counter, type CounterState } from './counter.ts';

const ORG = 'org_ordered';
let stores: Stores | undefined;
let system: ActorSystem | undefined;
let h: Harness | undefined;
afterEach(async () => {
  await system?.stop().catch(() => undefined);
  await stores?.close();
  await h?.close().catch(() => undefined);
  system = stores = h = undefined;
});

async function boot(): Promise<{ system: ActorSystem; stores: Stores }> {
  const clock = new ManualClock();
  stores = await testStores(clock);
  system = new ActorSystem({ stores, clock, kinds: [Counter], log: () => {} });
  await system.start();
  return { system, stores };
}

describe.runIf(storeFamily() === 'local')('turns over an ordered journal (Journal.ordered)', () => {
  it('an actor pipelines its turns: every answer given is on disk once flushed() settles, in mailbox order', async () => {
    const { system, stores } = await boot();
    await system.ask(Counter, 'ctr_pipe', 'open', {}, { org: ORG });
    const totals = await Promise.all(Array.from({ length: 2_000 }, (_, i) => system.ask(Counter, 'ctr_pipe', 'add', { n: 1 }, { org: ORG }).then((v) => (v as { total: number }).total)));
    expect(totals).toEqual(Array.from({ length: 2_000 }, (_, i) => i + 1));
    await system.flushed();
    const events = await stores.journal.read('test_counter.ctr_pipe', 0);
    expect(events.map((e) => e.version)).toEqual(Array.from({ length: 2_001 }, (_, i) => i + 1));
  });

  it('once a write fails, a turn that went ahead is not kept: flushed() rejects, the actor is read again from disk, and no later write lands', async () => {
    const { system, stores } = await boot();
    await system.ask(Counter, 'ctr_lost', 'open', {}, { org: ORG });
    await system.ask(Counter, 'ctr_lost', 'add', { n: 2 }, { org: ORG });
    await system.flushed();

    stores.journal.halt!(new Error('the disk is full'));
    // answered ahead of its commit, which fails
    expect(await system.ask(Counter, 'ctr_lost', 'add', { n: 5 }, { org: ORG })).toMatchObject({ total: 7 });
    await expect(system.flushed()).rejects.toThrow(/the disk is full/);
    await system.settle();
    // the actor was dropped and activates from disk: the lost turn is gone
    expect((await system.state<CounterState>(Counter, 'ctr_lost', ORG)).total).toBe(2);
    // and a later turn, decided on what is on disk, is not kept either
    await system.ask(Counter, 'ctr_other', 'open', {}, { org: ORG }).catch(() => undefined);
    await expect(system.flushed()).rejects.toThrow();
    expect(await stores.journal.read('test_counter.ctr_other', 0)).toEqual([]);
    expect((await stores.journal.read('test_counter.ctr_lost', 0)).map((e) => e.version)).toEqual([1, 2]);
  });

  it('a read model listener (ahead) hears of a turn before its commit; a plain listener only of a durable commit', async () => {
    const { system, stores } = await boot();
    const ahead: string[] = [];
    const durable: string[] = [];
    system.onCommit((c: Committed) => ahead.push(`${c.id}:${c.events.map((e) => e.type).join(',')}`), { ahead: true });
    system.onCommit((c: Committed) => durable.push(`${c.id}:${c.events.map((e) => e.type).join(',')}`));
    await system.ask(Counter, 'ctr_l', 'open', {}, { org: ORG });
    await system.flushed();
    expect(ahead).toEqual(['ctr_l:counter.opened']);
    expect(durable).toEqual(['ctr_l:counter.opened']);

    stores.journal.halt!(new Error('the disk is full'));
    await system.ask(Counter, 'ctr_l', 'add', { n: 1 }, { org: ORG });
    await system.flushed().catch(() => undefined);
    await system.settle();
    expect(ahead).toEqual(['ctr_l:counter.opened', 'ctr_l:counter.added']);
    // outbound work starts only from durable commits: the lost turn never reached it
    expect(durable).toEqual(['ctr_l:counter.opened']);
  });

  it('through the gateway after a failed write: a change answers 503 outcome_unknown, a read 503 unavailable, never a success (spec 7)', async () => {
    h = await startHarness();
    const made = await h.request('POST', '/v1/api_keys', { idempotencyKey: 'ordered-1', body: { name: 'before' } });
    expect(made.status).toBe(200);
    h.platform.stores.journal.halt!(new Error('the disk is full'));
    const lost = await h.request('POST', '/v1/api_keys', { idempotencyKey: 'ordered-2', body: { name: 'after' } });
    expect(lost.status).toBe(503);
    expect(lost.body.error).toMatchObject({ code: 'outcome_unknown', retryable: true });
    const read = await h.request('GET', '/v1/api_keys');
    expect(read.status).toBe(503);
    expect(read.body.error).toMatchObject({ code: 'unavailable', retryable: true });
  });
});
