/** Integrity flags (spec 2.8 IntegrityFlag, 3 Integrity flag, 4.7 list and adjudicate). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INTEGRITY_FLAG_PREFIX, NETWORK_TEST_VALUES } from '../../actors/allocation/index.ts';
import { startHarness, type Harness } from '../../support/http.ts';
import { heartbeats, LAGOS, makeAvailable, reading, workerId } from './support.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

let ik = 0;
const adjudicate = (id: string, body: unknown) => h.request('POST', `/v1/allocation/integrity_flags/${id}/adjudicate`, { body, idempotencyKey: `adj-${process.pid}-${++ik}` });
const supplyOf = async (w: string) => (await h.request('GET', `/v1/allocation/supply/${w}`)).body;
const queryIds = async () =>
  ((await h.request('GET', `/v1/allocation/supply?latitude=${LAGOS.latitude}&longitude=${LAGOS.longitude}&radius_metres=5000&limit=100`)).body.data as { worker_id: string }[]).map((n) => n.worker_id);

/** A reporting worker in the map, then a batch carrying the given signals; returns the open flag. */
async function flagged(readingsOver: Record<string, unknown>[], suffix = '') {
  const w = workerId(suffix);
  await makeAvailable(h, w);
  await h.clock.advance(1000);
  await heartbeats(h, { worker_id: w, readings: [reading(h.clock.now() - 500)] });
  // (a sandbox mismatch worker fires on its first positioned reading, so only the others are in the map)
  if (!suffix) expect(await queryIds()).toContain(w);
  const now = h.clock.now();
  const r = await heartbeats(h, { worker_id: w, readings: readingsOver.map((o, i) => reading(now - 100 + i, o)) });
  expect(r.status).toBe(200);
  await h.platform.system.settle();
  const list = await h.request('GET', `/v1/allocation/integrity_flags?worker_id=${w}`);
  expect(list.body.data).toHaveLength(1);
  return { w, flag: list.body.data[0] };
}

describe('signals and the open flag (spec 2.8)', () => {
  it('mock_location and device_integrity signals open one flag per worker that gathers them; the worker is held out of the map', async () => {
    const { w, flag } = await flagged([{ mock_location_detected: true }, { device_integrity_attested: false }]);
    expect(flag).toMatchObject({ object: 'integrity_flag', livemode: false, worker_id: w, status: 'open', suspends: false, decision: null });
    expect(flag.id.startsWith(INTEGRITY_FLAG_PREFIX)).toBe(true);
    expect(flag.signals.map((s: { source: string }) => s.source).sort()).toEqual(['device_integrity', 'mock_location']);
    // a later signal joins the same open flag
    await heartbeats(h, { worker_id: w, readings: [reading(h.clock.now() - 10, { position: { latitude: 9.5, longitude: 7.5, accuracy_metres: 3 } })] });
    await h.platform.system.settle();
    const again = await h.request('GET', `/v1/allocation/integrity_flags?worker_id=${w}`);
    expect(again.body.data).toHaveLength(1);
    expect(again.body.data[0].signals.map((s: { source: string }) => s.source).sort()).toEqual(['device_integrity', 'implausible_movement', 'mock_location']);
    expect(await supplyOf(w)).toMatchObject({ in_map: false, excluded_because: 'integrity_flag_open' });
  });

  it('network_cross_check fires through the sandbox provider test value, and the flag is mocked', async () => {
    const { flag } = await flagged([{}], NETWORK_TEST_VALUES.mismatch);
    expect(flag.signals.map((s: { source: string }) => s.source)).toEqual(['network_cross_check']);
    expect(flag.mocked).toBe(true);
  });

  it('a sandbox no-answer is not a signal', async () => {
    const w = workerId(NETWORK_TEST_VALUES.noAnswer);
    await makeAvailable(h, w);
    await h.clock.advance(1000);
    await heartbeats(h, { worker_id: w, readings: [reading(h.clock.now())] });
    await h.platform.system.settle();
    expect((await h.request('GET', `/v1/allocation/integrity_flags?worker_id=${w}`)).body.data).toEqual([]);
  });
});

