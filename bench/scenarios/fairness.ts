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
 * Sizes: BENCH_FAIRNESS_SECONDS (flood and each window), BENCH_FAIRNESS_RATE (B's requests a second).
 */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Agent, request } from 'node:http';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { ACTIVE_RATE_POLICY } from '../../gateway/index.ts';
import { absolute, atMost, compared, round, type BenchResult } from '../report.ts';
import { startLocalNode, type LocalNode } from '../../support/local-node.ts';
import { tempDir } from '../../support/stores.ts';

const GATEWAY_BENCH = fileURLToPath(new URL('./gateway.ts', import.meta.url));
const SECONDS = Number(process.env.BENCH_FAIRNESS_SECONDS ?? 10);
const B_RATE = Number(process.env.BENCH_FAIRNESS_RATE ?? 50);
const FLOOD_CONNECTIONS = 48;
/** The process after a flood holds its records, buckets and caches: well under what a small host gives it. */
const RSS_CAP_MB = 400;

const p99 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.99))] ?? 0;
const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

async function register(node: LocalNode, name: string): Promise<string> {
  const reg = await node.call('POST', '/v1/registrations', {}, { organisation_name: `${name} Works`, name: 'Ada Obi', email: `${name.toLowerCase()}.${process.pid}@example.ng`, password: 'violet-harmattan-7-kettle' });
  if (reg.status >= 300) throw new Error(`registration failed: ${reg.status} ${JSON.stringify(reg.body)}`);
  return reg.body.api_key.key;
}

/** B's steady requests for `ms`: each one's latency, and any answer that was not 200. */
async function steady(port: number, key: string, ms: number): Promise<{ latencies: number[]; failed: number }> {
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
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
    const next = start + ((i + 1) * 1000) / B_RATE;
    await new Promise((r) => setTimeout(r, Math.max(0, next - performance.now())));
  }
  await Promise.all(sent);
  agent.destroy();
  return { latencies, failed };
}

export default async function fairness(): Promise<BenchResult[]> {
  const root = tempDir('wf-fairness-');
  // B's client (this process) keeps off the server's core
  spawnSync('taskset', ['-a', '-p', '-c', '1', String(process.pid)]);
  // the default pack: what this bench measures is the budgets doing their work
  const node = await startLocalNode(join(root, 'data'), { core: 0, env: { RATE_POLICY_FILE: '' } });
  try {
    const [keyA, keyB] = [await register(node, 'Flooder'), await register(node, 'Steady')];
    await steady(node.port, keyB, 2_000); // warm: the first answers of a fresh process are its compiler's
    const before = await steady(node.port, keyB, SECONDS * 1000);
    const spec = { port: node.port, method: 'GET', path: '/v1/api_keys?limit=1', headers: { 'service-api-key': keyA }, seconds: SECONDS, warmup: 0, connections: FLOOD_CONNECTIONS, pipeline: 1, serverPid: node.child.pid };
    // the flood's client yields core 1 to B's (nice 19): B's latency is the server's doing, not its client's
    const flood = spawn('nice', ['-n', '19', 'taskset', '-c', '1', process.execPath, ...process.execArgv, GATEWAY_BENCH, '--load', JSON.stringify(spec)], { stdio: ['ignore', 'pipe', 'inherit'] });
    const floodResult = once(createInterface({ input: flood.stdout! }), 'line').then(([l]) => JSON.parse(l as string));
    const during = await steady(node.port, keyB, SECONDS * 1000);
    const a = await floodResult;
    const rss = rssMb(node.child.pid!);
    const pack = ACTIVE_RATE_POLICY.pack;
    const allowed = Math.min(pack.credential.api_key.per_second, pack.organisation.sandbox.per_second) * a.seconds + Math.min(pack.credential.api_key.burst, pack.organisation.sandbox.burst);
    const ok = a.statuses['2xx'] ?? 0; // the load generator counts every 2xx together
    const refused = a.statuses['429'] ?? 0;
    const note = `npm start on core 0 (local stores, pack ${pack.version}); B: ${B_RATE}/s from the bench process on core 1; A: ${FLOOD_CONNECTIONS} connections on core 1 at nice 19 for ${SECONDS} s`;
    return [
      atMost("organisation B's p99 during A's flood", round(p99(during.latencies), 2), 'ms', "B's p99 before the flood", round(p99(before.latencies), 2), 2, `${note}; B answered ${during.latencies.length} 200s during (${during.failed} other) and ${before.latencies.length} before (${before.failed} other)`),
      // every request of A's beyond what it was served is refused; held refusals keep the flood itself small (gateway/holds.ts)
      compared("organisation A's excess answered 429", refused, 'requests', "A's requests beyond the 200s it got", a.requests - ok, 1, `A sent ${a.requests} and got ${ok} 200s, at most ${Math.round(allowed)} allowed by its budget (${pack.credential.api_key.per_second}/s and a burst of ${pack.credential.api_key.burst} for the key); other statuses ${JSON.stringify(Object.fromEntries(Object.entries(a.statuses).filter(([s]) => s !== '2xx' && s !== '429')))}`),
      absolute("A's requests served beyond its budget", Math.max(0, ok - Math.ceil(allowed)), 'requests', 0, false, 'each 200 beyond the rate times the window plus the burst'),
      absolute('server resident memory after the flood', round(rss), 'MB', RSS_CAP_MB, false, `VmRSS of the npm start process; cap ${RSS_CAP_MB} MB`),
    ];
  } finally {
    await node.kill();
    rmSync(root, { recursive: true, force: true });
  }
}
