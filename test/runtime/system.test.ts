/**
 * The runtime's rules (DESIGN "The runtime"; STYLE "The mailbox is bounded and fair",
 * "Time is injected", "Snapshots are a versioned codec").
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../kernel/index.ts';
import { ActorSystem, ManualClock, defineActor, roundTrip, type Limits } from '../../runtime/index.ts';
import type { Stores, StoredEvent } from '../../stores/index.ts';
import { testStores } from '../../support/stores.ts';
import { Counter, type CounterEvent, type CounterState } from './counter.ts';

const ORG = 'org_alpha';
const OTHER = 'org_beta';
const HOUR = 3600_000;

const systems: ActorSystem[] = [];
afterEach(async () => {
  for (const s of systems.splice(0)) await s.stop().catch(() => {});
});

async function boot(opts: { clock?: ManualClock; stores?: Stores; limits?: Partial<Limits>; kinds?: any[] } = {}) {
  const clock = opts.clock ?? new ManualClock();
  const stores = opts.stores ?? (await testStores(clock));
  const system = new ActorSystem({ stores, clock, kinds: opts.kinds ?? [Counter], limits: opts.limits, log: () => {} });
  await system.start();
  // a new cluster namespace is indexed from its journal once at start: done before a test writes
  // the journal behind the system's back
  await system.derived?.check();
  systems.push(system);
  return { clock, stores, system };
}

/**
 * A new system over the same stores: the old one is dropped without a goodbye (a crash), after
 * what it answered is on disk, as anything it acknowledged outside would be (an ordered journal
 * answers a turn before its commit: Journal.ordered; the gateway waits for Stores.flushed()).
 */
async function crashAndRestart(old: { clock: ManualClock; stores: Stores; system: ActorSystem }, kinds?: any[]) {
  await old.stores.flushed?.();
  systems.splice(systems.indexOf(old.system), 1);
  await old.system.setReactionDispatch(false); // a dead process reads no more of the feed (nor holds its lease)
  return boot({ clock: old.clock, stores: old.stores, kinds });
}

const addedNs = (events: StoredEvent[]) => events.filter((e) => e.type === 'counter.added').map((e) => (e.data as { n: number }).n);

describe('mailbox: one command at a time, in order (DESIGN "The runtime")', () => {
  it('10,000 concurrent asks to one actor yield exactly 10,000 events in mailbox order, none lost, none doubled', async () => {
    const { system, stores } = await boot();
    await system.ask(Counter, 'ctr_hot', 'open', {}, { org: ORG });
    const replies = await Promise.all(Array.from({ length: 10_000 }, (_, i) => system.ask(Counter, 'ctr_hot', 'add', { n: i }, { org: ORG })));
    await stores.flushed?.(); // answered is decided; on disk once flushed (Journal.ordered)
    const events = await stores.journal.read('test_counter.ctr_hot', 0);
    const ns = addedNs(events);
    expect(ns).toHaveLength(10_000);
    expect(ns).toEqual(Array.from({ length: 10_000 }, (_, i) => i));
    expect(events.map((e) => e.version)).toEqual(Array.from({ length: 10_001 }, (_, i) => i + 1));
    expect(new Set(events.map((e) => e.id)).size).toBe(10_001);
    // each caller saw the state right after its own command: totals are the running sums
    expect((replies[9_999] as { total: number }).total).toBe((9_999 * 10_000) / 2);
    expect((replies[0] as { total: number }).total).toBe(0);
  });

  it('a full user lane answers the retryable overloaded error and memory stays bounded (STYLE: bounded mailbox)', async () => {
    const { system } = await boot({ limits: { mailboxCapacity: 100 } });
    await system.ask(Counter, 'ctr_full', 'open', {}, { org: ORG });
    const results = await Promise.allSettled(Array.from({ length: 1_000 }, (_, i) => system.ask(Counter, 'ctr_full', 'add', { n: i }, { org: ORG })));
    const refused = results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason as ApiError);
    expect(refused.length).toBe(900);
    expect(refused.every((e) => e.code === 'overloaded' && e.status === 503 && e.retryable)).toBe(true);
    const state = (await system.state(Counter, 'ctr_full', ORG)) as CounterState;
    expect(state.log).toEqual(Array.from({ length: 100 }, (_, i) => i)); // the accepted ones, in order
  });

  it('a refused command applies nothing and later commands still apply (spec 7: 409 conflict)', async () => {
    const { system } = await boot();
    await system.ask(Counter, 'ctr_c', 'open', {}, { org: ORG });
    await system.ask(Counter, 'ctr_c', 'add', { n: 1 }, { org: ORG });
    await system.ask(Counter, 'ctr_c', 'close', {}, { org: ORG });
    await expect(system.ask(Counter, 'ctr_c', 'add', { n: 2 }, { org: ORG })).rejects.toMatchObject({ code: 'conflict', status: 409 });
    await expect(system.ask(Counter, 'ctr_c', 'explode', {}, { org: ORG })).rejects.toMatchObject({ code: 'internal_error' });
    expect(((await system.get(Counter, 'ctr_c', ORG)) as { total: number }).total).toBe(1);
  });
});

