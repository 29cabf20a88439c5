/**
 * Supply map in a cluster (DESIGN "The supply map"): the measurement behind the choice written in
 * docs/architecture.md "One supply map for the cluster". Two ways to let a ranking on any node see
 * every worker, measured over the real NATS on loopback, in one process (--expose-gc):
 *
 *   replica   every node holds every worker's record (SupplyReplica) and applies the others'
 *             updates (SupplyBus): memory per worker held on each node, CPU per update applied,
 *             bytes per update, and the delay from publish to applied on another connection at the
 *             heartbeat bench's rate (BENCH_SC_RATE updates/s, default 2,500: its WebSocket receipts);
 *             a ranking's query is a local nearest-N over the whole cluster's map;
 *   fan-out   regions owned by the nodes: a ranking asks the owners (two remote of three, in
 *             parallel, each a nearest-N over its third of the workers) and merges; each heartbeat
 *             batch whose region lives elsewhere (two in three) is a request to its owner.
 *
 * BENCH_SC_WORKERS (default 30,000 in the cluster) and BENCH_SC_QUERIES override the sizes.
 */
import { loadavg } from 'node:os';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { Packr, Unpackr } from 'msgpackr';
import { activePolicy, SupplyBus, SupplyMap, SupplyReplica, type SupplyUpdate } from '../../actors/allocation/index.ts';
import { SystemClock } from '../../runtime/index.ts';
import { natsNodeBus, SubjectNumbers } from '../../kernel/index.ts';
import { absolute, round, type BenchResult } from '../report.ts';
import { rng } from '../../support/rng.ts';
import { natsUrl } from '../../support/stores.ts';

const SELF = fileURLToPath(import.meta.url);
const WORKERS = Number(process.env.BENCH_SC_WORKERS ?? 30_000);
const QUERIES = Number(process.env.BENCH_SC_QUERIES ?? 2_000);
const RATE = Number(process.env.BENCH_SC_RATE ?? 2_500);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const ORG = 'org_bench';
const RADIUS = 5000;
const LIMIT = 50;
const gc = (globalThis as { gc?: () => void }).gc;

const pct = (xs: number[], p: number) => {
  const s = xs.slice().sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] : NaN;
};

function update(i: number, rnd: () => number, at: number): SupplyUpdate {
  return {
    org: ORG,
    workerId: `wrk_${i.toString(36).padStart(8, '0')}`,
    committed: { version: 3, available: true, since: at - 60_000, onAssignment: false, openFlag: null, suspended: false, external: [], completed: 2, failed: 0 },
    report: { at, latitude: 6.4 + rnd() * 0.3, longitude: 3.2 + rnd() * 0.4 },
  };
}

interface Measured {
  heapPerRecord: number;
  applyMicros: number;
  codecMicros: number;
  bytesPerUpdate: number;
  delayP50: number;
  delayP99: number;
  received: number;
  sent: number;
  localP50: number;
  localP99: number;
  fanP50: number;
  fanP99: number;
  rttP50: number;
}

type Policy = ReturnType<typeof activePolicy>['pack'];
type Codec = { packr: Packr; unpackr: Unpackr };

/** Memory per record: the whole cluster's workers on one node's replica. */
function measureMemory(policy: Policy, clock: SystemClock, rnd: () => number, now: number) {
  gc?.();
  const before = process.memoryUsage().heapUsed;
  const replica = new SupplyReplica(policy, clock, new SubjectNumbers(), () => {});
  for (let i = 0; i < WORKERS; i++) replica.apply(update(i, rnd, now));
  gc?.();
  return { replica, heapPerRecord: (process.memoryUsage().heapUsed - before) / WORKERS };
}

