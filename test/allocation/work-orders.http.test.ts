/**
 * Work orders, explained ranking and cascading offers (spec 2.8, 3 "Work orders, offers,
 * assignments, exceptions", 4.7, 6 supply gaps and cascade removal, 7 engagement_not_current),
 * through a real socket, with workers made eligible through the identity and engagements APIs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CASCADE_REMOVAL, ACTIVE_WEIGHTS } from '../../actors/allocation/index.ts';
import { startHarness, type Harness } from '../../support/http.ts';
import { post as railPost } from '../engagements/support.ts';
import { dispatchKit } from './dispatch-support.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

let kit: ReturnType<typeof dispatchKit>;
beforeAll(() => {
  kit = dispatchKit(h);
});
const post = (path: string, body?: unknown) => kit.post(path, body);
const ik = (what: string) => kit.ik(what);
const centre = () => kit.centre();
const worker = (...a: Parameters<ReturnType<typeof dispatchKit>['worker']>) => kit.worker(...a);
const window = (hours?: number) => kit.window(hours);
const open = (...a: Parameters<ReturnType<typeof dispatchKit>['open']>) => kit.open(...a);
const offers = (wo: string) => kit.offers(wo);

// Each scenario builds its workers through the identity and engagements APIs: many requests, so generous time.
describe('ranking (spec 2.8, 4.7)', { timeout: 120_000 }, () => {
  it('each gate excludes and says why; ranking order and factor scores follow the weight set', async () => {
    const at = centre();
    const near = await worker(at, 200);
    const far = await worker(at, 2000);
    const noPassport = await worker(at, 300, { passport: false });
    const noEngagement = await worker(at, 400, { engagement: false });
    const wo = await open(at);
    expect(wo).toMatchObject({ object: 'work_order', status: 'open', headcount: 1, weight_set: { version: ACTIVE_WEIGHTS.set.version, content_hash: ACTIVE_WEIGHTS.hash } });
    const r = (await h.request('GET', `/v1/allocation/work_orders/${wo.id}/ranking`)).body;
    expect(r.candidates.map((c: { worker_id: string }) => c.worker_id)).toEqual([near.worker, far.worker]);
    const excluded = Object.fromEntries(r.excluded.map((e: { worker_id: string; excluded_because: string }) => [e.worker_id, e.excluded_because]));
    expect(excluded[noPassport.worker]).toBe('passport_not_live');
    expect(excluded[noEngagement.worker]).toBe('engagement_not_current');
    const w = ACTIVE_WEIGHTS.set.factors;
    for (const c of r.candidates) {
      expect(c.factors.distance.value).toBeCloseTo(1 - c.distance_metres / 5000, 5);
      let sum = 0;
      for (const [f, x] of Object.entries(c.factors) as [keyof typeof w, { value: number; weight: number; contribution: number }][]) {
        expect(x.weight).toBe(w[f]);
        expect(x.contribution).toBeCloseTo(x.value * w[f], 5);
        sum += x.contribution;
      }
      expect(c.score).toBeCloseTo(sum, 5);
    }
    expect(r.candidates[0].score).toBeGreaterThan(r.candidates[1].score);
  });
});

describe('cascading offers (spec 3, 4.7)', { timeout: 120_000 }, () => {
  it('the cascade moves on on decline and on expiry (manual clock)', async () => {
    const at = centre();
    const a = await worker(at, 100);
    const b = await worker(at, 500);
    const c = await worker(at, 900);
    const wo = await open(at, { offer_timeout_seconds: 60 });
    let list = await offers(wo.id);
    expect(list.map((o) => [o.worker_id, o.status])).toEqual([[a.worker, 'pending']]);
    const d = await post(`/v1/allocation/offers/${list[0]!.id}/decline`, { reason: 'too far' });
    expect(d.body).toMatchObject({ object: 'offer', status: 'declined', reason: 'too far' });
    list = await offers(wo.id);
    expect(list[0]).toMatchObject({ worker_id: b.worker, status: 'pending' });
    await h.clock.advance(60_000);
    await h.platform.system.settle();
    list = await offers(wo.id);
    expect(list.map((o) => [o.worker_id, o.status])).toEqual([[c.worker, 'pending'], [b.worker, 'expired'], [a.worker, 'declined']]);
    expect((await post(`/v1/allocation/offers/${list[2]!.id}/accept`)).status).toBe(409);
  });

  it('accepting fills the headcount and withdraws the rest; nothing is overfilled', async () => {
    const at = centre();
    await worker(at, 100);
    await worker(at, 200);
    await worker(at, 300);
    const wo = await open(at, { cascade_width: 3 });
    const list = await offers(wo.id);
    expect(list.filter((o) => o.status === 'pending')).toHaveLength(3);
    // three pending for one place: the first to accept takes it
    const acc = await post(`/v1/allocation/offers/${list[1]!.id}/accept`);
    expect(acc.status, acc.text).toBe(200);
    expect(acc.body.status).toBe('accepted');
    const after = await offers(wo.id);
    expect(after.filter((o) => o.status === 'withdrawn').map((o) => o.reason)).toEqual(['headcount_filled', 'headcount_filled']);
    const read = (await h.request('GET', `/v1/allocation/work_orders/${wo.id}`)).body;
    expect(read).toMatchObject({ status: 'filled', accepted_count: 1, closed_reason: 'headcount_filled', cascade: { accepted: 1, withdrawn: 2, pending: 0 } });
    expect((await post(`/v1/allocation/offers/${list[0]!.id}/accept`)).status).toBe(409);
  });

  it('acceptance is refused with 422 engagement_not_current once standing is not current; the cascade removal then withdraws the offer, and with nobody left who declined, the gap is no_eligible_supply', async () => {
    const at = centre();
    const a = await worker(at, 100);
    const wo = await open(at);
    const [offer] = await offers(wo.id);
    const removal = h.platform.services.require(CASCADE_REMOVAL);
    await removal.stop();
    const lapse = await railPost(h, `/v1/rail/engagements/${a.engagementId}/lapse`, { reason: 'contract suspended' });
    expect(lapse.body.status, lapse.text).toBe('lapsed');
    const r = await post(`/v1/allocation/offers/${offer!.id}/accept`);
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe('engagement_not_current');
    removal.start();
    await h.platform.system.settle();
    expect((await h.request('GET', `/v1/allocation/offers/${offer!.id}`)).body).toMatchObject({ status: 'withdrawn', reason: 'legal_standing_lapsed' });
    // the only offer was withdrawn, never declined: the eligible supply ran out (spec 6)
    expect((await h.request('GET', `/v1/allocation/work_orders/${wo.id}`)).body).toMatchObject({ status: 'unfilled', supply_gap: { reason: 'no_eligible_supply' } });
  });
});

describe('supply gaps (spec 6)', { timeout: 120_000 }, () => {
  it('a work order nobody eligible can take closes unfilled with no_eligible_supply and emits a supply gap', async () => {
    const at = centre();
    await worker(at, 100, { engagement: false });
    const wo = await open(at);
    expect(wo).toMatchObject({ status: 'unfilled', closed_reason: 'no_eligible_supply', supply_gap: { reason: 'no_eligible_supply' } });
    await h.platform.system.settle();
    const events = (await h.request('GET', '/v1/allocation/events?limit=100')).body.data as { type: string; data: { id: string } }[];
    expect(events.some((e) => e.type === 'match.supply_gap.declared' && e.data.id === wo.id)).toBe(true);
  });

  it('a work order whose every offer was declined closes unfilled with every_offer_declined_or_expired', async () => {
    const at = centre();
    await worker(at, 100);
    const wo = await open(at);
    const [offer] = await offers(wo.id);
    expect((await post(`/v1/allocation/offers/${offer!.id}/decline`, { reason: 'too far' })).status).toBe(200);
    await h.platform.system.settle();
    expect((await h.request('GET', `/v1/allocation/work_orders/${wo.id}`)).body).toMatchObject({ status: 'unfilled', supply_gap: { reason: 'every_offer_declined_or_expired' } });
  });

  it('a work order whose only offer was withdrawn never closes as every_offer_declined_or_expired: with nobody left, its gap is no_eligible_supply (spec 6)', async () => {
    const at = centre();
    const a = await worker(at, 100);
    const wo = await open(at);
    expect((await offers(wo.id)).map((o) => o.worker_id)).toEqual([a.worker]);
    await h.request('POST', '/v1/identity/blocklist_entries', { body: { subject_ref: a.worker, reason: 'fraud' }, idempotencyKey: ik('bl') });
    await h.platform.system.settle();
    expect((await offers(wo.id)).map((o) => [o.status, o.reason])).toEqual([['withdrawn', 'identity_revoked']]);
    expect((await h.request('GET', `/v1/allocation/work_orders/${wo.id}`)).body).toMatchObject({ status: 'unfilled', closed_reason: 'no_eligible_supply', supply_gap: { reason: 'no_eligible_supply' }, cascade: { withdrawn: 1, declined: 0, expired: 0 } });
  });

  it('the window passing closes the work order unfilled (window_passed) by the clock', async () => {
    const at = centre();
    await worker(at, 100);
    const wo = await open(at, { window: window(1), offer_timeout_seconds: 7200 });
    await h.clock.advance(3_600_000);
    await h.platform.system.settle();
    const read = (await h.request('GET', `/v1/allocation/work_orders/${wo.id}`)).body;
    expect(read).toMatchObject({ status: 'unfilled', closed_reason: 'window_passed' });
    expect((await offers(wo.id))[0]).toMatchObject({ status: 'withdrawn', reason: 'work_order_closed' });
  });
});

describe('cascade removal (spec 6, 8)', { timeout: 120_000 }, () => {
  it('a revoked passport withdraws the worker\u2019s pending offers in every live work order, and the cascade offers the next', async () => {
    const at = centre();
    const a = await worker(at, 100);
    const b = await worker(at, 800);
    const wo1 = await open(at);
    const wo2 = await open(at);
    for (const wo of [wo1, wo2]) expect((await offers(wo.id))[0]!.worker_id).toBe(a.worker);
    await h.request('POST', '/v1/identity/blocklist_entries', { body: { subject_ref: a.worker, reason: 'fraud' }, idempotencyKey: ik('bl') });
    await h.platform.system.settle();
    for (const wo of [wo1, wo2]) {
      const list = await offers(wo.id);
      expect(list.map((o) => [o.worker_id, o.status, o.reason])).toEqual([[b.worker, 'pending', null], [a.worker, 'withdrawn', 'identity_revoked']]);
    }
  });

  it('bad input is a 400 naming the field; an unknown work order or offer is 404', async () => {
    const r = await post('/v1/allocation/work_orders', { location: { latitude: 91, longitude: 0, radius_metres: -1 }, window: { starts_at: 'x', ends_at: 'y' }, headcount: 0 });
    expect(r.status).toBe(400);
    const past = await post('/v1/allocation/work_orders', { location: { latitude: 6.5, longitude: 3.3, radius_metres: 100 }, window: { starts_at: '2020-01-01T00:00:00Z', ends_at: '2020-01-02T00:00:00Z' }, headcount: 1 });
    expect(past.status).toBe(400);
    expect((await h.request('GET', '/v1/allocation/work_orders/match_work_order_0000000000000000000000')).status).toBe(404);
    expect((await h.request('GET', '/v1/allocation/offers/match_offer_00000000000000000000001')).status).toBe(404);
  });
});
