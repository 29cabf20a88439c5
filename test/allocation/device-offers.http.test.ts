/**
 * Offers to the worker's phone, live (spec 4.7: a device credential authenticates "their own offers
 * and assignment steps"; frames, sequence and resume are a gap, docs/gaps.md#allocation "Offers to
 * the device"), through real sockets: offers made, accepted, expired, withdrawn and accepted
 * elsewhere, and assignments changed or cancelled, reach the worker's subscribed devices in the
 * worker's sequence; a device that reconnects asks for what it missed; a device lists only its own.
 * Offer expiry runs on the manual clock.
 */
import { Packr, Unpackr } from 'msgpackr';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeviceInbox, deviceFeedOf, HEARTBEAT_SOCKET_PATH, inboxIdOf, WORK_ORDER_PREFIX, WorkOrder } from '../../actors/allocation/index.ts';
import { BACKLOG } from '../../actors/allocation/devices/device-inbox.ts';
import { newId } from '../../kernel/index.ts';
import { startHarness, type Harness } from '../../support/http.ts';
import type { TestSocket } from '../../support/ws.ts';
import { dispatchKit } from './dispatch-support.ts';
import { connect, deviceKey } from './support.ts';

let h: Harness;
let kit: ReturnType<typeof dispatchKit>;
beforeAll(async () => {
  h = await startHarness();
  kit = dispatchKit(h);
});
afterAll(async () => {
  await h?.close();
});

const packr = new Packr({ useRecords: false });
const unpackr = new Unpackr({ useRecords: false, mapsAsObjects: true });
/** A guard against a frame that never comes (a failure, not a time rule): the test says which. */
const FRAME_WAIT_MS = 10_000;

type Frame = Record<string, any>;