/** CPU per update applied (a move of a worker already held), and the codec per update. */
function measureApplyAndCodec(replica: SupplyReplica, { packr, unpackr }: Codec, rnd: () => number, now: number) {
  const moves = Array.from({ length: 100_000 }, (_, k) => update(k % WORKERS, rnd, now + 1 + k));
  let t = performance.now();
  for (const u of moves) replica.apply(u);
  const applyMicros = ((performance.now() - t) * 1000) / moves.length;
  const wire = moves.slice(0, 2000).map((u) => [u.org, u.workerId, Object.values(u.committed!), Object.values(u.report!)]);
  t = performance.now();
  let bytes = 0;
  for (let r = 0; r < 20; r++) {
    const data = packr.pack({ n: 'x', u: wire });
    bytes = data.length;
    unpackr.unpack(data);
  }
  const codecMicros = ((performance.now() - t) * 1000) / (20 * wire.length);
  return { applyMicros, codecMicros, bytesPerUpdate: bytes / wire.length };
}

/** The replica over NATS: node 1 publishes at the heartbeat rate, node 2 applies. */
async function measureReplication(ncs: NatsConnection[], ns: string, policy: Policy, clock: SystemClock, rnd: () => number) {
  const delays: number[] = [];
  const far = new SupplyReplica(policy, clock, new SubjectNumbers(), (r) => {
    if (r.report) delays.push(Date.now() - r.report.at);
  });
  const busA = new SupplyBus(natsNodeBus(ncs[0], ns), () => {}, () => []);
  const busB = new SupplyBus(natsNodeBus(ncs[1], ns), (us) => {
    for (const u of us) far.apply(u);
  }, () => []);
  busA.start();
  busB.start();
  await ncs[0].flush();
  await ncs[1].flush();
  const total = RATE * SECONDS;
  const started = performance.now();
  for (let k = 0; k < total; k++) {
    busA.send(update(k % WORKERS, rnd, Date.now()));
    // paced: every 1/RATE s of wall time, one update (in ticks of 10 ms)
    if (k % Math.max(1, Math.round(RATE / 100)) === 0) {
      const due = started + (k / RATE) * 1000;
      const wait = due - performance.now();
      await new Promise((r) => setTimeout(r, Math.max(0, wait)));
    }
  }
  busA.flush();
  await ncs[0].flush();
  await new Promise((r) => setTimeout(r, 500));
  busA.stop();
  busB.stop();
  return { delayP50: pct(delays, 50), delayP99: pct(delays, 99), received: busB.counters.received, sent: busA.counters.sent };
}

/** Three maps of a third of the workers each (the owners), and one of them all (the local read). */
function supplyMaps(policy: Policy) {
  const third = Math.floor(WORKERS / 3);
  const maps = [0, 1, 2].map(() => new SupplyMap(policy.supply.h3_resolution, policy.supply.region_resolution));
  const whole = new SupplyMap(policy.supply.h3_resolution, policy.supply.region_resolution);
  const prnd = rng(11);
  for (let i = 0; i < WORKERS; i++) {
    const lat = 6.4 + prnd() * 0.3;
    const lng = 3.2 + prnd() * 0.4;
    const f = { available: true, onAssignment: false, presence: 'reporting' as const, latitude: lat, longitude: lng, suspended: false, flagOpen: false, external: [] };
    maps[Math.min(2, Math.floor(i / third))].apply(ORG, `w${i}`, f);
    whole.apply(ORG, `w${i}`, f);
  }
  return { maps, whole, points: Array.from({ length: QUERIES }, () => [6.4 + prnd() * 0.3, 3.2 + prnd() * 0.4] as const) };
}

