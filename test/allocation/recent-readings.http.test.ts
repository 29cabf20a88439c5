/**
 * GET /v1/allocation/heartbeats?worker_id= (docs/gaps.md#allocation): a worker's last stored
 * readings of the last six hours, newest first, at most `limit`; refused readings are not among
 * them; another organisation's worker is not found; a device credential is refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/http.ts';
import { deviceKey, heartbeats, LAGOS, makeAvailable, reading, workerId } from './support.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

describe('GET /v1/allocation/heartbeats', () => {
  it('the last readings, newest first, at most limit; has_more when older ones are left out; a refused reading is not stored', async () => {
    const w = workerId();
    await makeAvailable(h, w);
    await h.clock.advance(1000);
    for (let i = 0; i < 3; i++) {
      await h.clock.advance(30_000);
      const r = await heartbeats(h, { worker_id: w, readings: [reading(h.clock.now() - 100, { position: { latitude: LAGOS.latitude + i * 0.001, longitude: LAGOS.longitude, accuracy_metres: 8 }, battery_percent: 90 - i })] });
      expect(r.body.accepted_count, r.text).toBe(1);
    }
    // a reading from the future is refused and never listed
    const bad = await heartbeats(h, { worker_id: w, readings: [reading(h.clock.now() + 3_600_000)] });
    expect(bad.body.rejected_count).toBe(1);

    const all = await h.request('GET', `/v1/allocation/heartbeats?worker_id=${w}`);
    expect(all.status, all.text).toBe(200);
    expect(all.body).toMatchObject({ object: 'list', has_more: false });
    expect(all.body.data.map((r: { battery_percent: number }) => r.battery_percent)).toEqual([88, 89, 90]);
    expect(all.body.data[0]).toMatchObject({ object: 'reading', worker_id: w, position: { latitude: LAGOS.latitude + 0.002 }, mock_location_detected: false });
    const two = await h.request('GET', `/v1/allocation/heartbeats?worker_id=${w}&limit=2`);
    expect(two.body.data).toHaveLength(2);
    expect(two.body.has_more).toBe(true);
  });

  it('another organisation\'s worker is 404; a device credential is refused', async () => {
    const w = workerId();
    await makeAvailable(h, w);
    const other = await h.register();
    const r = await h.request('GET', `/v1/allocation/heartbeats?worker_id=${w}`, { key: other.key });
    expect({ status: r.status, code: r.body.error.code }).toEqual({ status: 404, code: 'not_found' });
    const device = await h.request('GET', `/v1/allocation/heartbeats?worker_id=${w}`, { key: await deviceKey(h, w) });
    expect(device.status).toBe(403);
  });
});
