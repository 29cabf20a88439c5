/**
 * Offers to the phone, live (spec 4.7; docs/gaps.md#allocation "Offers to the device"): the time
 * from an offer made to its `offer.made` frame received at the worker's device, embedded (memory
 * stores, the real gateway, this process) with DEVICES devices connected and subscribed, printed
 * beside the cascade's own decision time (the work order's `open` command, decide and commit, as
 * its caller waits for it). Target p99 <= 50 ms.
 *
 * The devices are msgpack WebSocket clients in two child processes pinned to core 1 (the server
 * keeps core 0), each subscribed with its own device credential issued through the API. The
 * server then opens OFFERS work orders at RATE a second, each offering one device's worker; a
 * device takes `Date.now()` when the frame arrives minus the offer's `offered_at` (the decision's
 * clock reading, this machine's clock in both processes, millisecond resolution). A process holds
 * at most 20,000 descriptors here (`ulimit -Hn`), so the default is 19,800 devices: the server's
 * own descriptors need the rest. (e) measures the same across three cluster node processes
 * (clusterRows), target p99 <= 150 ms. `npm run bench -- allocation` prints these rows after its
 * own; `npm run bench -- allocation-devices` runs them alone. BENCH_DEVICES, BENCH_DEVICE_OFFERS,
 * BENCH_DEVICE_RATE, BENCH_CLUSTER_DEVICES, BENCH_CLUSTER_OFFERS, BENCH_CLUSTER_RATE override.
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { apiCaller } from '../api-call.ts';
import { absolute, round, type BenchResult } from '../report.ts';

const SELF = fileURLToPath(import.meta.url);
const DEVICES = Number(process.env.BENCH_DEVICES ?? 19_800);
const OFFERS = Number(process.env.BENCH_DEVICE_OFFERS ?? 2_000);
const RATE = Number(process.env.BENCH_DEVICE_RATE ?? 500);
const CHILDREN = 2;
const CLUSTER_DEVICES = Number(process.env.BENCH_CLUSTER_DEVICES ?? 3_000);
const CLUSTER_OFFERS = Number(process.env.BENCH_CLUSTER_OFFERS ?? 300);
const CLUSTER_RATE = Number(process.env.BENCH_CLUSTER_RATE ?? 20);
const BENCH_OFFERS_PATH = '/v1/bench_offers';
const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))] ?? NaN;

interface ChildInput {
  /** Each device with the port of the node it connects to. */
  devices: { worker: string; key: string; port: number }[];
  expect: number;
}

/** One child's devices: connect, subscribe, then report each offer.made frame's latency. */
async function devicesChild(input: ChildInput): Promise<void> {
  const { default: WebSocket } = await import('ws');
  const { Packr, Unpackr } = await import('msgpackr');
  const packr = new Packr({ useRecords: false });
  const unpackr = new Unpackr({ useRecords: false, mapsAsObjects: true });
  const latencies: number[] = [];
  let subscribed = 0;
  const subscribe = packr.pack({ type: 'subscribe', after_sequence: 0 });
  const done = () => {
    process.stdout.write(`${JSON.stringify({ latencies })}\n`);
    process.exit(0);
  };
  let next = 0;
  const open = () =>
    new Promise<void>((resolve, reject) => {
      const d = input.devices[next++];
      const ws = new WebSocket(`ws://127.0.0.1:${d.port}/v1/allocation/heartbeats/stream`, { headers: { 'service-api-key': d.key }, perMessageDeflate: false });
      ws.on('open', () => ws.send(subscribe));
      ws.on('error', reject);
      ws.on('message', (data: Buffer) => {
        const f = unpackr.unpack(data) as { type?: string; offer?: { offered_at: string }; error?: unknown };
        if (f.type === 'subscribed') {
          subscribed++;
          resolve();
        } else if (f.type === 'offer.made') {
          latencies.push(Date.now() - Date.parse(f.offer!.offered_at));
          if (latencies.length >= input.expect) done();
        } else if (f.error) reject(new Error(JSON.stringify(f.error)));
      });
    });
  await Promise.all(Array.from({ length: 100 }, async () => {
    while (next < input.devices.length) await open();
  }));
  process.stdout.write(`ready ${subscribed}\n`);
  if (input.expect === 0) done();
}

