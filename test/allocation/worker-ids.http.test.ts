/**
 * A worker_id is the caller's own subject_ref (spec 2.8, 4.7): two organisations may use one string
 * for two people. Records written before this rule (actor id = the raw worker_id) are adopted on
 * first use (docs/gaps.md#allocation).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INTEGRITY_FLAG_PREFIX, workerReadings, Worker, workerActorId, type WorkerEvent, type WorkerState } from '../../actors/allocation/index.ts';
import { newId } from '../../kernel/index.ts';
import { encodeSnapshot } from '../../runtime/index.ts';
import type { StoredEvent } from '../../stores/index.ts';
import { startHarness, type Harness, type Registered } from '../../support/http.ts';
import { deviceKey, heartbeats, LAGOS, makeAvailable, reading, setAvailability, workerId } from './support.ts';

let h: Harness;
let other: Registered;
beforeAll(async () => {
  h = await startHarness();
  other = await h.register();
});
afterAll(async () => {
  await h?.close();
});

const near = (key: string) =>
  h.request('GET', `/v1/allocation/supply?latitude=${LAGOS.latitude}&longitude=${LAGOS.longitude}&radius_metres=5000&limit=100`, { key });
const flagsOf = async (w: string, key: string) => (await h.request('GET', `/v1/allocation/integrity_flags?worker_id=${w}`, { key })).body.data as { id: string; worker_id: string; status: string }[];

describe('a worker_id is the caller\u2019s own reference (spec 2.8, 4.7)', () => {
  it('two organisations use the same worker id independently: neither sees the other\u2019s availability, heartbeats, readings, supply state or flags', async () => {
    const w = workerId();
    const a = { key: h.key, org: h.org, at: { latitude: LAGOS.latitude + 0.001, longitude: LAGOS.longitude, accuracy_metres: 5 } };
    const b = { key: other.key, org: other.org, at: { latitude: LAGOS.latitude + 0.02, longitude: LAGOS.longitude, accuracy_metres: 5 } };
    for (const o of [a, b]) {
      const r = await setAvailability(h, w, 'available', o.key);
      expect(r.status, r.text).toBe(200);
      expect(r.body).toMatchObject({ object: 'worker_availability', worker_id: w, availability: 'available' });
    }
    await h.clock.advance(1000);
    const at = h.clock.now();
    // the same recorded_at for both: a reading of one organisation's worker is no duplicate of the other's
    const ra = await heartbeats(h, { worker_id: w, readings: [reading(at, { position: a.at })] }, a.key);
    const rb = await heartbeats(h, { worker_id: w, readings: [reading(at, { position: b.at, mock_location_detected: true })] }, b.key);
    for (const r of [ra, rb]) expect(r.body, r.text).toMatchObject({ object: 'heartbeat_receipt', worker_id: w, accepted_count: 1, rejected_count: 0 });
    await h.platform.system.settle();

    // supply state: a's worker is in a's map; b's is held out by b's own open flag
    expect((await h.request('GET', `/v1/allocation/supply/${w}`, { key: a.key })).body).toMatchObject({ worker_id: w, in_map: true, excluded_because: null });
    expect((await h.request('GET', `/v1/allocation/supply/${w}`, { key: b.key })).body).toMatchObject({ worker_id: w, in_map: false, excluded_because: 'integrity_flag_open' });
    const seenByA = (await near(a.key)).body.data as { worker_id: string; latitude: number }[];
    expect(seenByA.filter((n) => n.worker_id === w).map((n) => n.latitude)).toEqual([a.at.latitude]);
    expect(((await near(b.key)).body.data as { worker_id: string }[]).some((n) => n.worker_id === w)).toBe(false);
    expect(await flagsOf(w, a.key)).toEqual([]);
    expect((await flagsOf(w, b.key)).map((f) => [f.worker_id, f.status])).toEqual([[w, 'open']]);

    // readings: each organisation reads only its own worker's
    expect((await workerReadings(h.platform, a.org, w, 0, Infinity)).map((r) => r.data.position?.latitude)).toEqual([a.at.latitude]);
    expect((await workerReadings(h.platform, b.org, w, 0, Infinity)).map((r) => r.data.position?.latitude)).toEqual([b.at.latitude]);

    // availability: one organisation's change leaves the other's worker as it was
    const off = await setAvailability(h, w, 'unavailable', a.key);
    expect(off.body).toMatchObject({ worker_id: w, availability: 'unavailable', supply: { in_map: false, excluded_because: 'not_available' } });
    const readB = await h.request('GET', `/v1/allocation/availability/${w}`, { key: b.key });
    expect(readB.status).toBe(200);
    expect(readB.body).toMatchObject({ worker_id: w, availability: 'available', presence: 'reporting' });

    // a third organisation that never set availability has no such worker
    const third = await h.register();
    expect((await heartbeats(h, { worker_id: w, readings: [reading(h.clock.now())] }, third.key)).status).toBe(404);
    expect((await h.request('GET', `/v1/allocation/availability/${w}`, { key: third.key })).status).toBe(404);
  });

  it('the Worker record\u2019s id is derived from the organisation and the worker_id: bounded, base62, safe as a NATS subject token', () => {
    const long = `x${'.:-_'.repeat(63)}z`.slice(0, 255);
    const ids = [workerActorId('org_a', long), workerActorId('org_b', long), workerActorId('org_a', 'w.1'), workerActorId('org_a', 'w:1')];
    for (const id of ids) expect(id).toMatch(/^worker_[0-9A-Za-z]{22}$/);
    expect(new Set(ids).size).toBe(ids.length);
    expect(workerActorId('org_a', long)).toBe(ids[0]);
  });
});

// -- records of the old scheme ------------------------------------------------------------------

/** Writes a worker's journal as the old scheme kept it: stream `allocation_worker.<worker_id>`. */
async function writeOldScheme(org: string, w: string, events: WorkerEvent[], snapshotAt?: number): Promise<StoredEvent[]> {
  const at = h.clock.now();
  const stored = events.map((data, i): StoredEvent => ({ version: i + 1, id: newId('evt_'), type: data.type, data, at, org, principal: 'key_old' }));
  await h.platform.stores.journal.append(`${Worker.kind}.${w}`, 0, stored);
  if (snapshotAt !== undefined) {
    // the snapshot of that time: a state with no worker_id field
    let state = Worker.initial(w, org);
    for (const e of stored.slice(0, snapshotAt)) state = Worker.evolve(state, e.data as WorkerEvent, { at: e.at, version: e.version, eventId: e.id, org });
    const { worker_id: _none, ...old } = state;
    await h.platform.stores.snapshots.save(`${Worker.kind}.${w}`, snapshotAt, encodeSnapshot({ schema: 1, kind: Worker.kind, id: w, version: snapshotAt, org, state: old, dedupe: [] }));
  }
  await h.platform.system.settle();
  return stored;
}

