/** Heartbeats over REST and WebSocket, availability, presence, the supply map (spec 2.8, 4.7). */
import { Packr } from 'msgpackr';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HEARTBEAT_SOCKET_PATH, allocation, excludeWorker, readmitWorker, workerReadings, activePolicy } from '../../actors/allocation/index.ts';
import { startHarness, type Harness } from '../../support/http.ts';
import { connect, heartbeats, LAGOS, makeAvailable, reading, setAvailability, storedReadings, workerId } from './support.ts';

const policy = activePolicy().pack;
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const supplyNear = (radius = 5000) => h.request('GET', `/v1/allocation/supply?latitude=${LAGOS.latitude}&longitude=${LAGOS.longitude}&radius_metres=${radius}&limit=100`);
const inMap = async (w: string) => ((await supplyNear()).body.data as { worker_id: string }[]).some((n) => n.worker_id === w);

describe('POST /v1/allocation/heartbeats (spec 4.7)', () => {
  it('stores accepted readings and names refused ones in rejections, index from 1 (spec 2.8)', async () => {
    const w = workerId();
    await makeAvailable(h, w);
    await h.clock.advance(10_000);
    const now = h.clock.now();
    const r = await heartbeats(h, { worker_id: w, readings: [reading(now - 2000), reading(now + 3_600_000), reading(now - 1000), reading(now - 1000)] });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ object: 'heartbeat_receipt', worker_id: w, accepted_count: 2, rejected_count: 2, reconciled: false, presence: 'reporting' });
    expect(r.body.rejections.map((x: { index: number; reason: string }) => [x.index, x.reason])).toEqual([
      [2, 'recorded_in_the_future'],
      [4, 'duplicate_reading'],
    ]);
    expect(r.body.validation).toMatchObject({ entry_count: 4, error_count: 2 });
    const stored = await storedReadings(h, w);
    expect(stored.map((s) => s.recordedAt)).toEqual([now - 2000, now - 1000]);
  });

  it('a reading outside the collection window is refused and no position is stored (spec 4.7)', async () => {
    const w = workerId();
    await makeAvailable(h, w);
    await h.clock.advance(5_000);
    const whileAvailable = h.clock.now();
    await h.clock.advance(5_000);
    await setAvailability(h, w, 'unavailable');
    await h.clock.advance(5_000);
    const now = h.clock.now();
    const r = await heartbeats(h, { worker_id: w, readings: [reading(now - 1000), reading(whileAvailable)] });
    expect(r.body.rejections).toEqual([expect.objectContaining({ index: 1, reason: 'outside_collection_window' })]);
    const stored = await storedReadings(h, w);
    expect(stored.map((s) => s.recordedAt)).toEqual([whileAvailable]);
  });

  it('a reading\u2019s availability is read for drift only and never changes the availability state (spec 4.7)', async () => {
    const w = workerId();
    await makeAvailable(h, w);
    await h.clock.advance(5_000);
    const r = await heartbeats(h, { worker_id: w, readings: [reading(h.clock.now() - 100, { availability: 'unavailable' })] });
    expect(r.body.accepted_count).toBe(1);
    expect(r.body.validation.entries).toEqual([expect.objectContaining({ index: 1, severity: 'warning', code: 'availability_drift' })]);
    const rec = await h.request('GET', `/v1/allocation/availability/${w}`);
    expect(rec.body.availability).toBe('available');
  });

  it('reconciles out-of-order and late batches by recorded_at (spec 4.7)', async () => {
    const w = workerId();
    await makeAvailable(h, w);
    await h.clock.advance(60_000);
    const now = h.clock.now();
    const first = await heartbeats(h, { worker_id: w, readings: [reading(now - 1000), reading(now - 3000), reading(now - 2000)] });
    expect(first.body).toMatchObject({ accepted_count: 3, reconciled: true });
    const late = await heartbeats(h, { worker_id: w, readings: [reading(now - 20_000)] });
    expect(late.body).toMatchObject({ accepted_count: 1, reconciled: true });
    const inOrder = await heartbeats(h, { worker_id: w, readings: [reading(now - 500)] });
    expect(inOrder.body).toMatchObject({ accepted_count: 1, reconciled: false });
    const stored = await storedReadings(h, w);
    expect(stored.map((s) => now - s.recordedAt)).toEqual([20_000, 3000, 2000, 1000, 500]);
  });

  it('stored readings are readable per worker and time range, only by the worker\u2019s organisation (another one has no such worker)', async () => {
    const w = workerId();
    await makeAvailable(h, w);
    await h.clock.advance(60_000);
    const now = h.clock.now();
    await heartbeats(h, { worker_id: w, readings: [reading(now - 30_000), reading(now - 20_000, { position: null, connectivity: 'poor' }), reading(now - 10_000)] });
    const mid = await workerReadings(h.platform, h.org, w, now - 25_000, now - 5_000);
    expect(mid.map((r) => [now - r.recordedAt, r.data.connectivity, r.data.position === null])).toEqual([
      [20_000, 'poor', true],
      [10_000, 'good', false],
    ]);
    const other = await h.register();
    await expect(workerReadings(h.platform, other.org, w, 0, Infinity)).rejects.toMatchObject({ code: 'not_found' });
  });

  it('a batch of out-of-range values is refused with 400, naming every value; nothing is stored (spec 8)', async () => {
    const w = workerId();
    await makeAvailable(h, w);
    const now = h.clock.now();
    const r = await heartbeats(h, { worker_id: w, readings: [reading(now, { battery_percent: 101 }), reading(now, { position: { latitude: 95, longitude: 3, accuracy_metres: 1 } })] });
    expect(r.status).toBe(400);
    expect(await storedReadings(h, w)).toEqual([]);
  });

  it('a worker with no availability record is 404, also when another organisation uses the same worker_id (spec 4.7)', async () => {
    const w = workerId();
    const absent = await heartbeats(h, { worker_id: w, readings: [reading(h.clock.now())] });
    expect(absent.status).toBe(404);
    expect(absent.body.error.message).toContain(w);
    await makeAvailable(h, w);
    const other = await h.register();
    const r = await heartbeats(h, { worker_id: w, readings: [reading(h.clock.now())] }, other.key);
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe('not_found');
  });
});

