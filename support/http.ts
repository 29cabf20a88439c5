/**
 * HTTP test harness: a platform with every area of actors/index.ts (the test store family of
 * support/stores.ts: memory, or NATS/Redis under TEST_STORES=cluster; a ManualClock),
 * the real gateway on port 0, and one registered organisation. Tests talk to it through a real
 * socket:
 *
 *   const h = await startHarness();
 *   const r = await h.request('GET', '/v1/api_keys');          // with h.key
 *   const other = await h.register();                          // a second organisation
 *   await h.request('GET', '/v1/x', { key: other.key });
 *   await h.clock.advance(15 * 60_000);
 *   await h.close();
 */
import { areas as allAreas } from '../actors/index.ts';
import { startGateway, type Gateway } from '../gateway/index.ts';
import { type Area, createPlatform, type Platform, stopPlatform } from '../kernel/index.ts';
import { ManualClock } from '../runtime/index.ts';
import type { Stores } from '../stores/index.ts';
import { testStores } from './stores.ts';
import { jsonCall } from './node-http.ts';

export interface HttpResponse<T = any> {
  status: number;
  headers: Record<string, string>;
  body: T;
  text: string;
}

export interface RequestOptions {
  body?: unknown;
  /** Extra headers (lower- or mixed-case). */
  headers?: Record<string, string>;
  /** API key or access token sent as Service-Api-Key; null sends none. Default: the harness key. */
  key?: string | null;
  /** Sends the credential as Authorization: Bearer instead of Service-Api-Key. */
  bearer?: boolean;
  /** Service-Session token. */
  session?: string;
  /** Idempotency-Key header. */
  idempotencyKey?: string;
}

export interface Registered {
  org: string;
  key: string;
  keyId: string;
  session: string;
  email: string;
  password: string;
  body: any;
}

export interface Harness {
  url: string;
  port: number;
  clock: ManualClock;
  platform: Platform;
  /** The first sandbox key of the harness organisation (every named scope). */
  key: string;
  session: string;
  org: string;
  registration: Registered;
  request<T = any>(method: string, path: string, opts?: RequestOptions): Promise<HttpResponse<T>>;
  /** Registers another organisation; returns its key and session. */
  register(overrides?: Partial<{ organisation_name: string; name: string; email: string; password: string }>): Promise<Registered>;
  close(): Promise<void>;
  /** The gateway itself (its metrics). */
  gateway: Gateway;
  /** Closes only the gateway (a graceful stop), leaving the platform up. */
  gatewayClose(): Promise<void>;
}

export interface HarnessOptions {
  areas?: readonly Area[];
  clock?: ManualClock;
  config?: Record<string, string | undefined>;
  maxBodyBytes?: number;
  /** Stores to use instead of the test family's fresh ones. */
  stores?: Stores;
}

let counter = 0;

export async function startHarness(opts: HarnessOptions = {}): Promise<Harness> {
  const clock = opts.clock ?? new ManualClock();
  const stores = opts.stores ?? (await testStores(clock));
  const platform = await createPlatform({ areas: opts.areas ?? allAreas, stores, clock, config: opts.config ?? {} });
  const gateway = await startGateway(platform, { host: '127.0.0.1', port: 0, maxBodyBytes: opts.maxBodyBytes });
  const url = `http://127.0.0.1:${gateway.port}`;
  let defaultKey: string | null = null;

  async function request<T>(method: string, path: string, o: RequestOptions = {}): Promise<HttpResponse<T>> {
    const headers: Record<string, string> = {};
    const key = o.key === undefined ? defaultKey : o.key;
    if (key) {
      if (o.bearer) headers['authorization'] = `Bearer ${key}`;
      else headers['service-api-key'] = key;
    }
    if (o.session) headers['service-session'] = o.session;
    if (o.idempotencyKey !== undefined) headers['idempotency-key'] = o.idempotencyKey;
    let body: string | undefined;
    if (o.body !== undefined) {
      body = typeof o.body === 'string' ? o.body : JSON.stringify(o.body);
      headers['content-type'] = 'application/json';
    }
    Object.assign(headers, o.headers ?? {});
    const res = await fetch(url + path, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      /* not JSON: keep the text */
    }
    const h: Record<string, string> = {};
    res.headers.forEach((v, k) => (h[k] = v));
    return { status: res.status, headers: h, body: parsed as T, text };
  }

  async function register(overrides: Partial<{ organisation_name: string; name: string; email: string; password: string }> = {}): Promise<Registered> {
    const n = ++counter;
    const input = {
      organisation_name: `Harness Works ${n}`,
      name: `Ada Obi ${n}`,
      email: `owner${n}.${process.pid}@example.ng`,
      password: 'violet-harmattan-7-kettle',
      ...overrides,
    };
    // on a connection of its own that ends with the answer: a keep-alive one fetch left idle would
    // hold a graceful close (test/gateway/graceful.test.ts) until fetch drops it
    const r = await jsonCall(gateway.port, 'POST', '/v1/registrations', {}, input, { agent: false, timeoutMs: 30_000 });
    if (r.status !== 200) throw new Error(`harness registration failed: ${r.status} ${JSON.stringify(r.body)}`);
    return { org: r.body.organisation.id, key: r.body.api_key.key, keyId: r.body.api_key.id, session: r.body.session.token, email: input.email, password: input.password, body: r.body };
  }

  const first = await register();
  defaultKey = first.key;

  return {
    url,
    port: gateway.port,
    clock,
    platform,
    gateway,
    key: first.key,
    session: first.session,
    org: first.org,
    registration: first,
    request,
    register,
    gatewayClose: () => gateway.close(),
    async close() {
      // No grace: a graceful close waits for idle keep-alive connections, which fetch keeps 4 s.
      await gateway.close(0);
      await stopPlatform(platform);
    },
  };
}
