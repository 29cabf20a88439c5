/**
 * Fairness bench (docs/gaps.md#rate-limits): one organisation's flood does not slow another's
 * requests. `npm start` (local stores, the default rate policy pack) runs on core 0; organisation
 * B sends GET /v1/api_keys at a steady rate from this process throughout; organisation A floods
 * the same route from gateway.ts's load generator (`--load`, core 1, FLOOD_CONNECTIONS keep-alive
 * connections) for SECONDS. Printed: B's p99 during the flood beside its p99 before it (at most
 * twice), how much of A's excess (what it sent beyond the 200s it got) was answered 429, the 200s
 * beside what A's budget allows, and the server's resident memory after the flood (under
 * RSS_CAP_MB).
 *
 * At B's rate a window's p99 is one of its few slowest answers, so one short stall of the host
 * (another process on the server's core or the bench's, a slow disk) sets it, in either window.
 * So the bench runs ROUNDS pairs of windows, each quiet window right before its flood, so
 * the two of a pair meet the host as it is then, and compares the median of each window's p99s;
 * every round's figures are printed, with the longest stall of the bench process's own event loop
 * in each window, which says when the host, not the platform, made a tail. The warm-up sends at
 * B's budget before the first window, so the first quiet window does not measure the compiler.
 *
 * Sizes: BENCH_FAIRNESS_SECONDS (flood and each window), BENCH_FAIRNESS_RATE (B's requests a
 * second), BENCH_FAIRNESS_ROUNDS (pairs of windows).
 */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Agent, request } from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { ACTIVE_RATE_POLICY } from '../../gateway/index.ts';
import { absolute, atMost, compared, round, type BenchResult } from '../report.ts';
import { startLocalNode, type LocalNode } from '../../support/local-node.ts';
import { tempDir } from '../../support/stores.ts';

const GATEWAY_BENCH = fileURLToPath(new URL('./gateway.ts', import.meta.url));
const SECONDS = Number(process.env.BENCH_FAIRNESS_SECONDS ?? 10);
const B_RATE = Number(process.env.BENCH_FAIRNESS_RATE ?? 50);
const ROUNDS = Math.max(1, Number(process.env.BENCH_FAIRNESS_ROUNDS ?? 5));
/** The warm-up's length and rate: within B's key budget, enough answers for the compiler to settle on the route. */
const WARM_MS = 5_000;
const WARM_RATE = 80;
/** After a flood, time for its held refusals to be answered and its connections closed before B's next quiet window. */
const SETTLE_MS = 2_000;
const FLOOD_CONNECTIONS = 48;
/** The process after a flood holds its records, buckets and caches: well under what a small host gives it. */
const RSS_CAP_MB = 400;

const p99 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.99))] ?? 0;
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

async function register(node: LocalNode, name: string): Promise<string> {
  const reg = await node.call('POST', '/v1/registrations', {}, { organisation_name: `${name} Works`, name: 'Ada Obi', email: `${name.toLowerCase()}.${process.pid}@example.ng`, password: 'violet-harmattan-7-kettle' });
  if (reg.status >= 300) throw new Error(`registration failed: ${reg.status} ${JSON.stringify(reg.body)}`);
  return reg.body.api_key.key;
}

interface Window {
  latencies: number[];
  failed: number;
  /** The longest this process's event loop was held up in the window (ms): a stall of the host, not of the server. */
  stallMs: number;
}

/** B's steady requests for `ms` at `rate` a second: each one's latency, and any answer that was not 200. */
async function steady(port: number, key: string, ms: number, rate = B_RATE): Promise<Window> {
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const latencies: number[] = [];
  let failed = 0;
  const one = () =>
    new Promise<void>((resolve) => {
      const t0 = performance.now();
      const req = request({ host: '127.0.0.1', port, path: '/v1/api_keys?limit=1', method: 'GET', agent, headers: { 'service-api-key': key } }, (res) => {
        res.resume();
        res.on('end', () => {
          if (res.statusCode === 200) latencies.push(performance.now() - t0);
          else failed++;
          resolve();
        });
      });
      req.on('error', () => (failed++, resolve()));
      req.end();
    });
  const sent: Promise<void>[] = [];
  const start = performance.now();
  for (let i = 0; performance.now() - start < ms; i++) {
    sent.push(one());
    const next = start + ((i + 1) * 1000) / rate;
    await new Promise((r) => setTimeout(r, Math.max(0, next - performance.now())));
  }
  await Promise.all(sent);
  agent.destroy();
  delay.disable();
  return { latencies, failed, stallMs: delay.max / 1e6 };
}

