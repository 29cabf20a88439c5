/**
 * API clients of the load, on the platform's TypeScript client (clients/typescript): the
 * organisation's setup (registration or LOAD_API_KEY, one device credential and one worker record
 * per device) and readers of lists and records at a fixed rate. Dispatchers: dispatch.ts.
 */
import { randomBytes } from 'node:crypto';
import { createClient, PlatformError, type Client } from '../clients/typescript/src/index.ts';
import type { Metrics } from './metrics.ts';

/** A call's outcome as the load tool tallies it: the answer's body, or the refusal's status and code. */
export type Answer = { ok: true; body: any } | { ok: false; status: number; code: string; message: string; body?: undefined };

const clients = new Map<string, Client>();

/**
 * The platform's TypeScript client for one target and credential (clients/typescript), without
 * retries: the load tool counts each answer as the platform gave it. Kept per target and
 * credential, since a device's calls repeat.
 */
export function api(target: URL, key?: string): Client {
  const id = `${target.origin} ${key ?? ''}`;
  let c = clients.get(id);
  if (!c) clients.set(id, (c = createClient({ baseUrl: target.origin, apiKey: key, maxRetries: 0 })));
  return c;
}

/** Settles a client call into an Answer: a refusal or a dropped connection is an outcome to count, not a throw. */
export async function settle(p: PromiseLike<unknown>): Promise<Answer> {
  try {
    return { ok: true, body: await p };
  } catch (e) {
    if (e instanceof PlatformError) return { ok: false, status: e.status, code: e.code, message: e.message };
    const err = e as Error & { cause?: { cause?: { code?: string }; code?: string } };
    return { ok: false, status: 0, code: String(err.cause?.cause?.code ?? err.cause?.code ?? err.message), message: err.message };
  }
}

/** A sandbox organisation of the run's own (POST /v1/registrations): its first key. */
export async function register(base: URL, runId: string): Promise<string> {
  const r = await settle(api(base).registrations.create({
    organisation_name: `Load test ${runId}`, name: 'Load Tester', email: `load.${runId}@load-test.example`, password: `lt-${randomBytes(12).toString('base64url')}-${runId}`,
  }));
  if (!r.ok) throw new Error(`registration on ${base.origin} answered ${r.status} ${r.code}: ${r.message}`);
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
    const issued = await settle(api(target, key).allocation.deviceCredentials.create({ worker_id: w, name: 'load tool device' }, { idempotencyKey: `load-device-${run}-${i}` }));
    metrics.record('POST device_credentials', due, issued.ok ? undefined : issued.code);
    if (!issued.ok) throw new Error(`device credential of ${w}: ${issued.status} ${issued.message}`);
    const device = issued.body.key as string;
    devices.set(w, device);
    due = performance.now();
    const r = await settle(api(target, device).allocation.availability.replace(w, { availability: 'available' }));
    metrics.record('PUT availability', due, r.ok ? undefined : r.code);
    if (!r.ok) throw new Error(`availability of ${w}: ${r.status} ${r.message}`);
  }, tick);
  return devices;
}

/** Readers: list and record reads an API client makes, at `rate` a second over all targets. */
export function readers(targets: URL[], key: string, rate: number, workerIds: string[], city: { latitude: number; longitude: number; radiusMetres: number }, metrics: Metrics, random: () => number) {
  const reads: [string, (c: Client) => PromiseLike<unknown>][] = [
    ['GET supply (nearest 25)', (c) => c.allocation.supply.search({ latitude: city.latitude, longitude: city.longitude, radius_metres: Math.min(city.radiusMetres, 50_000), limit: 25 })],
    ['GET integrity_flags', (c) => c.allocation.integrityFlags.list({ limit: 20 })],
    ['GET availability/{worker}', (c) => c.allocation.availability.retrieve(workerIds[Math.floor(random() * workerIds.length)])],
    ['GET allocation events', (c) => c.allocation.events.list({ limit: 20 })],
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
        const [name, read] = reads[n % reads.length];
        const target = targets[n % targets.length];
        n++;
        inFlight++;
        settle(read(api(target, key)))
          .then((r) => metrics.record(name, due, r.ok ? undefined : r.code))
          .finally(() => inFlight--);
      }
    },
  };
}

/** The platform's own heartbeat counters of the organisation, summed over the targets (each node counts what it ingested). */
export async function platformCounters(targets: URL[], key: string): Promise<{ served: boolean; accepted: number; received: number; perNode: { target: string; accepted: number; received: number }[]; note?: string }> {
  const perNode = [];
  for (const t of targets) {
    const r = await settle(api(t, key).allocation.counters.retrieve());
    if (!r.ok && r.status === 404) return { served: false, accepted: 0, received: 0, perNode: [], note: `${t.origin} serves no GET /v1/allocation/counters` };
    if (!r.ok) throw new Error(`counters of ${t.origin}: ${r.status} ${r.code}: ${r.message}`);
    perNode.push({ target: t.origin, accepted: r.body.readings_accepted as number, received: r.body.readings_received as number });
  }
  return { served: true, accepted: perNode.reduce((a, p) => a + p.accepted, 0), received: perNode.reduce((a, p) => a + p.received, 0), perNode };
}