describe('organisation and existence checks (spec 5.5, 7)', () => {
  it('a record of another organisation answers 403 organisation_mismatch, to asks and reads', async () => {
    const { system } = await boot();
    await system.ask(Counter, 'ctr_o', 'open', {}, { org: ORG });
    await expect(system.ask(Counter, 'ctr_o', 'add', { n: 1 }, { org: OTHER })).rejects.toMatchObject({ code: 'organisation_mismatch', status: 403 });
    await expect(system.get(Counter, 'ctr_o', OTHER)).rejects.toMatchObject({ code: 'organisation_mismatch' });
    expect(((await system.get(Counter, 'ctr_o', ORG)) as { total: number }).total).toBe(0);
  });

  it('a command other than a create on an unknown id answers 404 not_found and leaves no actor behind', async () => {
    const { system } = await boot();
    await expect(system.ask(Counter, 'ctr_none', 'add', { n: 1 }, { org: ORG })).rejects.toMatchObject({ code: 'not_found', status: 404 });
    await expect(system.get(Counter, 'ctr_none', ORG)).rejects.toMatchObject({ code: 'not_found' });
    await system.settle();
    expect(system.activeCount).toBe(0);
  });

  it('a command with a dedupe id seen before has no second effect', async () => {
    const { system } = await boot();
    await system.ask(Counter, 'ctr_d', 'open', {}, { org: ORG });
    await system.ask(Counter, 'ctr_d', 'add', { n: 5 }, { org: ORG, dedupeId: 'once' });
    await system.ask(Counter, 'ctr_d', 'add', { n: 5 }, { org: ORG, dedupeId: 'once' });
    expect(((await system.get(Counter, 'ctr_d', ORG)) as { total: number }).total).toBe(5);
  });

  it('an ask that wants no reply applies its command and resolves without a view; refusals still reach it', async () => {
    const { system } = await boot();
    await system.ask(Counter, 'ctr_q', 'open', {}, { org: ORG });
    await expect(system.ask(Counter, 'ctr_q', 'add', { n: 3 }, { org: ORG, noReply: true })).resolves.toBeUndefined();
    await expect(system.ask(Counter, 'ctr_q', 'add', { n: 0.5 }, { org: ORG, noReply: true })).rejects.toMatchObject({ code: 'validation_failed' });
    expect(((await system.ask(Counter, 'ctr_q', 'add', { n: 4 }, { org: ORG })) as { total: number }).total).toBe(7);
  });
});