describe('presence and the supply map, by the clock (spec 2.8)', () => {
  it('presence moves reporting -> stale -> ghost with the manual clock, and the worker leaves the map', async () => {
    const w = workerId();
    await makeAvailable(h, w);
    await h.clock.advance(1000);
    const r = await heartbeats(h, { worker_id: w, readings: [reading(h.clock.now())] });
    expect(r.body.presence).toBe('reporting');
    expect(await inMap(w)).toBe(true);

    await h.clock.advance(policy.presence.stale_after_seconds * 1000);
    await h.platform.system.settle();
    expect(await inMap(w)).toBe(false); // removed by the presence timer, not by a read
    expect((await h.request('GET', `/v1/allocation/supply/${w}`)).body).toMatchObject({ presence: 'stale', in_map: false, excluded_because: 'presence_stale' });

    await h.clock.advance((policy.presence.ghost_after_seconds - policy.presence.stale_after_seconds) * 1000);
    await h.platform.system.settle();
    expect((await h.request('GET', `/v1/allocation/supply/${w}`)).body).toMatchObject({ presence: 'ghost', excluded_because: 'presence_ghost' });

    const back = await heartbeats(h, { worker_id: w, readings: [reading(h.clock.now())] });
    expect(back.body.presence).toBe('reporting');
    expect(await inMap(w)).toBe(true);
  });

  it('soft state of an absent worker is dropped and rebuilt from the store: a resent reading is still a duplicate', async () => {
    const w = workerId();
    await makeAvailable(h, w);
    await h.clock.advance(1000);
    const first = h.clock.now();
    await heartbeats(h, { worker_id: w, readings: [reading(first)] });
    const svc = allocation(h.platform);
    expect(svc.live.peek(h.org, w)).toBeDefined();
    await h.clock.advance(policy.presence.ghost_after_seconds * 1000);
    await h.platform.system.settle();
    expect(svc.live.peek(h.org, w)).toBeUndefined();
    const again = await heartbeats(h, { worker_id: w, readings: [reading(first), reading(h.clock.now())] });
    expect(again.body.rejections).toEqual([expect.objectContaining({ index: 1, reason: 'duplicate_reading' })]);
    expect(again.body).toMatchObject({ accepted_count: 1, presence: 'reporting' });
  });

  it('becoming unavailable removes the worker from the map at once (spec 6 cascade rule depends on it)', async () => {
    const w = workerId();
    await makeAvailable(h, w);
    await h.clock.advance(1000);
    await heartbeats(h, { worker_id: w, readings: [reading(h.clock.now())] });
    expect(await inMap(w)).toBe(true);
    const r = await setAvailability(h, w, 'unavailable');
    expect(r.body.supply).toMatchObject({ in_map: false, excluded_because: 'not_available' });
    expect(await inMap(w)).toBe(false);
  });

  it('an exclusion placed by another area (spec 6 cascade rule) removes the worker at once and holds until readmitted', async () => {
    const w = workerId();
    await makeAvailable(h, w);
    await h.clock.advance(1000);
    await heartbeats(h, { worker_id: w, readings: [reading(h.clock.now())] });
    expect(await inMap(w)).toBe(true);
    expect(await excludeWorker(h.platform, h.org, w, 'identity_revoked')).toMatchObject({ in_map: false, excluded_because: 'identity_revoked' });
    expect(await inMap(w)).toBe(false);
    await heartbeats(h, { worker_id: w, readings: [reading(h.clock.now())] });
    expect(await inMap(w)).toBe(false);
    expect(await readmitWorker(h.platform, h.org, w, 'identity_revoked')).toMatchObject({ in_map: true, excluded_because: null });
  });

  it('the supply query answers nearest first with distances, only the caller\u2019s organisation', async () => {
    const near = workerId();
    const far = workerId();
    for (const w of [near, far]) await makeAvailable(h, w);
    await h.clock.advance(1000);
    await heartbeats(h, { worker_id: near, readings: [reading(h.clock.now(), { position: { latitude: LAGOS.latitude + 0.0001, longitude: LAGOS.longitude, accuracy_metres: 5 } })] });
    await heartbeats(h, { worker_id: far, readings: [reading(h.clock.now(), { position: { latitude: LAGOS.latitude + 0.01, longitude: LAGOS.longitude, accuracy_metres: 5 } })] });
    const ids = ((await supplyNear(2000)).body.data as { worker_id: string; distance_metres: number }[]).map((n) => n.worker_id);
    expect(ids.indexOf(near)).toBeLessThan(ids.indexOf(far));
    const other = await h.register();
    const foreign = await h.request('GET', `/v1/allocation/supply?latitude=${LAGOS.latitude}&longitude=${LAGOS.longitude}&radius_metres=5000`, { key: other.key });
    expect(foreign.body.data).toEqual([]);
  });
});