/** Fan-out: two remote owners, each with a third of the workers, and the local third; against one local map of all. */
async function measureFanOut(ncs: NatsConnection[], ns: string, policy: Policy, { packr, unpackr }: Codec) {
  const { maps, whole, points } = supplyMaps(policy);
  const subject = (n: number) => `${ns}.region.${n}`;
  for (const n of [1, 2]) {
    ncs[n].subscribe(subject(n), {
      callback: (_e, m) => {
        const [lat, lng] = unpackr.unpack(m.data) as [number, number];
        m.respond(packr.pack(maps[n].nearest(ORG, lat, lng, RADIUS, LIMIT)));
      },
    });
    await ncs[n].flush();
  }
  const local: number[] = [];
  for (const [lat, lng] of points) {
    const q = performance.now();
    whole.nearest(ORG, lat, lng, RADIUS, LIMIT);
    local.push(performance.now() - q);
  }
  const fan: number[] = [];
  const rtt: number[] = [];
  for (const [lat, lng] of points) {
    const q = performance.now();
    const asks = [1, 2].map((n) => ncs[0].request(subject(n), packr.pack([lat, lng]), { timeout: 5000 }));
    const mine = maps[0].nearest(ORG, lat, lng, RADIUS, LIMIT);
    const theirs = (await Promise.all(asks)).map((m) => unpackr.unpack(m.data) as typeof mine);
    [...mine, ...theirs.flat()].sort((x, y) => x.distance_metres - y.distance_metres).slice(0, LIMIT);
    fan.push(performance.now() - q);
  }
  for (const [lat, lng] of points.slice(0, 500)) {
    const q = performance.now();
    await ncs[0].request(subject(1), packr.pack([lat, lng]), { timeout: 5000 });
    rtt.push(performance.now() - q);
  }
  return { localP50: pct(local, 50), localP99: pct(local, 99), fanP50: pct(fan, 50), fanP99: pct(fan, 99), rttP50: pct(rtt, 50) };
}

async function measure(): Promise<Measured> {
  const policy = activePolicy().pack;
  const clock = new SystemClock();
  const rnd = rng(7);
  const now = Date.now();
  const codec = { packr: new Packr({ useRecords: false }), unpackr: new Unpackr({ useRecords: false }) };
  const { replica, heapPerRecord } = measureMemory(policy, clock, rnd, now);
  const applied = measureApplyAndCodec(replica, codec, rnd, now);
  const ncs: NatsConnection[] = await Promise.all([0, 1, 2].map(() => connect({ servers: natsUrl(), noAsyncTraces: true })));
  const ns = `bench_sc_${process.pid}`;
  const replication = await measureReplication(ncs, ns, policy, clock, rnd);
  const fanOut = await measureFanOut(ncs, ns, policy, codec);
  await Promise.all(ncs.map((nc) => nc.close()));
  return { heapPerRecord, ...applied, ...replication, ...fanOut };
}

export default async function run(): Promise<BenchResult[]> {
  const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', SELF, '--measure'], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d) => (out += String(d)));
  const code = await new Promise<number | null>((r) => child.once('exit', r));
  if (code !== 0) throw new Error(`supply-cluster measurement exited ${code}`);
  const m = JSON.parse(out.trim().split('\n').pop()!) as Measured;
  const load = `machine load average ${round(loadavg()[0], 1)} on 2 cores`;
  const cpuShare = (RATE * (m.applyMicros + m.codecMicros)) / 1e6;
  return [
    absolute('replica: heap per worker record, on every node', round(m.heapPerRecord, 0), 'bytes', undefined, false, `${WORKERS} workers (record + map entry); x3 nodes for the cluster`),
    absolute('replica: CPU per update applied (merge, presence, map move)', round(m.applyMicros, 2), 'us', undefined, false, `plus msgpack encode+decode ${round(m.codecMicros, 2)} us; ${round(m.bytesPerUpdate, 0)} bytes per update on the wire`),
    absolute('replica: CPU share of one core per receiving node at the heartbeat rate', round(cpuShare * 100, 2), '%', undefined, false, `${RATE} updates/s x (apply + codec)`),
    absolute('replica: publish to applied on another node, p99', round(m.delayP99, 2), 'ms', undefined, false, `p50 ${round(m.delayP50, 2)} ms; ${m.received}/${m.sent} updates received; ${load}`),
    absolute('replica: a ranking\u2019s nearest-50 query (local), p99', round(m.localP99, 3), 'ms', undefined, false, `p50 ${round(m.localP50, 3)} ms over ${WORKERS} workers`),
    absolute('fan-out: a ranking\u2019s query to two remote region owners + local, p99', round(m.fanP99, 3), 'ms', undefined, false, `p50 ${round(m.fanP50, 3)} ms; one request/reply p50 ${round(m.rttP50, 3)} ms (each heartbeat batch landing off its region's owner pays one)`),
  ];
}

if (process.argv.includes('--measure')) {
  const m = await measure();
  process.stdout.write(JSON.stringify(m) + '\n');
  process.exit(0);
}