describe('restart rebuilds every actor (snapshots every N events, then the journal after it)', () => {
  // Counter snapshots every 5 events; 'open' is the first event.
  for (const eventsPastOpen of [0, 1, 4, 5, 6, 11]) {
    it(`rebuilds the same state with ${eventsPastOpen} events after opening, after a crash and after passivation`, async () => {
      const first = await boot();
      const id = `ctr_r${eventsPastOpen}`;
      await first.system.ask(Counter, id, 'open', {}, { org: ORG });
      for (let i = 0; i < eventsPastOpen; i++) await first.system.ask(Counter, id, 'add', { n: i * 7 + 1 }, { org: ORG, dedupeId: `d${i}` });
      const live = await first.system.state<CounterState>(Counter, id, ORG);

      const second = await crashAndRestart(first);
      expect(await second.system.state(Counter, id, ORG)).toEqual(live);
      // the rebuilt actor remembers dedupe ids from before the snapshot, too
      if (eventsPastOpen > 0) {
        await second.system.ask(Counter, id, 'add', { n: 1 }, { org: ORG, dedupeId: 'd0' });
        expect(await second.system.state(Counter, id, ORG)).toEqual(live);
      }

      await first.clock.advance(HOUR);
      expect(await second.system.passivateIdle(0)).toBeGreaterThan(0);
      expect(second.system.activeCount).toBe(0);
      expect(await second.system.state(Counter, id, ORG)).toEqual(live);
      await second.system.ask(Counter, id, 'add', { n: 1000 }, { org: ORG });
      const third = await crashAndRestart(second);
      expect(((await third.system.state(Counter, id, ORG)) as CounterState).total).toBe(live.total + 1000);
    });
  }

  it('a snapshot of another schema version is ignored and the journal replayed in full', async () => {
    const first = await boot();
    await first.system.ask(Counter, 'ctr_s', 'open', {}, { org: ORG });
    for (let i = 0; i < 7; i++) await first.system.ask(Counter, 'ctr_s', 'add', { n: 2 }, { org: ORG });
    await first.system.stop();
    systems.splice(systems.indexOf(first.system), 1);
    const Counter2 = { ...Counter, schema: 2 };
    const second = await boot({ clock: first.clock, stores: first.stores, kinds: [Counter2] });
    expect(((await second.system.state(Counter2, 'ctr_s', ORG)) as CounterState).total).toBe(14);
  });
});

