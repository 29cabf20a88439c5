/**
 * What an operator watches the platform with (docs/gaps.md#metrics): Prometheus metrics from one
 * registry per gateway, served in the text format on a port of their own (METRICS_PORT, default
 * 9464, on HOST), which like the operator socket is internal and carries no credential. prom-client
 * does the format, the histograms and the process's own figures (memory, CPU, event-loop delay,
 * collected on the serving process only); the platform adds requests by route, method, status and
 * organisation class with their latency (tallied by the gateway itself, read by the registry at a
 * scrape), the runtime's figures (resident actors, mailbox depth, turns in flight and uncommitted,
 * passivations, journal appends and their time, reminders fired, postponed and late), the health
 * of each store (a read probe with a time limit, at the scrape), and the figures the areas add on
 * the runtime's board (webhook attempts by outcome, their queue, outbound connections, password
 * checks), all read at each scrape: nothing here costs a request more than its own tally.
 */
import { createServer, type Server } from 'node:http';
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import type { Platform } from '../kernel/index.ts';
import type { Figure, RuntimeFigures } from '../runtime/index.ts';

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

type TallyByClass = Record<OrgClass, Tally | undefined>;

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
  /** Every tally, in the order first seen (what a scrape reads). */
  private readonly tallies: Tally[] = [];
  /**
   * The tallies by route, method, status and organisation class, one level each: the route and
   * method strings are the same few every time, so each lookup hashes little and nothing is joined
   * into a key per request.
   */
  private readonly index = new Map<string, Map<string, Map<number, TallyByClass>>>();

  constructor(private readonly platform: Platform) {
    this.registry.registerMetric(this.requestsMetric() as never);
    this.registry.registerMetric(this.latencyMetric() as never);
    this.runtimeMetrics();
    this.storeMetrics();
  }

  /** The whole exposition: the registry's metrics, then the figures the areas put on the runtime's board. */
  async text(): Promise<string> {
    const [own, board] = await Promise.all([this.registry.metrics(), this.platform.system.board.read()]);
    return (own === '' || own.endsWith('\n') ? own : `${own}\n`) + boardText(board);
  }

  private runtimeMetrics(): void {
    const { platform, registry } = this;
    const gauges: Array<[string, string, keyof RuntimeFigures]> = [
      ['platform_actors_resident', 'Actors held in memory now (the rest are passivated to the stores).', 'resident'],
      ['platform_mailbox_depth', 'Commands waiting in the resident actors\' mailboxes now.', 'mailboxDepth'],
      ['platform_turns_in_flight', 'Actors queued, activating for a turn, or with a commit in flight.', 'turnsInFlight'],
      ['platform_turns_uncommitted', 'Turns answered or deciding whose commit is not yet written.', 'uncommittedTurns'],
    ];
    for (const [name, help, field] of gauges) {
      new Gauge({
        name,
        help,
        registers: [registry],
        collect() {
          this.set(platform.system.figures()[field]);
        },
      });
    }
    const counters: Array<[string, string, keyof RuntimeFigures]> = [
      ['platform_passivations_total', 'Actors passivated to the stores since start (idle, or shed above the resident limit).', 'passivations'],
      ['platform_journal_appends_total', 'Group appends (flushes) of committed turns to the journal since start.', 'journalAppends'],
      ['platform_journal_append_seconds_total', 'Seconds the journal appends took in all; divided by the appends, the mean flush time.', 'journalAppendSeconds'],
      ['platform_reminders_fired_total', 'Durable reminders fired on this node since start.', 'remindersFired'],
      ['platform_reminders_postponed_total', 'Reminder firings that failed and were put off to retry.', 'remindersPostponed'],
    ];
    for (const [name, help, field] of counters) {
      new Counter({
        name,
        help,
        registers: [registry],
        collect() {
          this.reset();
          this.inc(platform.system.figures()[field]);
        },
      });
    }
    new Gauge({
      name: 'platform_reminders_late_seconds',
      help: 'How long the earliest due reminder has waited past its time (0 when none is due).',
      registers: [registry],
      async collect() {
        this.set((await platform.system.reminderLatenessMs().catch(() => 0)) / 1000);
      },
    });
  }

  /** One read of each store, under a time limit, at each scrape: up (1) or not (0), and how long the read took. */
  private storeMetrics(): void {
    const { stores } = this.platform;
    const probes: Record<string, () => Promise<unknown>> = {
      journal: () => stores.journal.read(PROBE_KEY, 0),
      snapshots: () => stores.snapshots.load(PROBE_KEY),
      reminders: () => stores.reminders.get(PROBE_KEY),
      kv: () => stores.kv.get(PROBE_KEY),
      indexes: () => stores.indexes.page(PROBE_KEY, { limit: 1, order: 'asc' }),
    };
    const results = async () => Promise.all(Object.entries(probes).map(async ([store, read]) => ({ store, ...(await probe(read)) })));
    let last: Promise<Awaited<ReturnType<typeof results>>> | undefined;
    /** Both gauges of a scrape share one round of probes. */
    const once = () => (last ??= results().finally(() => setImmediate(() => (last = undefined))));
    new Gauge({
      name: 'platform_store_up',
      help: `Whether each store answered a read within ${PROBE_MS} ms at this scrape (1) or not (0).`,
      labelNames: ['store'],
      registers: [this.registry],
      async collect() {
        for (const r of await once()) this.set({ store: r.store }, r.up ? 1 : 0);
      },
    });
    new Gauge({
      name: 'platform_store_probe_seconds',
      help: 'How long each store took to answer the read at this scrape.',
      labelNames: ['store'],
      registers: [this.registry],
      async collect() {
        for (const r of await once()) this.set({ store: r.store }, r.seconds);
      },
    });
  }

  /** One answered request; `route` is the declared path template, or `unmatched`. */
  observe(route: string, method: string, status: number, orgClass: OrgClass, seconds: number): void {
    let byMethod = this.index.get(route);
    if (byMethod === undefined) this.index.set(route, (byMethod = new Map()));
    let byStatus = byMethod.get(method);
    if (byStatus === undefined) byMethod.set(method, (byStatus = new Map()));
    let byClass = byStatus.get(status);
    if (byClass === undefined) byStatus.set(status, (byClass = { sandbox: undefined, live: undefined, none: undefined }));
    let t = byClass[orgClass];
    if (t === undefined) {
      t = byClass[orgClass] = { labels: { route, method, status: String(status), org_class: orgClass }, count: 0, sum: 0, buckets: new Float64Array(LATENCY_BUCKETS.length + 1) };
      this.tallies.push(t);
    }
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
    const values = () => tallies.map((t) => ({ labels: t.labels, value: t.count }));
    return { name, help, type: 'counter', aggregator: 'sum', reset() {}, get: () => ({ name, help, type: 'counter', aggregator: 'sum', values: values() }) };
  }

  private latencyMetric(): ReadMetric {
    const tallies = this.tallies;
    const name = 'platform_http_request_duration_seconds';
    const help = 'Time from a request handed to the pipeline to its answer, by route template, method, status and organisation class.';
    const values = () => {
      const out: ReturnType<ReadMetric['get']>['values'] = [];
      for (const t of tallies) {
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

/** The key every store probe reads: nothing is kept under it. */
const PROBE_KEY = 'metrics:probe';
const PROBE_MS = 1_000;

async function probe(read: () => Promise<unknown>): Promise<{ up: boolean; seconds: number }> {
  const began = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((r) => (timer = setTimeout(() => r(false), PROBE_MS)));
  try {
    const up = await Promise.race([read().then(() => true, () => false), late]);
    return { up, seconds: (performance.now() - began) / 1000 };
  } finally {
    clearTimeout(timer);
  }
}

const escapeLabel = (v: string) => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
const escapeHelp = (v: string) => v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');

/** The board's figures in the text format: HELP and TYPE once per name, then its samples. */
function boardText(figures: readonly Figure[]): string {
  const byName = new Map<string, Figure[]>();
  for (const f of figures) byName.set(f.name, [...(byName.get(f.name) ?? []), f]);
  let out = '';
  for (const [name, list] of byName) {
    out += `# HELP ${name} ${escapeHelp(list[0].help)}\n# TYPE ${name} ${list[0].type}\n`;
    for (const f of list) {
      const labels = f.labels ? Object.entries(f.labels).map(([k, v]) => `${k}="${escapeLabel(v)}"`).join(',') : '';
      out += `${name}${labels ? `{${labels}}` : ''} ${f.value}\n`;
    }
  }
  return out;
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
    metrics.text().then(
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