function startChild(input: ChildInput): { ready: Promise<void>; result: Promise<number[]> } {
  const pinned = spawnSync('taskset', ['-c', '1', 'true']).status === 0;
  const args = [...process.execArgv, SELF, '--devices'];
  const child = pinned ? spawn('taskset', ['-c', '1', process.execPath, ...args], { stdio: ['pipe', 'pipe', 'inherit'] }) : spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  child.stdin!.end(JSON.stringify(input));
  let out = '';
  let readied: () => void;
  const ready = new Promise<void>((r) => (readied = r));
  child.stdout!.on('data', (c) => {
    out += c;
    if (out.includes('ready')) readied();
  });
  const result = new Promise<number[]>((resolve, reject) =>
    child.on('exit', (code) => {
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (code === 0 && line) resolve((JSON.parse(line) as { latencies: number[] }).latencies);
      else reject(new Error(`device child exited ${code}`));
    }),
  );
  return { ready, result };
}

export async function deviceRows(): Promise<BenchResult[]> {
  const { areas } = await import('../../actors/index.ts');
  const { startGateway } = await import('../../gateway/index.ts');
  const { SystemClock } = await import('../../runtime/index.ts');
  const { createPlatform, newId, stopPlatform } = await import('../../kernel/index.ts');
  const { createMemoryStores } = await import('../../stores/index.ts');
  const { WorkOrder, WORK_ORDER_PREFIX, ACTIVE_WEIGHTS, deviceFeedOf } = await import('../../actors/allocation/index.ts');
  const clock = new SystemClock();
  const platform = await createPlatform({ areas, stores: createMemoryStores({ now: () => clock.now() }), clock, config: {} });
  const gw = await startGateway(platform, { host: '127.0.0.1', port: 0 });
  const call = apiCaller(`http://127.0.0.1:${gw.port}`);
  try {
    const reg = await call('POST', '/v1/registrations', { organisation_name: 'Bench Devices Ltd', name: 'Bench Owner', email: `devices${process.pid}@example.ng`, password: 'bench-amber-lantern-58' });
    const key = reg.api_key.key as string;
    const org = reg.organisation.id as string;
    process.stderr.write(`  issuing ${DEVICES.toLocaleString('en-US')} device credentials\n`);
    const devices: { worker: string; key: string }[] = new Array(DEVICES);
    let next = 0;
    await Promise.all(Array.from({ length: 32 }, async () => {
      while (next < DEVICES) {
        const i = next++;
        const worker = `bench_device_${i}`;
        devices[i] = { worker, key: (await call('POST', '/v1/allocation/device_credentials', { worker_id: worker }, key)).key };
      }
    }));
    // the offers' workers, chosen before the devices connect, so each child knows how many frames to await
    let seed = 7;
    const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
    const targets = Array.from({ length: OFFERS }, () => Math.floor(random() * DEVICES));
    const per = Math.ceil(DEVICES / CHILDREN);
    const children = Array.from({ length: CHILDREN }, (_, c) => {
      const mine = devices.slice(c * per, (c + 1) * per);
      return startChild({ devices: mine.map((d) => ({ ...d, port: gw.port })), expect: targets.filter((t) => Math.floor(t / per) === c).length });
    });
    process.stderr.write(`  connecting and subscribing ${DEVICES.toLocaleString('en-US')} devices (two children on core 1)\n`);
    await Promise.all(children.map((c) => c.ready));
    const connected = deviceFeedOf(platform).subscriptions.size;
    const facts = offerFacts(clock.now(), { version: ACTIVE_WEIGHTS.set.version, content_hash: ACTIVE_WEIGHTS.hash });
    process.stderr.write(`  ${connected.toLocaleString('en-US')} subscribed; ${OFFERS.toLocaleString('en-US')} offers at ${RATE}/s\n`);
    const decisions: number[] = [];
    const start = performance.now();
    const asks: Promise<void>[] = [];
    for (let i = 0; i < OFFERS; i++) {
      const due = start + (i * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 1) await new Promise((r) => setTimeout(r, wait));
      const t0 = performance.now();
      asks.push(platform.system.ask(WorkOrder, newId(WORK_ORDER_PREFIX), 'open', { ...facts, candidates: [{ worker_id: devices[targets[i]].worker, rank: 1, score: 1 }] }, { org, principal: 'bench', noReply: true }).then(() => {
        decisions.push(performance.now() - t0);
      }));
    }
    await Promise.all(asks);
    const latencies = (await Promise.all(children.map((c) => c.result))).flat();
    const note = `${connected.toLocaleString('en-US')} devices connected and subscribed (msgpack), ${latencies.length} offers at ${RATE}/s; p50 ${percentile(latencies, 0.5)} ms, max ${Math.max(...latencies)} ms (millisecond clock); device children on core 1; machine load average ${round(loadavg()[0], 1)} on 2 cores`;
    return [
      absolute('(d) offer made to offer.made frame received at the device, p99', percentile(latencies, 0.99), 'ms', 50, false, note),
      absolute('(d) the cascade\u2019s own decision time (open: decide and commit of the offer), p99, informative', round(percentile(decisions, 0.99), 2), 'ms', undefined, false, `p50 ${round(percentile(decisions, 0.5), 2)} ms, the same ${decisions.length} work orders`),
    ];
  } finally {
    await gw.close(0);
    await stopPlatform(platform);
  }
}