describe('reminders: durable timers (DESIGN "Reminders"; STYLE "Time is injected")', () => {
  it('a reminder due at T+20 h fires once when the manual clock passes it, not before', async () => {
    const { system, clock } = await boot();
    await system.ask(Counter, 'ctr_t', 'open', {}, { org: ORG });
    await system.ask(Counter, 'ctr_t', 'arm', { dueAt: clock.now() + 20 * HOUR, label: 'wake' }, { org: ORG });
    await clock.advance(20 * HOUR - 1);
    await system.settle();
    expect(((await system.get(Counter, 'ctr_t', ORG)) as { rings: string[] }).rings).toEqual([]);
    await clock.advance(1);
    await system.settle();
    await clock.advance(48 * HOUR);
    await system.settle();
    expect(((await system.get(Counter, 'ctr_t', ORG)) as { rings: string[] }).rings).toEqual(['wake']);
  });

  it('a reminder fires once across a restart, at the manual clock of the new system', async () => {
    const first = await boot();
    await first.system.ask(Counter, 'ctr_tr', 'open', {}, { org: ORG });
    await first.system.ask(Counter, 'ctr_tr', 'arm', { dueAt: first.clock.now() + 20 * HOUR, label: 'after-restart' }, { org: ORG });
    await first.system.stop();
    systems.splice(systems.indexOf(first.system), 1);
    const second = await boot({ clock: first.clock, stores: first.stores });
    await second.clock.advance(21 * HOUR);
    await second.system.settle();
    await second.clock.advance(21 * HOUR);
    await second.system.settle();
    expect(((await second.system.get(Counter, 'ctr_tr', ORG)) as { rings: string[] }).rings).toEqual(['after-restart']);
  });

  it('a fire repeated after a crash between applying and completing has no second effect', async () => {
    const { system, clock, stores } = await boot();
    await system.ask(Counter, 'ctr_tc', 'open', {}, { org: ORG });
    await system.ask(Counter, 'ctr_tc', 'arm', { dueAt: clock.now() + HOUR, label: 'once' }, { org: ORG });
    const [r] = await stores.reminders.due(clock.now() + HOUR, 10);
    // the command the scheduler sends, applied twice as if the completion was lost in a crash
    for (let i = 0; i < 2; i++) await system.ask(Counter, 'ctr_tc', 'ring', null, { org: ORG, dedupeId: `rmd:${r.generation}`, lane: 'system' });
    await system.ask(Counter, 'ctr_tc', 'arm', { dueAt: clock.now() + HOUR, label: 'twice' }, { org: ORG });
    await system.ask(Counter, 'ctr_tc', 'ring', null, { org: ORG, dedupeId: `rmd:${r.generation}`, lane: 'system' });
    expect(((await system.get(Counter, 'ctr_tc', ORG)) as { rings: string[] }).rings).toEqual(['once']);
  });

  it('a cancelled reminder never fires, and a replaced one fires only at its new time', async () => {
    const { system, clock } = await boot();
    await system.ask(Counter, 'ctr_x', 'open', {}, { org: ORG });
    await system.ask(Counter, 'ctr_x', 'arm', { dueAt: clock.now() + HOUR, label: 'cancelled' }, { org: ORG });
    await system.ask(Counter, 'ctr_x', 'disarm', {}, { org: ORG });
    await system.ask(Counter, 'ctr_y', 'open', {}, { org: ORG });
    await system.ask(Counter, 'ctr_y', 'arm', { dueAt: clock.now() + HOUR, label: 'first' }, { org: ORG });
    await system.ask(Counter, 'ctr_y', 'arm', { dueAt: clock.now() + 3 * HOUR, label: 'replaced' }, { org: ORG });
    await clock.advance(2 * HOUR);
    await system.settle();
    expect(((await system.get(Counter, 'ctr_x', ORG)) as { rings: string[] }).rings).toEqual([]);
    expect(((await system.get(Counter, 'ctr_y', ORG)) as { rings: string[] }).rings).toEqual([]);
    await clock.advance(2 * HOUR);
    await system.settle();
    expect(((await system.get(Counter, 'ctr_x', ORG)) as { rings: string[] }).rings).toEqual([]);
    expect(((await system.get(Counter, 'ctr_y', ORG)) as { rings: string[] }).rings).toEqual(['replaced']);
  });

  it('reminders another node holds do not hold back later due ones: the pass pages past them (DESIGN "Reminders")', async () => {
    const { system, clock, stores } = await boot({ limits: { reminderBatch: 2 } });
    for (const [id, m] of [['ctr_ha', 0], ['ctr_hb', 1], ['ctr_hc', 2]] as const) {
      await system.ask(Counter, id, 'open', {}, { org: ORG });
      await system.ask(Counter, id, 'arm', { dueAt: clock.now() + HOUR + m, label: id }, { org: ORG });
    }
    // the two earliest are claimed by another node (one that died holding them, say)
    const held = await stores.reminders.due(clock.now() + HOUR + 1, 2);
    for (const r of held) expect(await stores.reminders.claim(r, 2 * HOUR)).toBe(true);
    await clock.advance(HOUR + 10);
    await system.settle();
    const rings = async (id: string) => ((await system.get(Counter, id, ORG)) as { rings: string[] }).rings;
    expect([await rings('ctr_ha'), await rings('ctr_hb'), await rings('ctr_hc')]).toEqual([[], [], ['ctr_hc']]);
    // once those claims lapse, this node fires them
    await clock.advance(2 * HOUR);
    await system.settle();
    expect([await rings('ctr_ha'), await rings('ctr_hb')]).toEqual([['ctr_ha'], ['ctr_hb']]);
  });

  it('reminders of several actors fire in due order as the clock passes them', async () => {
    const { system, clock } = await boot();
    const order: string[] = [];
    system.onCommit((c) => c.events.forEach((e) => e.type === 'counter.rang' && order.push((e.data as { label: string }).label)));
    for (const [id, h] of [['ctr_3', 3], ['ctr_1', 1], ['ctr_2', 2]] as const) {
      await system.ask(Counter, id, 'open', {}, { org: ORG });
      await system.ask(Counter, id, 'arm', { dueAt: clock.now() + h * HOUR, label: id }, { org: ORG });
    }
    await clock.advance(5 * HOUR);
    await system.settle();
    expect(order).toEqual(['ctr_1', 'ctr_2', 'ctr_3']);
  });
});

