/** Helpers for the allocation tests: readings, batches, availability; the WebSocket client is support/ws.ts. */
import { workerActorId } from '../../actors/allocation/index.ts';
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

let dk = 0;
/** Device credentials issued per harness, organisation key and worker (spec 4.7: one per worker's device). */
const devices = new WeakMap<Harness, Map<string, string>>();

/** Issues (once) a device credential for the worker in the organisation of `key` (default the harness key); returns its secret. */
export async function deviceKey(h: Harness, worker: string, key?: string): Promise<string> {
  let m = devices.get(h);
  if (!m) devices.set(h, (m = new Map()));
  const k = `${key ?? h.key}|${worker}`;
  let secret = m.get(k);
  if (secret === undefined) {
    const r = await h.request('POST', '/v1/allocation/device_credentials', { body: { worker_id: worker }, key, idempotencyKey: `dk-${process.pid}-${++dk}` });
    if (r.status !== 201) throw new Error(`device credential: ${r.status} ${r.text}`);
    secret = r.body.key as string;
    m.set(k, secret);
  }
  return secret;
}

/** The worker sets their availability with their own device credential (spec 4.7: an organisation key cannot). */
export async function setAvailability(h: Harness, worker: string, availability: string, key?: string) {
  return h.request('PUT', `/v1/allocation/availability/${worker}`, { body: { availability }, key: await deviceKey(h, worker, key) });
}

export async function makeAvailable(h: Harness, worker: string, key?: string) {
  const r = await setAvailability(h, worker, 'available', key);
  if (r.status !== 200) throw new Error(`availability: ${r.status} ${r.text}`);
  return r.body;
}

/** What the ReadingStore holds for an organisation's worker (kept under the worker's actor id). */
export const storedReadings = (h: Harness, worker: string, org = h.org) => h.platform.stores.readings.range(workerActorId(org, worker), 0, Infinity);

let ik = 0;
export const heartbeats = (h: Harness, body: unknown, key?: string) =>
  h.request('POST', '/v1/allocation/heartbeats', { body, idempotencyKey: `ik-${process.pid}-${++ik}`, key });

export { connect } from '../../support/ws.ts';
