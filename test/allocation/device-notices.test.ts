/**
 * The notice a work order's event makes for its worker (docs/gaps.md#allocation "Offers to the
 * device"): the offer as the device reads it and the work order's facts, derived from the event and
 * the record alone, so the same event gives the same notice wherever and whenever it is derived.
 */
import { describe, expect, it } from 'vitest';
import { workOrderNotice } from '../../actors/allocation/devices/notices.ts';
import { WorkOrder, type WorkOrderState } from '../../actors/allocation/work-orders/work-order.ts';
import type { StoredEvent } from '../../stores/index.ts';

const org = 'org_notices';
const window = { starts_at: Date.UTC(2026, 10, 28, 9), ends_at: Date.UTC(2026, 10, 28, 17) };
const location = { latitude: 6.45, longitude: 3.39, radius_metres: 500 };

function state(id: string, occupation_code: string | null): WorkOrderState {
  return { ...WorkOrder.initial(id, org), window, occupation_code, location };
}

const made = (offer: string, worker: string): StoredEvent => ({
  version: 2, id: `evt_${offer}`, type: 'offer.made', at: Date.UTC(2026, 10, 28, 8), org,
  data: { type: 'offer.made', offer_id: offer, worker_id: worker, rank: 1, score: 0.75, expires_at: Date.UTC(2026, 10, 28, 8, 5) },
});

describe('device notices of work-order events (docs/gaps.md#allocation)', () => {
  it('each work order\'s notices name its own facts, even where records share their window and location objects', () => {
    const a = state('match_work_order_a', 'plumber');
    const b = state('match_work_order_b', 'plumber');
    const c = state('match_work_order_c', null);
    for (const [s, offer] of [[a, 'match_offer_a1'], [b, 'match_offer_b1'], [c, 'match_offer_c1'], [a, 'match_offer_a2']] as const) {
      const n = workOrderNotice(s, made(offer, 'w1'))!;
      expect(n.body.work_order).toEqual({ id: s.id, location: s.location, window: { starts_at: '2026-11-28T09:00:00.000Z', ends_at: '2026-11-28T17:00:00.000Z' }, occupation_code: s.occupation_code });
      expect(n.body.offer).toMatchObject({ id: offer, object: 'offer', work_order_id: s.id, worker_id: 'w1', status: 'pending', rank: 1, score: 0.75, expires_at: '2026-11-28T08:05:00.000Z', decided_at: null });
      expect(n).toMatchObject({ org, worker_id: 'w1', event_id: `evt_${offer}` });
    }
  });

  it('an event stored without its type in its data gives the same notice as one stored with it', () => {
    const s = state('match_work_order_d', null);
    const withType = made('match_offer_c1', 'w2');
    const { type: _type, ...data } = withType.data as { type: string };
    expect(workOrderNotice(s, { ...withType, data })).toEqual(workOrderNotice(s, withType));
  });
});