describe('the heartbeat WebSocket gives the same receipts as REST for the same batches (spec 4.7)', () => {
  const packr = new Packr({ useRecords: false });

  function script(now: number) {
    return [
      [reading(now - 5000), reading(now - 7000), reading(now - 6000)],
      [reading(now - 6000), reading(now + 3_600_000), reading(now - 4000, { position: { latitude: 6.5, longitude: 3.4, accuracy_metres: 500 } })],
      [reading(now - 30_000), reading(now - 3000, { position: { latitude: 9.0, longitude: 7.4, accuracy_metres: 5 } })],
    ];
  }

  it('JSON text frames and msgpack binary frames answer the REST receipt, in the same encoding', async () => {
    const rest = workerId();
    const json = workerId();
    const bin = workerId();
    for (const w of [rest, json, bin]) await makeAvailable(h, w);
    await h.clock.advance(60_000);
    const now = h.clock.now();
    const wsUrl = h.url.replace('http', 'ws') + HEARTBEAT_SOCKET_PATH;
    const s = await connect(wsUrl.replace('ws://', 'http://'), { 'service-api-key': h.key });
    try {
      for (const readings of script(now)) {
        const viaRest = (await heartbeats(h, { worker_id: rest, readings })).body;
        s.send(JSON.stringify({ worker_id: json, readings }));
        const textFrame = await s.next();
        expect(textFrame.binary).toBe(false);
        const viaJson = JSON.parse(textFrame.data.toString('utf8'));
        s.send(packr.pack({ worker_id: bin, readings }));
        const binFrame = await s.next();
        expect(binFrame.binary).toBe(true);
        const viaBin = packr.unpack(binFrame.data);
        const norm = (x: { worker_id: string }) => ({ ...x, worker_id: 'w' });
        expect(norm(viaJson)).toEqual(norm(viaRest));
        expect(norm(viaBin)).toEqual(norm(viaRest));
        expect(viaRest.object).toBe('heartbeat_receipt');
      }
    } finally {
      s.close();
    }
  });

  it('a malformed batch is refused the same way on both transports, entries indexed by reading (spec 2.1)', async () => {
    const w = workerId();
    await makeAvailable(h, w);
    const now = h.clock.now();
    const body = { worker_id: w, readings: [reading(now), reading(now, { battery_percent: 101 }), reading(now, { position: { latitude: 6, longitude: 200, accuracy_metres: 1 } })] };
    const viaRest = await heartbeats(h, body);
    expect(viaRest.status).toBe(400);
    const s = await connect(h.url + HEARTBEAT_SOCKET_PATH, { 'service-api-key': h.key });
    try {
      s.send(JSON.stringify(body));
      const viaJson = JSON.parse((await s.next()).data.toString('utf8'));
      s.send(new Packr({ useRecords: false }).pack(body));
      const viaBin = JSON.parse((await s.next()).data.toString('utf8'));
      const report = (x: any) => (x.error ?? x).details?.validation ?? (x.error ?? x).validation;
      expect(report(viaRest.body).entries.map((e: { index: number; field: string }) => [e.index, e.field])).toEqual([
        [2, '/readings/2/battery_percent'],
        [3, '/readings/3/position/longitude'],
      ]);
      expect(report(viaJson)).toEqual(report(viaRest.body));
      expect(report(viaBin)).toEqual(report(viaRest.body));
    } finally {
      s.close();
    }
  });

  it('the upgrade is authenticated: no credential, no socket (spec 5)', async () => {
    const wsUrl = h.url + HEARTBEAT_SOCKET_PATH;
    await expect(connect(wsUrl, {})).rejects.toThrow(/401/);
  });
});
