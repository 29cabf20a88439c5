/** Helpers for the allocation tests: readings, batches, availability; the WebSocket client is support/ws.ts. */
import { workerActorId } from '../../actors/allocation/worker.ts';
import type { Harness } from '../../support/http.ts';

export const LAGOS = { latitude: 6.5244, longitude: 3.3792 };

export function reading(at: number, over: Record<string, unknown> = {}) {
  return {
    recorded_at: new Date(at).toISOString(),
    position: { latitude: LAGOS.latitude, longitude: LAGOS.longitude, accuracy_metres: 8 },
    connectivity: 'good',
    availability: 'available',
    battery_percent: 80,
    mock_location_detected: false,
    device_integrity_attested: true,
    ...over,
  };
}

let n = 0;
export const workerId = (suffix = '') => `wrk_test_${process.pid}_${++n}${suffix}`;

export async function makeAvailable(h: Harness, worker: string, key?: string) {
  const r = await h.request('PUT', `/v1/allocation/availability/${worker}`, { body: { availability: 'available' }, key });
  if (r.status !== 200) throw new Error(`availability: ${r.status} ${r.text}`);
  return r.body;
}

/** What the ReadingStore holds for an organisation's worker (kept under the worker's actor id). */
export const storedReadings = (h: Harness, worker: string, org = h.org) => h.platform.stores.readings.range(workerActorId(org, worker), 0, Infinity);

let ik = 0;
export const heartbeats = (h: Harness, body: unknown, key?: string) =>
  h.request('POST', '/v1/allocation/heartbeats', { body, idempotencyKey: `ik-${process.pid}-${++ik}`, key });

export { connect } from '../../support/ws.ts';
