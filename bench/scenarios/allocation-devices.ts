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
 * own descriptors need the rest. `npm run bench -- allocation` prints these rows after its own;
 * `npm run bench -- allocation-devices` runs them alone. BENCH_DEVICES, BENCH_DEVICE_OFFERS,
 * BENCH_DEVICE_RATE override.
 */
import { spawn, spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { apiCaller } from '../api-call.ts';
import { absolute, round, type BenchResult } from '../report.ts';

const SELF = fileURLToPath(import.meta.url);
const DEVICES = Number(process.env.BENCH_DEVICES ?? 19_800);
const OFFERS = Number(process.env.BENCH_DEVICE_OFFERS ?? 2_000);
const RATE = Number(process.env.BENCH_DEVICE_RATE ?? 500);
const CHILDREN = 2;
const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))] ?? NaN;

interface ChildInput {
  port: number;
  devices: { worker: string; key: string }[];
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
      const ws = new WebSocket(`ws://127.0.0.1:${input.port}/v1/allocation/heartbeats/stream`, { headers: { 'service-api-key': d.key }, perMessageDeflate: false });
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
      return startChild({ port: gw.port, devices: mine, expect: targets.filter((t) => Math.floor(t / per) === c).length });
    });
    process.stderr.write(`  connecting and subscribing ${DEVICES.toLocaleString('en-US')} devices (two children on core 1)\n`);
    await Promise.all(children.map((c) => c.ready));
    const connected = deviceFeedOf(platform).subscriptions.size;
    const now = clock.now();
    const facts = {
      location: { latitude: 6.4541, longitude: 3.3947, radius_metres: 300 }, search_radius_metres: 5000, occupation_code: null, claim_codes: [], licence_required: false,
      window: { starts_at: now, ends_at: now + 6 * 3_600_000 }, headcount: 1, offer_timeout_seconds: 3600, cascade_width: 1,
      weight_set: { version: ACTIVE_WEIGHTS.set.version, content_hash: ACTIVE_WEIGHTS.hash }, livemode: false, excluded_count: 0,
    };
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

export default deviceRows;

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