describe('effects after a takeover (runtime/activation.ts header; DESIGN "Sharding")', () => {
  /**
   * The journal as a node killed between an append and its effects leaves it: the events of
   * ctr_dead (opened, then armed an hour ahead, then closed) are durable; no list membership and
   * no reminder was written. `at` is when they were committed.
   */
  async function diedAfterAppend(stores: Stores, clock: ManualClock, id: string, at: number): Promise<void> {
    const ev = (version: number, data: CounterEvent): StoredEvent => ({ version, id: `evt_${id}_${version}`, type: data.type, data, at, org: ORG });
    await stores.journal.append(`${Counter.kind}.${id}`, 0, [ev(1, { type: 'counter.opened' }), ev(2, { type: 'counter.armed', dueAt: clock.now() + HOUR, label: 'lost' }), ev(3, { type: 'counter.closed' })]);
  }

  /** A placement serving every actor here, which took every shard over from a lapsed lease at `since` (or never). */
  const placement = (since: number | undefined) => ({
    isLocal: () => true,
    forward: async () => {
      throw new Error('every actor is local');
    },
    recoverSince: () => since,
  });

  const listed = async (stores: Stores, list: string) => (await stores.indexes.page(`${ORG}/${Counter.kind}/${list}`, { limit: 10, order: 'asc' })).ids;

  it('an actor whose last events came after the takeover gets its lost timer and list memberships back on activation, and the timer fires', async () => {
    const { system, clock, stores } = await boot();
    await diedAfterAppend(stores, clock, 'ctr_dead', clock.now());
    system.setPlacement(placement(clock.now() - 1000));
    expect(await stores.reminders.get(`${Counter.kind}.ctr_dead.alarm`)).toBeUndefined();
    expect((await system.get(Counter, 'ctr_dead', ORG)) as { status: string }).toMatchObject({ status: 'closed' });
    expect(await stores.reminders.get(`${Counter.kind}.ctr_dead.alarm`)).toMatchObject({ dueAt: clock.now() + HOUR, command: 'ring' });
    expect(await listed(stores, 'all')).toEqual(['ctr_dead']);
    expect(await listed(stores, 'status:closed')).toEqual(['ctr_dead']);
    expect(await listed(stores, 'status:open')).toEqual([]);
    await clock.advance(2 * HOUR);
    await system.settle();
    expect(((await system.get(Counter, 'ctr_dead', ORG)) as { rings: string[] }).rings).toEqual(['lost']);
  });

  it('a timer still held as the state wishes it is left alone (its generation, and so its claim, stand)', async () => {
    const { system, clock, stores } = await boot();
    await system.ask(Counter, 'ctr_kept', 'open', {}, { org: ORG });
    await system.ask(Counter, 'ctr_kept', 'arm', { dueAt: clock.now() + HOUR, label: 'kept' }, { org: ORG });
    const held = await stores.reminders.get(`${Counter.kind}.ctr_kept.alarm`);
    const after = await crashAndRestart({ system, clock, stores });
    after.system.setPlacement(placement(clock.now() - 1000));
    await after.system.get(Counter, 'ctr_kept', ORG);
    expect(await stores.reminders.get(`${Counter.kind}.ctr_kept.alarm`)).toEqual(held);
  });

  it('nothing is written again for events before the takeover window, nor on a shard that was handed over (no recoverSince)', async () => {
    const { system, clock, stores } = await boot();
    await diedAfterAppend(stores, clock, 'ctr_old', clock.now() - 10_000);
    await diedAfterAppend(stores, clock, 'ctr_handed', clock.now());
    system.setPlacement(placement(clock.now() - 1000));
    await system.get(Counter, 'ctr_old', ORG);
    system.setPlacement(placement(undefined));
    await system.get(Counter, 'ctr_handed', ORG);
    expect(await stores.reminders.get(`${Counter.kind}.ctr_old.alarm`)).toBeUndefined();
    expect(await stores.reminders.get(`${Counter.kind}.ctr_handed.alarm`)).toBeUndefined();
    expect(await listed(stores, 'all')).toEqual([]);
  });
});