/** One flood of A's from gateway.ts's load generator: what it sent and how it was answered. */
async function flood(port: number, key: string, serverPid: number): Promise<{ requests: number; seconds: number; statuses: Record<string, number> }> {
  const spec = { port, method: 'GET', path: '/v1/api_keys?limit=1', headers: { 'service-api-key': key }, seconds: SECONDS, warmup: 0, connections: FLOOD_CONNECTIONS, pipeline: 1, serverPid };
  // the flood's client yields core 1 to B's (nice 19): B's latency is the server's doing, not its client's
  const child = spawn('nice', ['-n', '19', 'taskset', '-c', '1', process.execPath, ...process.execArgv, GATEWAY_BENCH, '--load', JSON.stringify(spec)], { stdio: ['ignore', 'pipe', 'inherit'] });
  return once(createInterface({ input: child.stdout! }), 'line').then(([l]) => JSON.parse(l as string));
}

export default async function fairness(): Promise<BenchResult[]> {
  const root = tempDir('wf-fairness-');
  // B's client (this process) keeps off the server's core
  spawnSync('taskset', ['-a', '-p', '-c', '1', String(process.pid)]);
  // the default pack: what this bench measures is the budgets doing their work
  const node = await startLocalNode(join(root, 'data'), { core: 0, env: { RATE_POLICY_FILE: '' } });
  try {
    const [keyA, keyB] = [await register(node, 'Flooder'), await register(node, 'Steady')];
    await steady(node.port, keyB, WARM_MS, WARM_RATE); // the first answers of a fresh process are its compiler's
    const rounds: Array<{ before: Window; during: Window }> = [];
    const a = { requests: 0, ok: 0, refused: 0, others: {} as Record<string, number>, allowed: 0 };
    const pack = ACTIVE_RATE_POLICY.pack;
    let rss = 0;
    for (let r = 0; r < ROUNDS; r++) {
      if (r > 0) await sleep(SETTLE_MS);
      const before = await steady(node.port, keyB, SECONDS * 1000);
      const flooding = flood(node.port, keyA, node.child.pid!);
      const during = await steady(node.port, keyB, SECONDS * 1000);
      const f = await flooding;
      rss = Math.max(rss, rssMb(node.child.pid!));
      rounds.push({ before, during });
      // each flood starts with A's bucket full again (a quiet window is longer than it takes to refill)
      a.allowed += Math.min(pack.credential.api_key.per_second, pack.organisation.sandbox.per_second) * f.seconds + Math.min(pack.credential.api_key.burst, pack.organisation.sandbox.burst);
      a.requests += f.requests;
      a.ok += f.statuses['2xx'] ?? 0; // the load generator counts every 2xx together
      a.refused += f.statuses['429'] ?? 0;
      for (const [status, n] of Object.entries(f.statuses)) if (status !== '2xx' && status !== '429') a.others[status] = (a.others[status] ?? 0) + n;
    }
    const beforeP99 = rounds.map((x) => round(p99(x.before.latencies), 2));
    const duringP99 = rounds.map((x) => round(p99(x.during.latencies), 2));
    const stalls = (w: Window[]) => w.map((x) => round(x.stallMs, 0)).join('/');
    const answered = (w: Window[]) => `${w.reduce((n, x) => n + x.latencies.length, 0)} 200s (${w.reduce((n, x) => n + x.failed, 0)} other)`;
    const note = `npm start on core 0 (local stores, pack ${pack.version}); B: ${B_RATE}/s from the bench process on core 1; A: ${FLOOD_CONNECTIONS} connections on core 1 at nice 19 for ${SECONDS} s; ${ROUNDS} rounds`;
    const perRound = `p99 by round before ${beforeP99.join('/')} ms, during ${duringP99.join('/')} ms; longest stall of the bench's own event loop before ${stalls(rounds.map((x) => x.before))} ms, during ${stalls(rounds.map((x) => x.during))} ms`;
    return [
      atMost("organisation B's p99 during A's flood (median of rounds)", median(duringP99), 'ms', "B's p99 before the flood (median of rounds)", median(beforeP99), 2, `${note}; ${perRound}; B answered ${answered(rounds.map((x) => x.during))} during and ${answered(rounds.map((x) => x.before))} before`),
      // every request of A's beyond what it was served is refused; held refusals keep the flood itself small (gateway/holds.ts)
      compared("organisation A's excess answered 429", a.refused, 'requests', "A's requests beyond the 200s it got", a.requests - a.ok, 1, `over ${ROUNDS} floods A sent ${a.requests} and got ${a.ok} 200s, at most ${Math.round(a.allowed)} allowed by its budget (${pack.credential.api_key.per_second}/s and a burst of ${pack.credential.api_key.burst} for the key, each flood); other statuses ${JSON.stringify(a.others)}`),
      absolute("A's requests served beyond its budget", Math.max(0, a.ok - Math.ceil(a.allowed)), 'requests', 0, false, 'each 200 beyond the rate times the windows plus a burst per flood'),
      absolute('server resident memory after the flood', round(rss), 'MB', RSS_CAP_MB, false, `the largest VmRSS of the npm start process after a flood; cap ${RSS_CAP_MB} MB`),
    ];
  } finally {
    await node.kill();
    rmSync(root, { recursive: true, force: true });
  }
}