/** A worker's device on the socket: sends control frames and reads frames in arrival order. */
async function device(worker: string, o: { binary?: boolean } = {}) {
  const key = await deviceKey(h, worker);
  const s: TestSocket = await connect(h.url + HEARTBEAT_SOCKET_PATH, { 'service-api-key': key });
  const seen: Frame[] = [];
  const read = async (): Promise<Frame> => {
    const f = await s.next();
    expect(f.binary).toBe(Boolean(o.binary));
    const v = (f.binary ? unpackr.unpack(f.data) : JSON.parse(f.text)) as Frame;
    seen.push(v);
    return v;
  };
  /** Frames read and not yet taken: an answer and a pushed notice may come in either order. */
  const unread: Frame[] = [];
  /** The first frame that matches, of those not taken yet and then of those still to come. */
  async function until(what: string, match: (f: Frame) => boolean): Promise<Frame> {
    const held = unread.findIndex(match);
    if (held >= 0) return unread.splice(held, 1)[0]!;
    let timer: NodeJS.Timeout | undefined;
    const guard = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no ${what} frame; frames seen: ${JSON.stringify(seen.map((f) => f.type ?? f.error?.code))}`)), FRAME_WAIT_MS);
    });
    try {
      for (;;) {
        const f = await Promise.race([read(), guard]);
        if (match(f)) return f;
        unread.push(f);
      }
    } finally {
      clearTimeout(timer);
    }
  }
  const send = (frame: object) => s.send(o.binary ? packr.pack(frame) : JSON.stringify(frame));
  async function subscribe(after?: number): Promise<Frame> {
    send(after === undefined ? { type: 'subscribe' } : { type: 'subscribe', after_sequence: after });
    return until('subscribed', (f) => f.type === 'subscribed' || f.error !== undefined);
  }
  return { key, send, until, subscribe, seen, close: () => s.close(), type: (t: string, offer?: string) => until(t, (f) => f.type === t && (offer === undefined || f.offer?.id === offer)) };
}

describe('offers reach the worker\u2019s device (spec 4.7; docs/gaps.md#allocation)', { timeout: 120_000 }, () => {
  it('a device receives an offer frame within the offer\u2019s life and can accept it knowing only what the frame said (spec 3, 4.7)', async () => {
    const at = kit.centre();
    const a = await kit.worker(at, 100);
    const d = await device(a.worker);
    const sub = await d.subscribe();
    expect(sub).toMatchObject({ type: 'subscribed', worker_id: a.worker });
    const wo = await kit.open(at, { offer_timeout_seconds: 120 });
    const made = await d.type('offer.made');
    expect(made).toMatchObject({ sequence: sub.sequence + 1, worker_id: a.worker, offer: { object: 'offer', work_order_id: wo.id, worker_id: a.worker, status: 'pending' }, work_order: { id: wo.id, location: wo.location } });
    expect(Date.parse(made.offer.expires_at) - Date.parse(made.offer.offered_at)).toBe(120_000);
    expect(h.clock.now()).toBeLessThan(Date.parse(made.offer.expires_at)); // within the offer's life
    // Only what the frame said: its offer id, and the device's own credential.
    const r = await h.request('POST', `/v1/allocation/offers/${made.offer.id}/accept`, { key: d.key, idempotencyKey: kit.ik('acc') });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ id: made.offer.id, status: 'accepted' });
    expect(await d.type('offer.accepted', made.offer.id)).toMatchObject({ sequence: made.sequence + 1, offer: { status: 'accepted' } });
    d.close();
  });

  it('a device acknowledges by offer id and accepts or declines over the socket; the answer is the offer after it (spec 4.7)', async () => {
    const at = kit.centre();
    const a = await kit.worker(at, 100);
    const d = await device(a.worker, { binary: true });
    await d.subscribe();
    const wo1 = await kit.open(at);
    const made = await d.type('offer.made');
    d.send({ type: 'ack', offer_id: made.offer.id });
    expect(await d.until('acknowledged', (f) => f.type === 'acknowledged')).toEqual({ type: 'acknowledged', offer_id: made.offer.id });
    const inbox = await h.platform.system.get(DeviceInbox, inboxIdOf(h.org, a.worker), h.org);
    expect((inbox as { acknowledged: { offer_id: string }[] }).acknowledged.map((x) => x.offer_id)).toContain(made.offer.id);
    d.send({ type: 'decline', offer_id: made.offer.id, reason: 'too far' });
    expect(await d.until('offer', (f) => f.type === 'offer')).toMatchObject({ offer: { id: made.offer.id, status: 'declined', reason: 'too far' } });
    expect(await d.type('offer.declined', made.offer.id)).toMatchObject({ offer: { reason: 'too far' } });
    expect((await h.request('GET', `/v1/allocation/work_orders/${wo1.id}`)).body.status).toBe('unfilled');
    await kit.open(at);
    const second = await d.type('offer.made');
    d.send({ type: 'accept', offer_id: second.offer.id });
    expect(await d.until('offer', (f) => f.type === 'offer')).toMatchObject({ offer: { id: second.offer.id, status: 'accepted' } });
    d.close();
  });

  it('a device that reconnects receives the offers it missed, in sequence, after its actor was passivated (spec 4.7)', async () => {
    const at = kit.centre();
    const a = await kit.worker(at, 100);
    const first = await device(a.worker);
    const held = (await first.subscribe()).sequence as number;
    first.close();
    const wo = await kit.open(at, { offer_timeout_seconds: 60 });
    await h.clock.advance(60_000); // the offer expires while no device is connected
    await h.platform.system.settle();
    expect((await kit.offers(wo.id))[0]).toMatchObject({ status: 'expired' });
    await h.platform.system.passivateWhere((kind) => kind === DeviceInbox.kind);
    const again = await device(a.worker, { binary: true });
    const sub = await again.subscribe(held);
    const missed = again.seen.filter((f) => typeof f.sequence === 'number' && f.type !== 'subscribed');
    expect(missed.map((f) => [f.sequence, f.type, f.offer.work_order_id])).toEqual([
      [held + 1, 'offer.made', wo.id],
      [held + 2, 'offer.expired', wo.id],
    ]);
    expect(sub).toMatchObject({ after_sequence: held, sequence: held + 2 });
    again.close();
  });

  it('a pending offer accepted by another worker, or withdrawn by a revocation, is told to the device (spec 6)', async () => {
    const at = kit.centre();
    const a = await kit.worker(at, 100);
    const b = await kit.worker(at, 300);
    const da = await device(a.worker);
    const db = await device(b.worker);
    await da.subscribe();
    await db.subscribe();
    await kit.open(at, { cascade_width: 2 });
    const madeA = await da.type('offer.made');
    const madeB = await db.type('offer.made');
    expect((await h.request('POST', `/v1/allocation/offers/${madeB.offer.id}/accept`, { key: db.key, idempotencyKey: kit.ik('acc') })).status).toBe(200);
    expect(await da.type('offer.accepted_elsewhere', madeA.offer.id)).toMatchObject({ offer: { status: 'withdrawn', reason: 'headcount_filled' } });
    await kit.open(at, { cascade_width: 2 });
    const next = await da.type('offer.made');
    await h.request('POST', '/v1/identity/blocklist_entries', { body: { subject_ref: a.worker, reason: 'fraud' }, idempotencyKey: kit.ik('bl') });
    await h.platform.system.settle();
    expect(await da.type('offer.withdrawn', next.offer.id)).toMatchObject({ offer: { status: 'withdrawn', reason: 'identity_revoked' } });
    da.close();
    db.close();
  });

  it('an assignment of the worker\u2019s made and cancelled is told to the device; the device lists only its own offers and assignments', async () => {
    const at = kit.centre();
    const a = await kit.worker(at, 100);
    const b = await kit.worker(at, 300);
    const da = await device(a.worker);
    await da.subscribe();
    await kit.open(at, { cascade_width: 2, headcount: 2 });
    const made = await da.type('offer.made');
    const keyB = await deviceKey(h, b.worker);
    // pending: each device sees its own, and only its own
    const mine = (await h.request('GET', '/v1/allocation/offers?status=pending', { key: da.key })).body;
    expect(mine.data.map((o: { id: string }) => o.id)).toEqual([made.offer.id]);
    const theirs = (await h.request('GET', '/v1/allocation/offers?status=pending', { key: keyB })).body.data as { worker_id: string }[];
    expect(theirs.length).toBe(1);
    expect(theirs.every((o) => o.worker_id === b.worker)).toBe(true);
    expect((await h.request('GET', `/v1/allocation/offers?worker_id=${b.worker}`, { key: da.key })).status).toBe(403);
    expect((await h.request('GET', `/v1/allocation/offers?worker_id=${b.worker}&status=pending`)).body.data).toEqual(theirs);
    expect((await h.request('GET', '/v1/allocation/offers')).status).toBe(400);
    // accepted, assigned, cancelled: every step reaches the device
    expect((await h.request('POST', `/v1/allocation/offers/${made.offer.id}/accept`, { key: da.key, idempotencyKey: kit.ik('acc') })).status).toBe(200);
    expect((await h.request('GET', '/v1/allocation/offers?status=pending', { key: da.key })).body.data).toEqual([]);
    expect((await h.request('GET', '/v1/allocation/offers?status=accepted', { key: da.key })).body.data.map((o: { id: string }) => o.id)).toEqual([made.offer.id]);
    const asg = await kit.post('/v1/allocation/assignments', { offer_id: made.offer.id });
    expect(asg.status, asg.text).toBe(201);
    expect(await da.type('assignment.changed')).toMatchObject({ assignment: { id: asg.body.id, status: 'assigned', offer_id: made.offer.id } });
    const listA = (await h.request('GET', '/v1/allocation/assignments', { key: da.key })).body.data as { id: string; worker_id: string }[];
    expect(listA.map((x) => x.id)).toEqual([asg.body.id]);
    expect((await h.request('GET', '/v1/allocation/assignments', { key: keyB })).body.data).toEqual([]);
    expect((await h.request('GET', `/v1/allocation/assignments?worker_id=${b.worker}`, { key: da.key })).status).toBe(403);
    expect((await kit.post(`/v1/allocation/assignments/${asg.body.id}/cancel`, { reason: 'site closed' })).status).toBe(200);
    expect(await da.type('assignment.cancelled')).toMatchObject({ assignment: { id: asg.body.id, status: 'cancelled', reason: 'site closed' } });
    da.close();
  });

  it('the organisation\u2019s events keep the offers the devices are told of (spec 6)', async () => {
    const at = kit.centre();
    await kit.worker(at, 100);
    const wo = await kit.open(at);
    await h.platform.system.settle();
    const events = (await h.request('GET', '/v1/allocation/events?limit=100')).body.data as { type: string; data: { id?: string } }[];
    expect(events.some((e) => e.type === 'match.offer.made' && e.data.id === wo.id)).toBe(true);
  });

  it('an offer committed while its node recorded no notices is recorded from the journal feed once it does: a stop between commit and record loses none (docs/gaps.md#allocation)', async () => {
    const at = kit.centre();
    const a = await kit.worker(at, 100);
    const feed = deviceFeedOf(h.platform);
    await feed.stop(); // as a node that stopped after the work order's commit, before its notice
    const wo = await kit.open(at);
    await h.platform.system.settle();
    expect((await feed.inbox(h.org, a.worker)).sequence).toBe(0);
    feed.start();
    await h.platform.system.settle();
    const d = await device(a.worker);
    await d.subscribe();
    expect(d.seen.filter((f) => f.type === 'offer.made').map((f) => [f.sequence, f.offer.work_order_id])).toEqual([[1, wo.id]]);
    d.close();
  });

  it('a device whose place is older than the backlog is told notices_truncated, then receives the backlog in sequence (docs/gaps.md#allocation)', async () => {
    const at = kit.centre();
    const a = await kit.worker(at, 100);
    const wo = (await kit.open(at)) as { weight_set: { version: string; content_hash: string } };
    const now = h.clock.now();
    const facts = { location: { ...at, radius_metres: 300 }, search_radius_metres: 5000, occupation_code: null, claim_codes: [], licence_required: false, window: { starts_at: now, ends_at: now + 3_600_000 }, headcount: 1, offer_timeout_seconds: 600, cascade_width: 1, weight_set: wo.weight_set, livemode: false, excluded_count: 0 };
    // more work orders offering the worker than the inbox keeps notices of
    for (let i = 0; i < BACKLOG + 5; i++) await h.platform.system.ask(WorkOrder, newId(WORK_ORDER_PREFIX), 'open', { ...facts, candidates: [{ worker_id: a.worker, rank: 1, score: 1 }] }, { org: h.org, principal: 'test' });
    await h.platform.system.settle();
    const d = await device(a.worker);
    const sub = await d.subscribe(1);
    const [first, ...rest] = d.seen.filter((f) => f.type !== 'subscribed');
    expect(first).toMatchObject({ type: 'notices_truncated', after_sequence: 1, sequence: sub.sequence });
    expect(rest.map((f) => f.sequence)).toEqual(Array.from({ length: BACKLOG }, (_, i) => first!.oldest_sequence + i));
    expect(rest.at(-1)!.sequence).toBe(sub.sequence);
    d.close();
  });

  it('a device whose credential is revoked is told unsubscribed and hears no more notices (spec 4.7)', async () => {
    const at = kit.centre();
    const a = await kit.worker(at, 100);
    const d = await device(a.worker);
    await d.subscribe();
    const creds = (await h.request('GET', `/v1/allocation/device_credentials?worker_id=${a.worker}`)).body.data as { id: string }[];
    expect((await h.request('POST', `/v1/allocation/device_credentials/${creds[0]!.id}/revoke`, { idempotencyKey: kit.ik('rv') })).status).toBe(200);
    await h.platform.system.settle();
    await kit.open(at);
    expect(await d.until('unsubscribed', (f) => f.type === 'unsubscribed' || f.type === 'offer.made')).toEqual({ type: 'unsubscribed', reason: 'device_credential_revoked' });
    d.close();
  });

  it('frames a device may not send are refused with the gateway\u2019s error frame, never a fault', async () => {
    const at = kit.centre();
    const a = await kit.worker(at, 100);
    const b = await kit.worker(at, 300);
    const d = await device(a.worker);
    d.send({ type: 'subscribe', after_sequence: -1 });
    expect((await d.until('error', (f) => f.error !== undefined)).error.code).toBe('validation_failed');
    d.send({ type: 'dance' });
    expect((await d.until('error', (f) => f.error !== undefined)).error.code).toBe('validation_failed');
    d.send({ type: 'accept' });
    expect((await d.until('error', (f) => f.error !== undefined)).error.code).toBe('validation_failed');
    await kit.open(at, { cascade_width: 2 });
    const offersNow = await kit.offers((await h.request('GET', '/v1/allocation/work_orders?limit=1')).body.data[0].id);
    const bOffer = offersNow.find((o) => o.worker_id === b.worker)!;
    d.send({ type: 'accept', offer_id: bOffer.id });
    expect((await d.until('error', (f) => f.error !== undefined)).error.code).toBe('forbidden');
    d.close();
    const org = await connect(h.url + HEARTBEAT_SOCKET_PATH, { 'service-api-key': h.key });
    org.send(JSON.stringify({ type: 'subscribe' }));
    expect(JSON.parse((await org.next()).text).error.code).toBe('forbidden');
    org.close();
  });
});