describe('reactions: at least once, applied once (DESIGN "Reactions")', () => {
  let failuresLeft = 0;
  interface TallyState { org: string; seen: string[] }
  const Tally = defineActor({
    kind: 'test_tally',
    prefix: 'tly_',
    creates: ['count'],
    initial: (_id: string, org: string): TallyState => ({ org, seen: [] }),
    decide: {
      count: (_s: TallyState, cmd: { source: string; n: number }) => {
        if (failuresLeft > 0) {
          failuresLeft--;
          throw new Error('target is down');
        }
        return [{ type: 'tally.counted' as const, source: cmd.source, n: cmd.n }];
      },
    },
    evolve: (s: TallyState, e: { type: 'tally.counted'; source: string; n: number }) => ({ ...s, seen: [...s.seen, `${e.source}:${e.n}`] }),
    view: (s: TallyState) => ({ seen: s.seen }),
    reactions: [
      {
        from: 'test_counter',
        events: ['counter.added'],
        command: 'count',
        target: (e, source) => ({ id: 'tly_main', payload: { source: source.id, n: (e.data as CounterEvent & { n: number }).n } }),
      },
    ],
  });

  it('a reaction whose target throws is retried, and its command applies once', async () => {
    const { system } = await boot({ kinds: [Counter, Tally], limits: { reactionBackoffMs: 1 } });
    failuresLeft = 3;
    await system.ask(Counter, 'ctr_r', 'open', {}, { org: ORG });
    await system.ask(Counter, 'ctr_r', 'add', { n: 42 }, { org: ORG });
    await system.settle();
    expect(failuresLeft).toBe(0);
    expect(await system.get(Tally, 'tly_main', ORG)).toEqual({ seen: ['ctr_r:42'] });
  });

  it('a reaction whose target keeps faulting is parked after the last attempt, never dropped', async () => {
    const { system, stores } = await boot({ kinds: [Counter, Tally], limits: { reactionBackoffMs: 1, reactionBackoffMaxMs: 1, reactionMaxAttempts: 3 } });
    failuresLeft = 3;
    await system.ask(Counter, 'ctr_p', 'open', {}, { org: ORG });
    await system.ask(Counter, 'ctr_p', 'add', { n: 5 }, { org: ORG });
    await system.settle();
    expect(failuresLeft).toBe(0);
    const [event] = (await stores.journal.read('test_counter.ctr_p', 1)).filter((e) => e.type === 'counter.added');
    expect(await stores.kv.get(`runtime:reactions:dead:rx:test_tally:count:${event.id}`)).toMatchObject({ kind: 'test_tally', id: 'tly_main', command: 'count', org: ORG });
  });

  it('after a restart the feed is read again from the kept cursor and nothing applies twice', async () => {
    const first = await boot({ kinds: [Counter, Tally] });
    failuresLeft = 0;
    await first.system.ask(Counter, 'ctr_rr', 'open', {}, { org: ORG });
    for (const n of [1, 2, 3]) await first.system.ask(Counter, 'ctr_rr', 'add', { n }, { org: ORG });
    await first.system.settle();
    // lose the cursor, as a crash before it was written would: every reaction is delivered again
    await first.stores.kv.delete('runtime:reactions:cursor');
    const second = await crashAndRestart(first, [Counter, Tally]);
    await second.system.ask(Counter, 'ctr_rr', 'add', { n: 4 }, { org: ORG });
    await second.system.settle();
    expect(await second.system.get(Tally, 'tly_main', ORG)).toEqual({ seen: ['ctr_rr:1', 'ctr_rr:2', 'ctr_rr:3', 'ctr_rr:4'] });
  });
  it('a feed that cannot be read is read again later; nothing is lost and nothing crashes', async () => {
    const { system, stores } = await boot({ kinds: [Counter, Tally], limits: { feedRetryMs: 1 } });
    failuresLeft = 0;
    const readFeed = stores.journal.readFeed.bind(stores.journal);
    let faults = 1;
    stores.journal.readFeed = async (after, limit) => {
      if (faults-- > 0) throw new Error('journal unreachable');
      return readFeed(after, limit);
    };
    await system.ask(Counter, 'ctr_rf', 'open', {}, { org: ORG });
    await system.ask(Counter, 'ctr_rf', 'add', { n: 7 }, { org: ORG });
    await system.settle();
    expect(faults).toBeLessThan(0);
    expect(await system.get(Tally, 'tly_main', ORG)).toEqual({ seen: ['ctr_rf:7'] });
  });

  it('a stop while a reaction is still failing leaves its event to be read again after the restart', async () => {
    const first = await boot({ kinds: [Counter, Tally], limits: { reactionBackoffMs: 1, reactionBackoffMaxMs: 1, reactionMaxAttempts: 1_000_000 } });
    failuresLeft = Number.MAX_SAFE_INTEGER; // the target keeps failing
    await first.system.ask(Counter, 'ctr_st', 'open', {}, { org: ORG });
    await first.system.ask(Counter, 'ctr_st', 'add', { n: 9 }, { org: ORG });
    await first.system.stop();
    systems.splice(systems.indexOf(first.system), 1);
    failuresLeft = 0;
    const second = await boot({ clock: first.clock, stores: first.stores, kinds: [Counter, Tally] });
    await second.system.settle();
    expect(await second.system.get(Tally, 'tly_main', ORG)).toEqual({ seen: ['ctr_st:9'] });
  });
});

