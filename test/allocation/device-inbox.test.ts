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
});