describe('adjudicate (spec 3 Integrity flag)', () => {
  it('upheld with more than one independent signal suspends; the suspended worker is absent from query results', async () => {
    const { w, flag } = await flagged([{ mock_location_detected: true }, { device_integrity_attested: false }]);
    const r = await adjudicate(flag.id, { outcome: 'upheld', reason: 'Spoofed location confirmed by review.' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'upheld', suspends: true, decision: { outcome: 'upheld', reason: 'Spoofed location confirmed by review.', accepted_signals: [] } });
    expect(r.body.decision.decided_by).toBeTruthy();
    // immediate: no settle between the decision and the query
    expect(await queryIds()).not.toContain(w);
    await h.platform.system.settle();
    expect(await supplyOf(w)).toMatchObject({ in_map: false, excluded_because: 'integrity_flag_upheld' });
    // still absent while reporting afterwards
    await heartbeats(h, { worker_id: w, readings: [reading(h.clock.now())] });
    expect(await queryIds()).not.toContain(w);
  });

  it('upheld with one signal only: suspends stays false and the worker returns', async () => {
    const { w, flag } = await flagged([{ mock_location_detected: true }]);
    expect(await queryIds()).not.toContain(w);
    const r = await adjudicate(flag.id, { outcome: 'upheld', reason: 'x' });
    expect(r.body).toMatchObject({ status: 'upheld', suspends: false });
    await h.platform.system.settle();
    expect(await queryIds()).toContain(w);
  });

  it('upheld with accepted_signals naming only one of two fired signals does not suspend', async () => {
    const { flag } = await flagged([{ mock_location_detected: true }, { device_integrity_attested: false }]);
    const r = await adjudicate(flag.id, { outcome: 'upheld', reason: 'Only the mock location holds.', accepted_signals: ['mock_location'] });
    expect(r.body).toMatchObject({ status: 'upheld', suspends: false, decision: { accepted_signals: ['mock_location'] } });
  });

  it('dismissed: the flag clears and the worker returns to the map', async () => {
    const { w, flag } = await flagged([{ mock_location_detected: true }, { device_integrity_attested: false }]);
    const r = await adjudicate(flag.id, { outcome: 'dismissed', reason: 'Test device.' });
    expect(r.body).toMatchObject({ status: 'dismissed', suspends: false });
    await h.platform.system.settle();
    expect(await queryIds()).toContain(w);
    expect(await supplyOf(w)).toMatchObject({ in_map: true, excluded_because: null });
  });

  it('the decision is never edited: a second adjudication is 409 conflict and the first stays', async () => {
    const { flag } = await flagged([{ mock_location_detected: true }]);
    await adjudicate(flag.id, { outcome: 'dismissed', reason: 'first' });
    const second = await adjudicate(flag.id, { outcome: 'upheld', reason: 'second' });
    expect(second.status).toBe(409);
    const got = await h.request('GET', `/v1/allocation/integrity_flags/${flag.id}`);
    expect(got.body).toMatchObject({ status: 'dismissed', decision: { reason: 'first' } });
  });

  it('accepted_signals must name fired signals only; reason needs at least one character (spec 4.7, 8)', async () => {
    const { flag } = await flagged([{ mock_location_detected: true }]);
    const unfired = await adjudicate(flag.id, { outcome: 'upheld', reason: 'x', accepted_signals: ['mock_location', 'network_cross_check'] });
    expect(unfired.status).toBe(400);
    expect(JSON.stringify(unfired.body)).toContain('network_cross_check');
    expect((await adjudicate(flag.id, { outcome: 'upheld', reason: '' })).status).toBe(400);
    expect((await h.request('GET', `/v1/allocation/integrity_flags/${flag.id}`)).body.status).toBe('open');
  });

  it('a signal right after a decision opens a new flag; the decided one keeps its decision (spec 3)', async () => {
    const { w, flag } = await flagged([{ mock_location_detected: true }]);
    await adjudicate(flag.id, { outcome: 'dismissed', reason: 'first look' });
    await heartbeats(h, { worker_id: w, readings: [reading(h.clock.now(), { mock_location_detected: true })] });
    await h.platform.system.settle();
    const flags = (await h.request('GET', `/v1/allocation/integrity_flags?worker_id=${w}`)).body.data as { id: string; status: string }[];
    expect(flags.map((f) => f.status).sort()).toEqual(['dismissed', 'open']);
    expect(flags.find((f) => f.status === 'dismissed')!.id).toBe(flag.id);
    expect(await supplyOf(w)).toMatchObject({ in_map: false, excluded_because: 'integrity_flag_open' });
  });

  it('another organisation cannot read or decide the flag (403 organisation_mismatch)', async () => {
    const { flag } = await flagged([{ mock_location_detected: true }]);
    const other = await h.register();
    const r = await h.request('POST', `/v1/allocation/integrity_flags/${flag.id}/adjudicate`, { body: { outcome: 'dismissed', reason: 'x' }, idempotencyKey: 'foreign-1', key: other.key });
    expect(r.status).toBe(403);
  });
});

describe('GET /v1/allocation/integrity_flags (spec 4.7)', () => {
  it('filters by status and worker_id and pages with next_cursor', async () => {
    const a = await flagged([{ mock_location_detected: true }]);
    const b = await flagged([{ mock_location_detected: true }]);
    await adjudicate(b.flag.id, { outcome: 'dismissed', reason: 'fine' });
    const dismissed = await h.request('GET', `/v1/allocation/integrity_flags?status=dismissed&worker_id=${b.w}`);
    expect(dismissed.body.data.map((f: { id: string }) => f.id)).toEqual([b.flag.id]);
    const openA = await h.request('GET', `/v1/allocation/integrity_flags?status=open&worker_id=${a.w}`);
    expect(openA.body.data.map((f: { id: string }) => f.id)).toEqual([a.flag.id]);

    const page1 = await h.request('GET', '/v1/allocation/integrity_flags?limit=1');
    expect(page1.body).toMatchObject({ object: 'list', has_more: true });
    expect(page1.body.next_cursor).toBe(page1.body.data[0].id);
    const page2 = await h.request('GET', `/v1/allocation/integrity_flags?limit=1&starting_after=${page1.body.next_cursor}`);
    expect(page2.body.data[0].id).not.toBe(page1.body.data[0].id);
  });
});
