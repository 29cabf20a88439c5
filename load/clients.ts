/**
 * API clients of the load: the organisation's setup (registration or LOAD_API_KEY, one device
 * credential and one worker record per device) and readers of lists and records at a fixed rate. Dispatchers: dispatch.ts.
 */
import { randomBytes } from 'node:crypto';
import type { Metrics } from './metrics.ts';

export interface Answer {
  status: number;
  body: any;
}

export async function call(base: URL, method: string, path: string, key: string | undefined, body?: unknown, idempotencyKey?: string): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (key) headers['service-api-key'] = key;
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
  const res = await fetch(new URL(path, base), { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  let parsed: unknown;
  try { parsed = text ? JSON.parse(text) : undefined; } catch { parsed = text; }
  return { status: res.status, body: parsed };
}

/** A sandbox organisation of the run's own (POST /v1/registrations): its first key. */
export async function register(base: URL, runId: string): Promise<string> {
  const r = await call(base, 'POST', '/v1/registrations', undefined, {
    organisation_name: `Load test ${runId}`, name: 'Load Tester', email: `load.${runId}@load-test.example`, password: `lt-${randomBytes(12).toString('base64url')}-${runId}`,
  });
  if (r.status !== 200) throw new Error(`registration on ${base.origin} answered ${r.status}: ${JSON.stringify(r.body)}`);
  return r.body.api_key.key as string;
}

/** Runs `fn` over `items` with at most `width` at once; `done` after each. */
export async function pool<T>(items: readonly T[], width: number, fn: (x: T, i: number) => Promise<void>, done?: () => void): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      await fn(items[i], i);
      done?.();
    }
  }));
}

/**
 * Gives each device its worker's device credential (POST /v1/allocation/device_credentials, issued
 * by the organisation) and makes the worker available with it, as the worker's own device does
 * (PUT /v1/allocation/availability/{worker_id}; spec 4.7: an organisation key cannot). Returns
 * each worker's device credential.
 */
export async function makeAvailable(targets: URL[], key: string, workerIds: string[], metrics: Metrics, tick: () => void): Promise<Map<string, string>> {
  const devices = new Map<string, string>();
  const run = randomBytes(6).toString('hex');
  await pool(workerIds, 64, async (w, i) => {
    const target = targets[i % targets.length];
    let due = performance.now();
    const issued = await call(target, 'POST', '/v1/allocation/device_credentials', key, { worker_id: w, name: 'load tool device' }, `load-device-${run}-${i}`);
    metrics.record('POST device_credentials', due, issued.status === 201 ? undefined : String(issued.body?.error?.code ?? issued.status));
    if (issued.status !== 201) throw new Error(`device credential of ${w}: ${issued.status} ${JSON.stringify(issued.body)}`);
    const device = issued.body.key as string;
    devices.set(w, device);
    due = performance.now();
    const r = await call(target, 'PUT', `/v1/allocation/availability/${encodeURIComponent(w)}`, device, { availability: 'available' });
    metrics.record('PUT availability', due, r.status === 200 ? undefined : String(r.body?.error?.code ?? r.status));
    if (r.status !== 200) throw new Error(`availability of ${w}: ${r.status} ${JSON.stringify(r.body)}`);
  }, tick);
  return devices;
}

/** Readers: list and record reads an API client makes, at `rate` a second over all targets. */
export function readers(targets: URL[], key: string, rate: number, workerIds: string[], city: { latitude: number; longitude: number; radiusMetres: number }, metrics: Metrics, random: () => number) {
  const reads: [string, () => string][] = [
    ['GET supply (nearest 25)', () => `/v1/allocation/supply?latitude=${city.latitude}&longitude=${city.longitude}&radius_metres=${Math.min(city.radiusMetres, 50_000)}&limit=25`],
    ['GET integrity_flags', () => '/v1/allocation/integrity_flags?limit=20'],
    ['GET availability/{worker}', () => `/v1/allocation/availability/${encodeURIComponent(workerIds[Math.floor(random() * workerIds.length)])}`],
    ['GET allocation events', () => '/v1/allocation/events?limit=20'],
  ];
  let n = 0;
  let inFlight = 0;
  return {
    get inFlight() { return inFlight; },
    /** Issues every read due by `now` since `from` (open loop: a slow target does not slow the schedule). */
    issue(startedAt: number, now: number): void {
      if (rate <= 0) return;
      while (startedAt + (n * 1000) / rate <= now) {
        const due = startedAt + (n * 1000) / rate;
        const [name, path] = reads[n % reads.length];
        const target = targets[n % targets.length];
        n++;
        inFlight++;
        call(target, 'GET', path(), key)
          .then((r) => metrics.record(name, due, r.status === 200 ? undefined : String(r.body?.error?.code ?? r.status)))
          .catch((e) => metrics.record(name, due, String(e.cause?.code ?? e.message)))
          .finally(() => inFlight--);
      }
    },
  };
}

/** The platform's own heartbeat counters of the organisation, summed over the targets (each node counts what it ingested). */
export async function platformCounters(targets: URL[], key: string): Promise<{ served: boolean; accepted: number; received: number; perNode: { target: string; accepted: number; received: number }[]; note?: string }> {
  const perNode = [];
  for (const t of targets) {
    const r = await call(t, 'GET', '/v1/allocation/counters', key);
    if (r.status === 404) return { served: false, accepted: 0, received: 0, perNode: [], note: `${t.origin} serves no GET /v1/allocation/counters` };
    if (r.status !== 200) throw new Error(`counters of ${t.origin}: ${r.status} ${JSON.stringify(r.body)}`);
    perNode.push({ target: t.origin, accepted: r.body.readings_accepted as number, received: r.body.readings_received as number });
  }
  return { served: true, accepted: perNode.reduce((a, p) => a + p.accepted, 0), received: perNode.reduce((a, p) => a + p.received, 0), perNode };
}
