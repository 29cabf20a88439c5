import { afterEach, describe, expect, it } from 'vitest';
import { WebhookEndpoint, type EndpointState, type EnqueueCommand } from '../../actors/delivery/endpoint.ts';
import { ManualClock, roundTrip } from '../../runtime/index.ts';
import { testStores } from '../../support/stores.ts';
import { FakeRun, call, startPlatform, startReceiver, type Receiver, type TestPlatform } from './support.ts';

const A = { org: 'org_Aaaaaaaaaaaaaaaaaaaaaa' };

let tp: TestPlatform | undefined;
let r: Receiver | undefined;
afterEach(async () => {
  await tp?.stop();
  await r?.close();
  tp = r = undefined;
});

const run = (id: string) => tp!.platform.system.ask(FakeRun, id, 'create' as never, {} as never, { org: A.org });

describe('where an endpoint starts receiving (spec 6 rule 5; endpoint.ts)', () => {
  it('an endpoint receives the events committed after it and none before, within one millisecond and while the event feed lags behind', async () => {
    const clock = new ManualClock();
    const stores = await testStores(clock);
    // The event feed reads nothing until released: it meets the earlier event only once the endpoint exists.
    let held: Promise<void> | undefined;
    let release = () => {};
    const readFeed = stores.journal.readFeed.bind(stores.journal);
    stores.journal.readFeed = async (after, limit) => {
      if (held) await held;
      return readFeed(after, limit);
    };
    tp = await startPlatform({ clock, stores });
    held = new Promise<void>((resolve) => (release = resolve));
    r = await startReceiver();
    await run('run_fake_before');
    const ep = await call(tp.platform, 'POST', '/v1/webhook_endpoints', A, { body: { url: r.url, event_types: ['run.created'] } });
    await run('run_fake_after');
    expect(clock.now()).toBe(new ManualClock().now()); // all three in one millisecond
    held = undefined;
    release();
    await tp.platform.system.settle();
    expect(r.received.map((x) => x.body.data.id)).toEqual(['run_fake_after']);
    const list = await call(tp.platform, 'GET', '/v1/webhook_deliveries', A, { query: { endpoint_id: ep.id } });
    expect(list.data.map((d: { sequence: number }) => d.sequence)).toEqual([1]);
  });

  const enqueue = (occurred_at_ms: number, position: number): EnqueueCommand => ({ event_id: `evt_${position}`, event_type: 'run.created', occurred_at_ms, livemode: false, body: '{}', position });
  const ctx = { now: 1000, id: 'webhook_endpoint_x', org: A.org, version: 1, newId: (p: string) => `${p}1` };
  const fold = (events: Parameters<typeof WebhookEndpoint.evolve>[1][]) =>
    events.reduce<EndpointState>((s, ev, i) => WebhookEndpoint.evolve(s, ev, { at: 1000, version: i + 1, eventId: `evt_e${i}`, org: A.org }), WebhookEndpoint.initial('webhook_endpoint_x', A.org));
  const created = { type: 'endpoint.created' as const, url: 'https://example.com/h', event_types: ['*'], livemode: false, secret: 'whsec_x', digest: 'sha256:x' };
  const assigned = (s: EndpointState, cmd: EnqueueCommand) => {
    const d = WebhookEndpoint.decide.enqueue(s, cmd, ctx as never);
    return (d as { events: unknown[] }).events.length === 1;
  };

  it.each([
    ['created by the feed, position not yet noted: nothing yet (the event came before it)', [{ ...created, by_feed: true as const }], enqueue(1000, 50), false],
    ['created at position 40: an event at 39 is earlier', [{ ...created, by_feed: true as const }, { type: 'endpoint.position_noted' as const, position: 40 }], enqueue(1000, 39), false],
    ['created at position 40: an event at 41 is later', [{ ...created, by_feed: true as const }, { type: 'endpoint.position_noted' as const, position: 40 }], enqueue(1000, 41), true],
    ['stored before positions were noted: an event of its millisecond is received', [created], enqueue(1000, 1), true],
    ['stored before positions were noted: an earlier millisecond is not', [created], enqueue(999, 1), false],
  ])('enqueue - %s', (_name, events, cmd, expected) => {
    expect(assigned(fold(events), cmd)).toBe(expected);
  });

  it('snapshot - where receiving starts survives a snapshot and restore; the restored endpoint decides as the live one', () => {
    const live = fold([{ ...created, by_feed: true }, { type: 'endpoint.position_noted', position: 40 }]);
    const restored = roundTrip(live);
    expect(restored).toEqual(live);
    for (const cmd of [enqueue(1000, 40), enqueue(1000, 41)]) expect(assigned(restored, cmd)).toBe(assigned(live, cmd));
  });

  it('note_position - taken once; a repeat (the feed read again after a crash) changes nothing', () => {
    const s = fold([{ ...created, by_feed: true }, { type: 'endpoint.position_noted', position: 40 }]);
    expect(WebhookEndpoint.decide.note_position(s, { position: 40 })).toEqual([]);
    expect(WebhookEndpoint.decide.note_position(fold([created]), { position: 7 })).toEqual([]);
    expect(WebhookEndpoint.decide.note_position(fold([{ ...created, by_feed: true }]), { position: -1 })).toEqual([]);
  });
});