/** The work order a bench offer opens: one candidate, one offer, decided and committed where its shard lives. */
function offerFacts(now: number, weights: { version: string; content_hash: string }) {
  return {
    location: { latitude: 6.4541, longitude: 3.3947, radius_metres: 300 }, search_radius_metres: 5000, occupation_code: null, claim_codes: [], licence_required: false,
    window: { starts_at: now, ends_at: now + 6 * 3_600_000 }, headcount: 1, offer_timeout_seconds: 3600, cascade_width: 1, weight_set: weights, livemode: false, excluded_count: 0,
  };
}

/**
 * (e) The same across three cluster nodes: node processes over the local NATS and Redis (a fresh
 * namespace), each serving the gateway; the devices spread over the three, the work orders opened
 * on whichever node a request reaches and living on their shards' owners, the inboxes on theirs.
 * A bench-only route on each node opens one (BENCH_OFFERS_PATH) and answers its decision time.
 */
export async function clusterRows(): Promise<BenchResult[]> {
  const { NodeProcesses } = await import('../../support/chaos/node-processes.ts');
  const { testNamespace } = await import('../../support/stores.ts');
  const nodes = new NodeProcesses(testNamespace('device_bench'), 'bench/scenarios/allocation-devices.ts', { env: { DEVICE_BENCH_NODE: '1' } });
  let procs;
  try {
    procs = await Promise.all(['node-a', 'node-b', 'node-c'].map((id) => nodes.start(id)));
  } catch (e) {
    process.stderr.write(`  (e) left out: the cluster nodes did not start (NATS and Redis reachable?): ${String(e).slice(0, 300)}\n`);
    await nodes.stopAll().catch(() => {});
    return [];
  }
  try {
    // one Idempotency-Key sequence per caller would repeat across the three: each POST takes a fresh one
    const calls = procs.map((p) => async (method: string, path: string, body: unknown, key?: string): Promise<any> => {
      const r = await fetch(`http://127.0.0.1:${p.port}${path}`, { method, headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID(), ...(key ? { 'service-api-key': key } : {}) }, body: JSON.stringify(body) });
      const j = (await r.json()) as any;
      if (r.status >= 300) throw new Error(`${method} ${path} on ${p.id}: ${r.status} ${JSON.stringify(j)}`);
      return j;
    });
    let reg: any;
    for (let i = 0; !reg; i++) {
      reg = await calls[0]('POST', '/v1/registrations', { organisation_name: 'Bench Cluster Devices Ltd', name: 'Bench Owner', email: `cluster.devices${process.pid}@example.ng`, password: 'bench-amber-lantern-58' }).catch((e: unknown) => {
        if (i > 100) throw e;
        return new Promise((r) => setTimeout(() => r(undefined), 300)); // the shards' leases are still being taken
      });
    }
    const key = reg.api_key.key as string;
    process.stderr.write(`  (e) issuing ${CLUSTER_DEVICES.toLocaleString('en-US')} device credentials over three nodes\n`);
    const devices: { worker: string; key: string; port: number }[] = new Array(CLUSTER_DEVICES);
    let next = 0;
    await Promise.all(Array.from({ length: 24 }, async () => {
      while (next < CLUSTER_DEVICES) {
        const i = next++;
        const worker = `bench_cluster_device_${i}`;
        devices[i] = { worker, port: procs[i % 3].port, key: (await calls[i % 3]('POST', '/v1/allocation/device_credentials', { worker_id: worker }, key)).key };
      }
    }));
    let seed = 11;
    const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
    const targets = Array.from({ length: CLUSTER_OFFERS }, () => Math.floor(random() * CLUSTER_DEVICES));
    const per = Math.ceil(CLUSTER_DEVICES / CHILDREN);
    const children = Array.from({ length: CHILDREN }, (_, c) => startChild({ devices: devices.slice(c * per, (c + 1) * per), expect: targets.filter((t) => Math.floor(t / per) === c).length }));
    await Promise.all(children.map((c) => c.ready));
    process.stderr.write(`  (e) ${CLUSTER_DEVICES.toLocaleString('en-US')} subscribed over three nodes; ${CLUSTER_OFFERS} offers at ${CLUSTER_RATE}/s\n`);
    const decisions: number[] = [];
    const start = performance.now();
    const asks: Promise<void>[] = [];
    for (let i = 0; i < CLUSTER_OFFERS; i++) {
      const wait = start + (i * 1000) / CLUSTER_RATE - performance.now();
      if (wait > 1) await new Promise((r) => setTimeout(r, wait));
      asks.push(calls[i % 3]('POST', BENCH_OFFERS_PATH, { worker_id: devices[targets[i]].worker }, key).then((r: { decision_ms: number }) => void decisions.push(r.decision_ms)));
    }
    await Promise.all(asks);
    const latencies = (await Promise.all(children.map((c) => c.result))).flat();
    return [
      absolute('(e) offer made to offer.made frame received at the device, three cluster nodes, p99', percentile(latencies, 0.99), 'ms', 150, false,
        `${CLUSTER_DEVICES.toLocaleString('en-US')} devices spread over the three nodes, ${latencies.length} offers at ${CLUSTER_RATE}/s opened on the three in turn; p50 ${percentile(latencies, 0.5)} ms, max ${Math.max(...latencies)} ms; three node processes, device children on core 1; machine load average ${round(loadavg()[0], 1)} on 2 cores`),
      absolute('(e) the cascade\u2019s own decision time on the cluster (open, on the work order\u2019s node or forwarded to it), p99, informative', round(percentile(decisions, 0.99), 2), 'ms', undefined, false, `p50 ${round(percentile(decisions, 0.5), 2)} ms`),
    ];
  } finally {
    await nodes.stopAll();
  }
}