const signal = (source: string) => ({ source: source as 'mock_location', fired_at: new Date(h.clock.now()).toISOString(), detail: `${source} fired` });
/** An old-scheme flag event: it named no worker_id. */
const oldFlagOpened = (flag_id: string, sources: string[]) => ({ type: 'worker.integrity_flag_opened', flag_id, signals: sources.map(signal), livemode: false, mocked: false }) as unknown as WorkerEvent;

describe('records kept under the old scheme (actor id = the raw worker_id) are adopted on first use', () => {
  it('the organisation that wrote them finds its worker, history, readings and flag; another organisation using the worker id does not', async () => {
    await h.clock.advance(60_000);
    const w = workerId();
    const flagId = newId(INTEGRITY_FLAG_PREFIX);
    const old = await writeOldScheme(
      h.org,
      w,
      [
        { type: 'worker.availability_changed', availability: 'available', previous: null, livemode: false },
        { type: 'worker.presence_changed', presence: 'reporting', previous: null },
        oldFlagOpened(flagId, ['mock_location']),
      ],
      2,
    );
    const earlier = h.clock.now() - 5000;
    await h.platform.stores.readings.append(w, [{ recordedAt: earlier, data: { position: { ...LAGOS, accuracy_metres: 4 }, connectivity: 'good', availability: 'available', battery_percent: 50, mock_location_detected: false, device_integrity_attested: true } }]);
    // the flag was raised by reaction from the old stream, naming the worker_id
    expect((await flagsOf(w, h.key)).map((f) => [f.id, f.worker_id, f.status])).toEqual([[flagId, w, 'open']]);

    await h.clock.advance(1000);
    const rec = await h.request('GET', `/v1/allocation/availability/${w}`);
    expect(rec.status, rec.text).toBe(200);
    expect(rec.body).toMatchObject({ worker_id: w, availability: 'available', livemode: false, updated_at: new Date(old[2].at).toISOString(), supply: { excluded_because: 'integrity_flag_open' } });
    const state = await h.platform.system.state<WorkerState>(Worker, workerActorId(h.org, w), h.org);
    expect(state).toMatchObject({ worker_id: w, open_flag_id: flagId, history: [{ availability: 'available' }] });

    // its readings moved with it: a resent one is a duplicate, a new one is inside the collection window
    const r = await heartbeats(h, { worker_id: w, readings: [reading(earlier), reading(h.clock.now())] });
    expect(r.body.rejections).toEqual([expect.objectContaining({ index: 1, reason: 'duplicate_reading' })]);
    expect(r.body.accepted_count).toBe(1);
    expect((await workerReadings(h.platform, h.org, w, 0, Infinity)).map((x) => x.recordedAt)).toEqual([earlier, h.clock.now()]);

    // the flag's decision reaches the adopted worker, who returns to the map
    const d = await h.request('POST', `/v1/allocation/integrity_flags/${flagId}/adjudicate`, { body: { outcome: 'dismissed', reason: 'test device' }, idempotencyKey: `old-${w}` });
    expect(d.status, d.text).toBe(200);
    await h.platform.system.settle();
    expect((await h.request('GET', `/v1/allocation/supply/${w}`)).body).toMatchObject({ in_map: true, excluded_because: null });

    // another organisation using the same worker_id starts its own worker and sees none of this
    expect((await h.request('GET', `/v1/allocation/availability/${w}`, { key: other.key })).status).toBe(404);
    await makeAvailable(h, w, other.key);
    expect(await workerReadings(h.platform, other.org, w, 0, Infinity)).toEqual([]);
    expect(await flagsOf(w, other.key)).toEqual([]);
    expect((await h.request('GET', `/v1/allocation/supply/${w}`, { key: other.key })).body).toMatchObject({ worker_id: w, in_map: false, excluded_because: 'presence_stale' });
  });

  it('a flag decided while the old record waited is applied when it is adopted (an upheld flag still suspends)', async () => {
    const w = workerId();
    const flagId = newId(INTEGRITY_FLAG_PREFIX);
    await writeOldScheme(h.org, w, [
      { type: 'worker.availability_changed', availability: 'available', previous: null, livemode: false },
      oldFlagOpened(flagId, ['mock_location', 'device_integrity']),
    ]);
    const d = await h.request('POST', `/v1/allocation/integrity_flags/${flagId}/adjudicate`, { body: { outcome: 'upheld', reason: 'confirmed' }, idempotencyKey: `old-${w}` });
    expect(d.body).toMatchObject({ status: 'upheld', suspends: true });
    await h.platform.system.settle();
    const supply = await h.request('GET', `/v1/allocation/supply/${w}`);
    expect(supply.status, supply.text).toBe(200);
    expect(supply.body).toMatchObject({ worker_id: w, excluded_because: 'integrity_flag_upheld' });
  });

  it('a first use by two requests at once adopts once', async () => {
    const w = workerId();
    await writeOldScheme(h.org, w, [{ type: 'worker.availability_changed', availability: 'unavailable', previous: null, livemode: false }]);
    await h.platform.stores.readings.append(w, [{ recordedAt: h.clock.now() - 1000, data: { position: null, connectivity: 'poor', availability: null, battery_percent: null, mock_location_detected: null, device_integrity_attested: null } }]);
    const device = await deviceKey(h, w);
    const [x, y] = await Promise.all([
      h.request('PUT', `/v1/allocation/availability/${w}`, { body: { availability: 'available' }, key: device }),
      h.request('GET', `/v1/allocation/availability/${w}`),
    ]);
    expect([x.status, y.status]).toEqual([200, 200]);
    const events = await h.platform.stores.journal.read(`${Worker.kind}.${workerActorId(h.org, w)}`, 0);
    expect(events[0].type).toBe('worker.adopted');
    expect(events.filter((e) => e.type === 'worker.adopted' || e.type === 'worker.registered')).toHaveLength(1);
    expect(events.filter((e) => e.type === 'worker.availability_changed').map((e) => (e.data as { previous: string }).previous)).toEqual(['unavailable']);
    expect(await workerReadings(h.platform, h.org, w, 0, Infinity)).toHaveLength(1);
  });
});
