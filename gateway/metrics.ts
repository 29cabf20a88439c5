/**
 * What an operator watches the platform with (docs/gaps.md#metrics): Prometheus metrics from one
 * registry per gateway, served in the text format on a port of their own (METRICS_PORT, default
 * 9464, on HOST), which like the operator socket is internal and carries no credential. prom-client
 * does the format, the histograms and the process's own figures (memory, CPU, event-loop delay,
 * collected on the serving process only); the platform adds requests by route, method, status and
 * organisation class with their latency (tallied by the gateway itself, read by the registry at a
 * scrape), and the runtime's figures (resident actors, mailbox depth,
 * turns in flight and uncommitted, passivations) read at each scrape.
 */
import { createServer, type Server } from 'node:http';
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import type { Platform } from '../kernel/index.ts';

/** Seconds: the gateway answers in a millisecond or less when idle, a slow store or a wait stretches it. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/** Who a request came from, as a label with a handful of values: never an organisation id. */
export type OrgClass = 'sandbox' | 'live' | 'none';

/** One route, method, status and organisation class: its count, and its latencies by bucket. */
interface Tally {
  labels: { route: string; method: string; status: string; org_class: OrgClass };
  count: number;
  sum: number;
  /** Not cumulative: the answers whose latency fell in each bucket (the last: above every bound). */
  buckets: Float64Array;
}

/**
 * A metric prom-client's registry formats (its `get()` contract), read from tallies the gateway
 * keeps itself: counting a request is a map lookup and a few additions, not a label hash per
 * metric per request as prom-client's own counters and histograms do.
 */
interface ReadMetric {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  aggregator: 'sum';
  get(): { name: string; help: string; type: string; aggregator: 'sum'; values: { metricName?: string; labels: Record<string, string | number>; value: number }[] };
  reset(): void;
}

export class GatewayMetrics {
  readonly registry = new Registry();
  private readonly tallies = new Map<string, Tally>();

  constructor(platform: Platform) {
    this.registry.registerMetric(this.requestsMetric() as never);
    this.registry.registerMetric(this.latencyMetric() as never);
    const runtime: Array<[string, string, 'resident' | 'mailboxDepth' | 'turnsInFlight' | 'uncommittedTurns']> = [
      ['platform_actors_resident', 'Actors held in memory now (the rest are passivated to the stores).', 'resident'],
      ['platform_mailbox_depth', 'Commands waiting in the resident actors\' mailboxes now.', 'mailboxDepth'],
      ['platform_turns_in_flight', 'Actors queued, activating for a turn, or with a commit in flight.', 'turnsInFlight'],
      ['platform_turns_uncommitted', 'Turns answered or deciding whose commit is not yet written.', 'uncommittedTurns'],
    ];
    for (const [name, help, field] of runtime) {
      new Gauge({
        name,
        help,
        registers: [this.registry],
        collect() {
          this.set(platform.system.figures()[field]);
        },
      });
    }
    new Counter({
      name: 'platform_passivations_total',
      help: 'Actors passivated to the stores since start (idle, or shed above the resident limit).',
      registers: [this.registry],
      collect() {
        this.reset();
        this.inc(platform.system.figures().passivations);
      },
    });
  }

  /** One answered request; `route` is the declared path template, or `unmatched`. */
  observe(route: string, method: string, status: number, orgClass: OrgClass, seconds: number): void {
    const key = `${route} ${method} ${status} ${orgClass}`;
    let t = this.tallies.get(key);
    if (t === undefined) this.tallies.set(key, (t = { labels: { route, method, status: String(status), org_class: orgClass }, count: 0, sum: 0, buckets: new Float64Array(LATENCY_BUCKETS.length + 1) }));
    t.count++;
    t.sum += seconds;
    let i = 0;
    while (i < LATENCY_BUCKETS.length && seconds > LATENCY_BUCKETS[i]) i++;
    t.buckets[i]++;
  }

  private requestsMetric(): ReadMetric {
    const tallies = this.tallies;
    const name = 'platform_http_requests_total';
    const help = 'HTTP requests answered, by route template, method, status and organisation class.';
    const values = () => [...tallies.values()].map((t) => ({ labels: t.labels, value: t.count }));
    return { name, help, type: 'counter', aggregator: 'sum', reset() {}, get: () => ({ name, help, type: 'counter', aggregator: 'sum', values: values() }) };
  }

  private latencyMetric(): ReadMetric {
    const tallies = this.tallies;
    const name = 'platform_http_request_duration_seconds';
    const help = 'Time from a request handed to the pipeline to its answer, by route template, method, status and organisation class.';
    const values = () => {
      const out: ReturnType<ReadMetric['get']>['values'] = [];
      for (const t of tallies.values()) {
        let below = 0;
        for (let i = 0; i < LATENCY_BUCKETS.length; i++) {
          below += t.buckets[i];
          out.push({ metricName: `${name}_bucket`, labels: { ...t.labels, le: LATENCY_BUCKETS[i] }, value: below });
        }
        out.push({ metricName: `${name}_bucket`, labels: { ...t.labels, le: '+Inf' }, value: t.count });
        out.push({ metricName: `${name}_sum`, labels: t.labels, value: t.sum }, { metricName: `${name}_count`, labels: t.labels, value: t.count });
      }
      return out;
    };
    return { name, help, type: 'histogram', aggregator: 'sum', reset() {}, get: () => ({ name, help, type: 'histogram', aggregator: 'sum', values: values() }) };
  }
}

export interface MetricsServer {
  port: number;
  close(): Promise<void>;
}

/** Serves `GET /metrics` on its own port; also gathers the process's own figures from then on. */
export async function serveMetrics(metrics: GatewayMetrics, opts: { host: string; port: number }): Promise<MetricsServer> {
  collectDefaultMetrics({ register: metrics.registry });
  const server: Server = createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('metrics are at GET /metrics\n');
      return;
    }
    metrics.registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
      (e) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`metrics could not be gathered: ${(e as Error).message}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(opts.port, opts.host, () => resolve()));
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : opts.port,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
