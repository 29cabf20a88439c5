/**
 * Helpers of the delivery tests: a platform with the delivery area and a stand-in module area, a
 * real receiver on 127.0.0.1 that records the raw bytes, and calling routes as the gateway would.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { area as delivery } from '../../actors/delivery/index.ts';
import { defineActor, ManualClock, sortKeyTime } from '../../runtime/index.ts';
import { type Area, createPlatform, type Platform, type RouteDef, stopPlatform } from '../../kernel/index.ts';
import type { Stores } from '../../stores/index.ts';
import { testStores } from '../../support/stores.ts';

type RunEvent = { type: 'run.created' } | { type: 'run.approved' } | { type: 'run.noted'; note: string } | { type: 'run.completed' };

/** A stand-in payroll run: enough of a module kind to produce declared and undeclared events. */
export const FakeRun = defineActor({
  kind: 'fake_run',
  prefix: 'run_fake_',
  creates: ['create'],
  initial: (id: string) => ({ id, status: 'draft' as 'draft' | 'approved' | 'completed', notes: 0, created_at: 0 }),
  decide: {
    create: (): RunEvent[] => [{ type: 'run.created' }],
    approve: (): RunEvent[] => [{ type: 'run.approved' }],
    note: (_s: unknown, cmd: { note: string }): RunEvent[] => [{ type: 'run.noted', note: cmd.note }],
    /** Two events in one commit: each public event must carry the view as of itself. */
    approve_and_complete: (): RunEvent[] => [{ type: 'run.approved' }, { type: 'run.completed' }],
  },
  evolve(s, ev: RunEvent, meta) {
    switch (ev.type) {
      case 'run.created':
        return { ...s, created_at: meta.at };
      case 'run.approved':
        return { ...s, status: 'approved' as const };
      case 'run.noted':
        return { ...s, notes: s.notes + 1 };
      case 'run.completed':
        return { ...s, status: 'completed' as const };
    }
  },
  view: (s) => ({ id: s.id, object: 'fake_run', livemode: false, mocked: false, status: s.status, notes: s.notes }),
  indexes: (s) => [{ list: 'all', sortKey: sortKeyTime(s.created_at) }],
});

/** Named payroll so its kinds count as the payroll module (spec 1). */
export const fakePayroll: Area = {
  name: 'payroll',
  kinds: [FakeRun],
  routes: [],
  events: [
    { type: 'run.created', source: 'run', schemaVersion: 1, kind: 'fake_run', on: 'run.created', description: 'test stand-in', specGap: true },
    { type: 'run.approved', source: 'run', schemaVersion: 1, kind: 'fake_run', on: 'run.approved', description: 'test stand-in' },
    { type: 'payroll.run.completed', source: 'run', schemaVersion: 2, kind: 'fake_run', on: 'run.completed', description: 'test stand-in' },
  ],
};

export interface TestPlatform {
  platform: Platform;
  clock: ManualClock;
  stores: Stores;
  stop(): Promise<void>;
}

/**
 * The receivers below listen on 127.0.0.1, which webhooks may reach only with the development
 * setting (docs/gaps.md#delivery); the address-policy tests turn it off through `config`.
 */
export const LOCAL_RECEIVERS = { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' } as const;

export async function startPlatform(opts: { clock?: ManualClock; stores?: Stores; config?: Record<string, string> } = {}): Promise<TestPlatform> {
  const clock = opts.clock ?? new ManualClock();
  const stores = opts.stores ?? (await testStores(clock));
  const platform = await createPlatform({ areas: [delivery, fakePayroll], stores, clock, config: { ...LOCAL_RECEIVERS, ...opts.config } });
  return {
    platform,
    clock,
    stores,
    stop: () => stopPlatform(platform),
  };
}

/** Stop the platform but keep the stores open (a restart on the same stores). */
export async function stopKeepingStores(p: Platform): Promise<void> {
  await p.system.stop();
  for (const a of [...p.areas].reverse()) await a.stop?.(p);
}

// -------------------------------------------------------------------------------------------------
// Calling routes as the gateway does (until the HTTP harness exists).

export interface Caller {
  org: string;
  livemode?: boolean;
}

export async function call(platform: Platform, method: string, path: string, who: Caller, input: { body?: unknown; query?: Record<string, unknown> } = {}): Promise<any> {
  const [pathname] = path.split('?');
  for (const area of platform.areas) {
    for (const r of area.routes as RouteDef[]) {
      if (r.method !== method) continue;
      const params = match(r.path, pathname);
      if (!params) continue;
      return r.handler({
        params, query: input.query ?? {}, body: input.body, headers: {},
        principal: { kind: 'api_key', id: 'api_key_test', org: who.org, livemode: who.livemode ?? false, scopes: new Set() },
        org: who.org, livemode: who.livemode ?? false, requestId: `req_test${Math.random().toString(36).slice(2, 10)}`, platform,
      } as never);
    }
  }
  throw new Error(`no route ${method} ${path}`);
}

function match(template: string, path: string): Record<string, string> | undefined {
  const t = template.split('/');
  const p = path.split('/');
  if (t.length !== p.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < t.length; i++) {
    if (t[i].startsWith('{')) params[t[i].slice(1, -1)] = decodeURIComponent(p[i]);
    else if (t[i] !== p[i]) return undefined;
  }
  return params;
}

// -------------------------------------------------------------------------------------------------
// A receiver on 127.0.0.1: records every request's raw bytes; answers as `respond` says.

export interface Received {
  raw: Buffer;
  signature: string;
  body: any;
}

export type Respond = (req: Received, n: number) => number | 'hang';

export interface Receiver {
  url: string;
  received: Received[];
  respond: Respond;
  close(): Promise<void>;
}

export async function startReceiver(respond: Respond = () => 200): Promise<Receiver> {
  const received: Received[] = [];
  const hanging: http.ServerResponse[] = [];
  const r: Receiver = { url: '', received, respond, close: async () => {} };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const rec: Received = { raw, signature: String(req.headers['service-signature'] ?? ''), body: JSON.parse(raw.toString('utf8')) };
      received.push(rec);
      const answer = r.respond(rec, received.length);
      if (answer === 'hang') hanging.push(res);
      else res.writeHead(answer, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  r.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  r.close = async () => {
    for (const h of hanging) h.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return r;
}

/**
 * Spec 6.2 verification written here independently of the platform's signing code: parse the
 * header, HMAC-SHA256 over `${t}.` + the raw bytes, constant-time compare, 5-minute tolerance.
 */
export function verifies(rec: Received, secret: string, nowMs: number): boolean {
  const parts = rec.signature.split(',').map((p) => p.split('='));
  const t = parts.find(([k]) => k === 't')?.[1];
  if (t === undefined || Math.floor(nowMs / 1000) - Number(t) > 300) return false;
  const expected = createHmac('sha256', secret).update(Buffer.concat([Buffer.from(`${t}.`), rec.raw])).digest();
  return parts.filter(([k]) => k === 'v1').some(([, hex]) => {
    const got = Buffer.from(hex, 'hex');
    return got.length === expected.length && timingSafeEqual(got, expected);
  });
}

export const signatureCount = (rec: Received) => rec.signature.split(',').filter((p) => p.startsWith('v1=')).length;