describe('lists and ephemeral kinds', () => {
  it('lists are per organisation, ordered, and follow status changes in the commit path', async () => {
    const { system, clock } = await boot();
    for (const id of ['ctr_l1', 'ctr_l2', 'ctr_l3']) {
      await system.ask(Counter, id, 'open', {}, { org: ORG });
      await clock.advance(1000);
    }
    await system.ask(Counter, 'ctr_lx', 'open', {}, { org: OTHER });
    await system.ask(Counter, 'ctr_l2', 'close', {}, { org: ORG });
    const ids = (p: { data: unknown[] }) => p.data.map((v) => (v as { id: string }).id);
    expect(ids(await system.list(Counter, ORG, 'all', { limit: 10, order: 'desc' }))).toEqual(['ctr_l3', 'ctr_l2', 'ctr_l1']);
    expect(ids(await system.list(Counter, ORG, 'status:open', { limit: 10, order: 'asc' }))).toEqual(['ctr_l1', 'ctr_l3']);
    expect(ids(await system.list(Counter, ORG, 'status:closed', { limit: 10, order: 'asc' }))).toEqual(['ctr_l2']);
    const page1 = await system.list(Counter, ORG, 'all', { limit: 2, order: 'asc' });
    expect([ids(page1), page1.has_more]).toEqual([['ctr_l1', 'ctr_l2'], true]);
    expect(ids(await system.list(Counter, ORG, 'all', { limit: 2, order: 'asc', after: 'ctr_l2' }))).toEqual(['ctr_l3']);
    // a starting_after of another organisation gives an empty page (spec 4 preamble)
    expect(ids(await system.list(Counter, ORG, 'all', { limit: 2, order: 'asc', after: 'ctr_lx' }))).toEqual([]);
  });

  it('an ephemeral kind keeps no journal and no snapshot', async () => {
    const Soft = { ...Counter, kind: 'test_soft', ephemeral: true };
    const { system, stores } = await boot({ kinds: [Counter, Soft] });
    await system.ask(Soft, 'ctr_e', 'open', {}, { org: ORG });
    for (let i = 0; i < 12; i++) await system.ask(Soft, 'ctr_e', 'add', { n: 1 }, { org: ORG });
    expect(((await system.get(Soft, 'ctr_e', ORG)) as { total: number }).total).toBe(12);
    expect(await stores.journal.read('test_soft.ctr_e', 0)).toEqual([]);
    expect(await stores.snapshots.load('test_soft.ctr_e')).toBeUndefined();
  });
});

describe('snapshot codec (STYLE "Snapshots are a versioned codec")', () => {
  it('evolve of every example event round-trips through the snapshot codec', () => {
    const events: CounterEvent[] = [
      { type: 'counter.opened' },
      { type: 'counter.added', n: 3 },
      { type: 'counter.added', n: -8 },
      { type: 'counter.armed', dueAt: 1_800_000_000_000, label: 'a' },
      { type: 'counter.rang', label: 'a' },
      { type: 'counter.armed', dueAt: 1_800_000_000_001, label: 'b' },
      { type: 'counter.disarmed' },
      { type: 'counter.closed' },
    ];
    let s = Counter.initial('ctr_codec', ORG);
    events.forEach((e, i) => {
      s = Counter.evolve(s, e, { at: 1_700_000_000_000 + i, version: i + 1, eventId: `evt_${i}`, org: ORG });
      expect(roundTrip(s)).toEqual(s);
    });
    expect(typeof roundTrip(s).bigSum).toBe('bigint');
  });
});
