/**
 * Prometheus metrics (docs/gaps.md#metrics; gateway/metrics.ts), over real sockets: the metrics
 * port answers GET /metrics in the text exposition format (every line a comment, a HELP or TYPE
 * line, or a sample a strict parser reads); the request counter of a route matches the requests
 * sent to it, by method, status and organisation class; its latency histogram counts as many;
 * the resident actors and the process's own figures are there; webhook attempts are counted by
 * outcome, password checks, journal appends and reminders fired as they happen, and every store
 * answers its probe; another path is 404.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveMetrics, type MetricsServer } from '../../gateway/index.ts';
import { startHarness, type Harness } from '../../support/http.ts';
import { connect } from '../../support/ws.ts';
import { HEARTBEAT_SOCKET_PATH } from '../../actors/allocation/index.ts';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The text format (prometheus.io/docs/instrumenting/exposition_formats): throws on a line it does not read. */
function parsePrometheus(text: string): Sample[] {
  const out: Sample[] = [];
  // values as Go's ParseFloat reads them, which Prometheus uses: NaN and Inf in any case
  const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (-?[0-9.eE+-]+|[nN][aA][nN]|[+-]?[iI][nN][fF])(?: -?\d+)?$/;
  const label = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?/gy;
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) {
      if (line.startsWith('# TYPE ') && !/^# TYPE \S+ (counter|gauge|histogram|summary|untyped)$/.test(line)) throw new Error(`bad TYPE line: ${line}`);
      continue;
    }
    const m = sample.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    if (m[2]) {
      label.lastIndex = 0;
      let at = 0;
      for (let l = label.exec(m[2]); l; l = label.exec(m[2])) {
        labels[l[1]] = l[2];
        at = label.lastIndex;
      }
      if (at !== m[2].length) throw new Error(`unreadable labels: ${line}`);
    }
    const v = m[3].toLowerCase();
    out.push({ name: m[1], labels, value: v === 'nan' ? NaN : v.endsWith('inf') ? (v.startsWith('-') ? -Infinity : Infinity) : Number(v) });
  }
  return out;
}

