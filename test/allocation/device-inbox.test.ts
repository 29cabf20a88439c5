/**
 * A worker's device inbox (docs/gaps.md#allocation "Offers to the device"): notices numbered by a
 * per-worker sequence from 1 with no gaps, each event recorded once, the last BACKLOG kept, and
 * the state restored from a snapshot and the journal equal to the live one (STYLE "Snapshots are a
 * versioned codec").
 */
import { describe, expect, it } from 'vitest';
import { DeviceInbox, inboxIdOf } from '../../actors/allocation/index.ts';
import { BACKLOG, type InboxState } from '../../actors/allocation/devices/device-inbox.ts';
import { ActorSystem, ManualClock } from '../../runtime/index.ts';
import { createMemoryStores } from '../../stores/index.ts';

const org = 'org_inbox';
const body = (n: number) => ({ type: 'offer.made' as const, occurred_at: new Date(Date.UTC(2026, 10, 28, 9, 0, n)).toISOString(), offer: undefined });

describe('device inbox (spec 4.7; docs/gaps.md#allocation)', () => {
  it('numbers notices 1, 2, 3 ... per worker, records an event once, keeps the last BACKLOG, and restores equal to the live one', async () => {
    const clock = new ManualClock();
    const stores = createMemoryStores({ now: () => clock.now() });
    const system = new ActorSystem({ stores, clock, kinds: [DeviceInbox], limits: { snapshotEvery: 7 } });
    await system.start();
    const id = inboxIdOf(org, 'w1');
    expect(inboxIdOf(org, 'w1')).toBe(id);
    expect(inboxIdOf('org_other', 'w1')).not.toBe(id); // a worker_id is the organisation's own reference
    const total = BACKLOG + 10;
    for (let n = 1; n <= total; n++) {
      await system.ask(DeviceInbox, id, 'record', { worker_id: 'w1', event_id: `evt_${n}`, body: body(n) }, { org, dedupeId: `notice:evt_${n}` });
      // the same event again, by the other path: recorded once
      await system.ask(DeviceInbox, id, 'record', { worker_id: 'w1', event_id: `evt_${n}`, body: body(n) }, { org });
    }
    await system.ask(DeviceInbox, id, 'acknowledge', { offer_id: 'match_offer_x', device: 'match_device_credential_a', worker_id: 'w1' }, { org });
    await system.ask(DeviceInbox, id, 'acknowledge', { offer_id: 'match_offer_x', device: 'match_device_credential_b', worker_id: 'w1' }, { org });
    const live = await system.state<InboxState>(DeviceInbox, id, org);
    expect(live.sequence).toBe(total);
    expect(live.notices.map((n) => n.sequence)).toEqual(Array.from({ length: BACKLOG }, (_, i) => total - BACKLOG + 1 + i));
    expect(live.notices.at(-1)).toMatchObject({ type: 'offer.made', sequence: total, worker_id: 'w1', event_id: `evt_${total}` });
    expect(live.acknowledged.map((a) => [a.offer_id, a.device])).toEqual([['match_offer_x', 'match_device_credential_a']]);
    await system.passivateIdle(0);
    expect(await system.state<InboxState>(DeviceInbox, id, org)).toEqual(live);
    await system.stop();
  });

  it('a recorded notice is the fields of its body, then sequence, worker_id and event_id, in that order, whatever the shape of the body', () => {
    const offer = { id: 'match_offer_1', object: 'offer' as const, livemode: false, mocked: false as const, work_order_id: 'match_work_order_1', worker_id: 'w1', status: 'pending' as const, rank: 1, score: 0.5, offered_at: null, expires_at: null, decided_at: null, reason: null };
    const work_order = { id: 'match_work_order_1', location: { latitude: 6.45, longitude: 3.39, radius_metres: 500 }, window: { starts_at: '2026-11-28T09:00:00.000Z', ends_at: '2026-11-28T17:00:00.000Z' }, occupation_code: null };
    const assignment = { id: 'match_assignment_1', object: 'assignment' as const, work_order_id: 'match_work_order_1', offer_id: 'match_offer_1', worker_id: 'w1', status: 'assigned' as const, location: work_order.location, reason: null };
    const bodies = [
      { type: 'offer.made' as const, occurred_at: '2026-11-28T08:00:00.000Z', offer, work_order },
      { type: 'assignment.changed' as const, occurred_at: '2026-11-28T08:00:01.000Z', assignment },
      // a shape neither of those: kept whole all the same
      { type: 'offer.made' as const, occurred_at: '2026-11-28T08:00:02.000Z', offer },
    ];
    const state: InboxState = { id: inboxIdOf(org, 'w1'), org, worker_id: 'w1', sequence: 41, notices: [], acknowledged: [{ offer_id: 'match_offer_0', at: 1, device: 'match_device_credential_a' }] };
    for (const b of bodies) {
      const [event] = DeviceInbox.decide.record(state, { worker_id: 'w1', event_id: 'evt_1', body: b }) as { type: string; notice: unknown }[];
      expect(JSON.stringify(event.notice)).toBe(JSON.stringify({ ...b, sequence: 42, worker_id: 'w1', event_id: 'evt_1' }));
      const after = DeviceInbox.evolve(state, event as never, { at: 2, version: 42, eventId: 'evt_1', org } as never);
      // the rest of the state is kept as it was
      expect(after).toEqual({ ...state, sequence: 42, notices: [event.notice] });
      expect(state.notices).toEqual([]);
    }
  });
});
