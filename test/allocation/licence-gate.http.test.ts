/**
 * The licence gate and its lapse (spec 2.5: "a statutory licence required by law is a gate, its
 * absence blocks and no other evidence substitutes"; spec 6: licence.expired, which allocation
 * reacts to), in the ranking and in cascade removal.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removalOf } from '../../actors/allocation/work-orders/cascade-removal.ts';
import { WorkOrder } from '../../actors/allocation/index.ts';
import { LICENCE_EXPIRED, LICENCE_KIND } from '../../actors/credentials/index.ts';
import { startHarness, type Harness } from '../../support/http.ts';
import { dispatchKit } from './dispatch-support.ts';

let h: Harness;
let kit: ReturnType<typeof dispatchKit>;
beforeAll(async () => {
  h = await startHarness();
  kit = dispatchKit(h);
});
afterAll(async () => {
  await h?.close();
});

describe('licences gate allocation (spec 2.5, 6)', { timeout: 120_000 }, () => {
  it('an electrician\u2019s work order (ng-7412) excludes a worker without the NEMSA licence, naming the gate; no other evidence passes it', async () => {
    const p = kit.centre();
    const w = await kit.worker(p, 150);
    const wo = await kit.open(p, { occupation_code: 'ng-7412' });
    expect(wo).toMatchObject({ licence_required: true, status: 'unfilled', supply_gap: { reason: 'no_eligible_supply' } });
    const r = (await h.request('GET', `/v1/allocation/work_orders/${wo.id}/ranking`)).body;
    expect(r.candidates).toEqual([]);
    expect(r.excluded.find((e: { worker_id: string }) => e.worker_id === w.worker)).toMatchObject({ excluded_because: 'licence_missing' });
    const unknown = await kit.post('/v1/allocation/work_orders', { location: { ...p, radius_metres: 100 }, window: kit.window(), headcount: 1, occupation_code: 'ng-0000' });
    expect(unknown.status).toBe(400);
  });

  it('licence.expired names the worker and its occupation; a work order withdraws the worker only when it needs that licence', async () => {
    const removal = removalOf({ position: 1, stream: `${LICENCE_KIND}.lic_1`, event: { version: 2, id: 'evt_x', type: LICENCE_EXPIRED, data: { subject_ref: 'w1', occupation_code: 'ng-7412' }, at: 0, org: 'org_a' } });
    expect(removal).toEqual({ org: 'org_a', worker_id: 'w1', reason: 'licence_lapsed', occupation_code: 'ng-7412', event_id: 'evt_x' });
    const base = { ...WorkOrder.initial('match_work_order_aaaaaaaaaaaaaaaaaaaaaa', 'org_a'), status: 'open' as const, occupation_code: 'ng-7412', licence_required: true, offers: [{ id: 'match_offer_aaaaaaaaaaaaaaaaaaaaaa0', worker_id: 'w1', rank: 1, score: 1, status: 'pending' as const, offered_at: 0, expires_at: 10, decided_at: null, reason: null }] };
    const ctx = { now: 1, id: base.id, org: 'org_a', version: 3, newId: (p: string) => `${p}x` };
    expect(WorkOrder.decide.withdraw_worker(base, { worker_id: 'w1', reason: 'licence_lapsed', occupation_code: 'ng-7412' }, ctx)[0]).toMatchObject({ type: 'offer.withdrawn', reason: 'licence_lapsed' });
    expect(WorkOrder.decide.withdraw_worker(base, { worker_id: 'w1', reason: 'licence_lapsed', occupation_code: 'ng-5151' }, ctx)).toEqual([]);
    expect(WorkOrder.decide.withdraw_worker({ ...base, licence_required: false }, { worker_id: 'w1', reason: 'licence_lapsed', occupation_code: 'ng-7412' }, ctx)).toEqual([]);
  });
});