let h: Harness;
let server: MetricsServer;
beforeAll(async () => {
  // the webhook receivers below listen on 127.0.0.1 (docs/gaps.md#delivery "Development setting")
  h = await startHarness({ config: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' } });
  server = await serveMetrics(h.gateway.metrics, { host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  await server?.close();
  await h?.close();
});

const scrape = async () => {
  const r = await fetch(`http://127.0.0.1:${server.port}/metrics`);
  expect(r.status).toBe(200);
  expect(r.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parsePrometheus(await r.text());
};

describe('metrics (docs/gaps.md#metrics)', () => {
  it('the request counter and latency histogram of a route match the requests sent, by method, status and organisation class', async () => {
    const route = '/v1/allocation/assignments/{assignment_id}';
    const count = (samples: Sample[], status: string) => samples.find((s) => s.name === 'platform_http_requests_total' && s.labels.route === route && s.labels.method === 'GET' && s.labels.status === status && s.labels.org_class === 'sandbox')?.value ?? 0;
    const before = await scrape();
    for (let i = 0; i < 7; i++) expect((await h.request('GET', '/v1/allocation/assignments/asg_nosuchassignment0000000')).status).toBe(404);
    for (let i = 0; i < 3; i++) expect((await h.request('GET', '/v1/allocation/assignments/asg_nosuchassignment0000000', { key: 'sk_test_notakey' })).status).toBe(401);
    const after = await scrape();
    expect(count(after, '404') - count(before, '404')).toBe(7);
    // a request refused before its credential is known has no organisation class
    const refused = (samples: Sample[]) => samples.find((s) => s.name === 'platform_http_requests_total' && s.labels.route === route && s.labels.status === '401' && s.labels.org_class === 'none')?.value ?? 0;
    expect(refused(after) - refused(before)).toBe(3);
    const histogramCount = (samples: Sample[]) => samples.find((s) => s.name === 'platform_http_request_duration_seconds_count' && s.labels.route === route && s.labels.method === 'GET' && s.labels.org_class === 'sandbox')?.value ?? 0;
    expect(histogramCount(after) - histogramCount(before)).toBe(7);
    const unmatched = await h.request('GET', '/v1/no_such_thing');
    expect(unmatched.status).toBe(404);
    expect((await scrape()).some((s) => s.name === 'platform_http_requests_total' && s.labels.route === 'unmatched' && s.labels.org_class === 'none')).toBe(true);
  });

  it("the runtime's figures (resident actors, mailbox depth, turns, passivations) and the process's own are served; another path is 404", async () => {
    const samples = await scrape();
    expect(samples.find((s) => s.name === 'platform_actors_resident')!.value).toBeGreaterThan(0);
    for (const name of ['platform_mailbox_depth', 'platform_turns_in_flight', 'platform_turns_uncommitted', 'platform_passivations_total']) expect(samples.find((s) => s.name === name)?.value).toBeGreaterThanOrEqual(0);
    await h.platform.system.passivateIdle(0);
    expect((await scrape()).find((s) => s.name === 'platform_passivations_total')!.value).toBeGreaterThan(0);
    expect(samples.some((s) => s.name === 'process_resident_memory_bytes' && s.value > 0)).toBe(true);
    expect((await fetch(`http://127.0.0.1:${server.port}/other`)).status).toBe(404);
  });

  it('every metric the Grafana dashboard (docs/grafana-dashboard.json) plots is served', async () => {
    const dashboard = JSON.parse(readFileSync(new URL('../../docs/grafana-dashboard.json', import.meta.url), 'utf8')) as { panels: { targets: { expr: string }[] }[] };
    const plotted = new Set(dashboard.panels.flatMap((p) => p.targets.flatMap((t) => t.expr.match(/\b(?:platform|process|nodejs)_[a-z0-9_]+/g) ?? [])));
    expect(plotted.size).toBeGreaterThan(5);
    const served = new Set((await scrape()).map((s) => s.name));
    expect([...plotted].filter((m) => !served.has(m))).toEqual([]);
  });

  it('webhook attempts are counted by outcome, with the queue and outbound connections; password checks, journal appends and reminders fired count as they happen', async () => {
    const receiver = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(req.url === '/fail' ? 500 : 200).end());
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    try {
      const value = (samples: Sample[], name: string, labels: Record<string, string> = {}) =>
        samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value ?? NaN;
      const before = await scrape();
      for (const path of ['/ok', '/fail']) {
        const ep = await h.request('POST', '/v1/webhook_endpoints', { body: { url: base + path }, idempotencyKey: `metrics-${path}` });
        expect(ep.status).toBe(200);
        expect((await h.request('POST', `/v1/webhook_endpoints/${ep.body.id}/test`, { body: {} })).status).toBe(200);
      }
      await h.platform.system.settle();
      expect((await h.request('POST', '/v1/sessions', { key: null, body: { email: h.registration.email, password: 'not the password at all' } })).status).toBe(401);
      const after = await scrape();
      const delta = (name: string, labels?: Record<string, string>) => value(after, name, labels) - value(before, name, labels);
      expect(delta('platform_webhook_attempts_total', { outcome: '2xx' })).toBe(1);
      expect(delta('platform_webhook_attempts_total', { outcome: 'non_2xx' })).toBe(1);
      expect(delta('platform_webhook_attempts_total', { outcome: 'timeout' })).toBe(0);
      expect(value(after, 'platform_webhook_attempts_queued')).toBe(0);
      expect(value(after, 'platform_webhook_attempts_in_flight')).toBe(0);
      expect(value(after, 'platform_webhook_connections_open')).toBeGreaterThanOrEqual(1); // kept alive for the next attempt
      expect(delta('platform_password_checks_total')).toBe(1);
      expect(value(after, 'platform_password_checks_running')).toBe(0);
      expect(delta('platform_journal_appends_total')).toBeGreaterThan(0);
      expect(delta('platform_journal_append_seconds_total')).toBeGreaterThanOrEqual(0);

      // the failed attempt's retry is a durable reminder, 10 s later (spec 6.3)
      await h.clock.advance(10_000);
      await h.platform.system.settle();
      const later = await scrape();
      expect(value(later, 'platform_reminders_fired_total') - value(after, 'platform_reminders_fired_total')).toBeGreaterThanOrEqual(1);
      expect(value(later, 'platform_webhook_attempts_total', { outcome: 'non_2xx' }) - value(after, 'platform_webhook_attempts_total', { outcome: 'non_2xx' })).toBe(1);
      expect(value(later, 'platform_reminders_late_seconds')).toBe(0);
      // the event feed has read every commit (the registration and the deliveries are behind it)
      expect(value(later, 'platform_feed_lag_entries', { reader: 'delivery:feed' })).toBe(0);
    } finally {
      receiver.closeAllConnections();
      await new Promise<void>((r) => receiver.close(() => r()));
    }
  });

  it('WebSocket connections open and frames read are served from the transport\'s own tallies', async () => {
    const value = (samples: Sample[], name: string) => samples.find((x) => x.name === name)?.value;
    const before = await scrape();
    const socket = await connect(`http://127.0.0.1:${h.port}${HEARTBEAT_SOCKET_PATH}`, { 'service-api-key': h.key });
    try {
      for (let i = 0; i < 3; i++) {
        socket.send(JSON.stringify({ worker_id: `metrics_w_${process.pid}`, readings: [] }));
        await socket.next();
      }
      const during = await scrape();
      expect(value(during, 'platform_socket_connections')).toBe((value(before, 'platform_socket_connections') ?? 0) + 1);
      expect(value(during, 'platform_socket_frames_total')).toBe((value(before, 'platform_socket_frames_total') ?? 0) + 3);
      expect(value(during, 'platform_rate_limit_held')).toBe(0);
    } finally {
      socket.close();
    }
  });

  it('every store answers its probe at a scrape: up 1, with the time it took', async () => {
    const samples = await scrape();
    for (const store of ['journal', 'snapshots', 'reminders', 'kv', 'indexes']) {
      expect(samples.find((s) => s.name === 'platform_store_up' && s.labels.store === store)?.value, store).toBe(1);
      expect(samples.find((s) => s.name === 'platform_store_probe_seconds' && s.labels.store === store)?.value, store).toBeGreaterThanOrEqual(0);
    }
  });
});