/** Both: embedded, then the cluster's. */
export default async function allDeviceRows(): Promise<BenchResult[]> {
  return [...(await deviceRows()), ...(await clusterRows())];
}

/** A node of (e): the platform's cluster node with the bench's route that opens one offer. */
async function benchNode(): Promise<void> {
  const { runClusterNode } = await import('../../support/cluster-node.ts');
  const { route, newId } = await import('../../kernel/index.ts');
  const { WorkOrder, WORK_ORDER_PREFIX, ACTIVE_WEIGHTS } = await import('../../actors/allocation/index.ts');
  const weights = { version: ACTIVE_WEIGHTS.set.version, content_hash: ACTIVE_WEIGHTS.hash };
  await runClusterNode([{
    name: 'bench_offers',
    kinds: [],
    routes: [route({ method: 'POST', path: BENCH_OFFERS_PATH, auth: 'key', module: null, idempotent: false, summary: 'Bench only: open a work order offering one worker.',
      handler: async (req) => {
        const t0 = performance.now();
        const worker = (req.body as { worker_id: string }).worker_id;
        await req.platform.system.ask(WorkOrder, newId(WORK_ORDER_PREFIX), 'open', { ...offerFacts(req.platform.clock.now(), weights), candidates: [{ worker_id: worker, rank: 1, score: 1 }] }, { org: req.org, principal: 'bench', noReply: true });
        return { decision_ms: performance.now() - t0 };
      } })],
  }]);
}

if (process.argv[1] === SELF && process.env.DEVICE_BENCH_NODE) void benchNode();

if (process.argv[1] === SELF && process.argv.includes('--devices')) {
  let input = '';
  process.stdin.on('data', (c) => (input += c));
  process.stdin.on('end', () => {
    devicesChild(JSON.parse(input) as ChildInput).catch((e) => {
      console.error(e);
      process.exit(1);
    });
  });
}
