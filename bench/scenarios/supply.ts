/**
 * Supply bench (DESIGN "The supply map"), one run:
 * - 1,000,000 workers at random over Lagos (lat 6.4-6.7, lng 3.2-3.6) in the supply map (the
 *   area's SupplyMap: H3 resolution 9, regions at resolution 5), and the same points in a Redis GEO
 *   set (GEOADD, 1,000 points per command);
 * - the nearest 50 within 5 km of random points: our exact ring-expansion query, and Redis
 *   `GEOSEARCH key FROMLONLAT lng lat BYRADIUS 5 km ASC COUNT 50` over the same points.
 * Our query runs in a child process pinned to core 0 (`taskset -c 0`, `--expose-gc` so the build's
 * garbage is collected before memory is read and before timing); the map lives in the server
 * process and a query is a function call for the ranking that uses it. Redis is queried afterwards
 * from a client pinned to core 1 through ioredis, 64 in flight, so its figure is bound by the
 * Redis server, not by round trips. Targets: >= 200x Redis's queries/s, p99 < 1 ms. Resident
 * memory per worker is printed.
 * BENCH_SUPPLY_WORKERS, BENCH_SUPPLY_QUERIES override the sizes.
 */
import { spawn, spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { SupplyMap } from '../../actors/allocation/index.ts';
import { absolute, compared, round, type BenchResult } from '../report.ts';
import { rng } from '../../support/rng.ts';

const WORKERS = Number(process.env.BENCH_SUPPLY_WORKERS ?? 1_000_000);
const QUERIES = Number(process.env.BENCH_SUPPLY_QUERIES ?? 20_000);
const REDIS_QUERIES = Number(process.env.BENCH_SUPPLY_REDIS_QUERIES ?? 500);
const RADIUS = 5000;
const LIMIT = 50;
const ORG = 'org_bench';
const KEY = `bench:supply:${process.pid}`;

const gc = (globalThis as { gc?: () => void }).gc;
const SELF = fileURLToPath(import.meta.url);

function data() {
  const rnd = rng(42);
  const lat = new Float64Array(WORKERS);
  const lng = new Float64Array(WORKERS);
  const ids: string[] = new Array(WORKERS);
  for (let i = 0; i < WORKERS; i++) {
    lat[i] = 6.4 + rnd() * 0.3;
    lng[i] = 3.2 + rnd() * 0.4;
    ids[i] = `wrk_${i.toString(36).padStart(8, '0')}`;
  }
  const points = Array.from({ length: QUERIES }, () => [6.4 + rnd() * 0.3, 3.2 + rnd() * 0.4] as const);
  return { lat, lng, ids, points };
}

interface Ours {
  qps: number;
  p50: number;
  p99: number;
  found: number;
  rssPerWorker: number;
  heapPerWorker: number;
  mib: number;
  buildPerSecond: number;
}

/** Child (core 0): build the map, then time the queries. */
function measureOurs(): Ours {
  const { lat, lng, ids, points } = data();
  gc?.();
  const before = process.memoryUsage();
  const map = new SupplyMap(9, 5);
  const t0 = performance.now();
  for (let i = 0; i < WORKERS; i++)
    map.apply(ORG, ids[i], { available: true, onAssignment: false, presence: 'reporting', latitude: lat[i], longitude: lng[i], suspended: false, flagOpen: false, external: [] });
  const buildMs = performance.now() - t0;
  gc?.();
  const after = process.memoryUsage();
  const rssPerWorker = (after.rss - before.rss) / WORKERS;
  const heapPerWorker = (after.heapUsed - before.heapUsed) / WORKERS;

  for (let q = 0; q < Math.min(2000, QUERIES); q++) map.nearest(ORG, points[q][0], points[q][1], RADIUS, LIMIT); // warm
  const lat_us = new Float64Array(QUERIES);
  let found = 0;
  const q0 = performance.now();
  for (let q = 0; q < QUERIES; q++) {
    const s = performance.now();
    found += map.nearest(ORG, points[q][0], points[q][1], RADIUS, LIMIT).length;
    lat_us[q] = (performance.now() - s) * 1000;
  }
  const oursQps = QUERIES / ((performance.now() - q0) / 1000);
  lat_us.sort();
  return {
    qps: oursQps,
    p50: lat_us[Math.floor(QUERIES * 0.5)],
    p99: lat_us[Math.floor(QUERIES * 0.99)],
    found: found / QUERIES,
    rssPerWorker,
    heapPerWorker,
    mib: (after.rss - before.rss) / 1048576,
    buildPerSecond: WORKERS / (buildMs / 1000),
  };
}

function runOurs(): Promise<Ours> {
  return new Promise((resolve, reject) => {
    const p = spawn('taskset', ['-c', '0', process.execPath, '--expose-gc', '--import', 'tsx', SELF, '--measure'], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    p.stdout.on('data', (c) => (out += c));
    p.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as Ours) : reject(new Error(`supply child exited ${code}`))));
  });
}

export default async function supply(): Promise<BenchResult[]> {
  const ours = await runOurs();
  const { lat, lng, ids, points } = data();
  pinToCore1();

  // -- Redis -----------------------------------------------------------------------------------
  const redis = new Redis({ host: '127.0.0.1', port: 6379, lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  let redisQps = 0;
  let redisFound = 0;
  try {
    await redis.del(KEY);
    for (let i = 0; i < WORKERS; ) {
      const p = redis.pipeline();
      for (let c = 0; c < 50 && i < WORKERS; c++) {
        const args: (string | number)[] = [];
        for (let k = 0; k < 1000 && i < WORKERS; k++, i++) args.push(lng[i], lat[i], ids[i]);
        p.geoadd(KEY, ...args);
      }
      await p.exec();
    }
    const r0 = performance.now();
    const inflight = 64;
    let next = 0;
    async function lane() {
      while (next < REDIS_QUERIES) {
        const q = next++;
        const res = (await redis.call('GEOSEARCH', KEY, 'FROMLONLAT', points[q][1], points[q][0], 'BYRADIUS', RADIUS / 1000, 'km', 'ASC', 'COUNT', LIMIT)) as string[];
        redisFound += res.length;
      }
    }
    await Promise.all(Array.from({ length: inflight }, lane));
    redisQps = REDIS_QUERIES / ((performance.now() - r0) / 1000);
  } finally {
    await redis.del(KEY).catch(() => {});
    redis.disconnect();
  }

  const note = `${WORKERS.toLocaleString('en-US')} workers, nearest ${LIMIT} within ${RADIUS / 1000} km; ours in a process on core 0, Redis via ioredis from core 1, 64 in flight`;
  return [
    compared('supply query (ours, exact)', round(ours.qps, 0), 'queries/s', 'Redis GEOSEARCH BYRADIUS 5 km ASC COUNT 50', round(redisQps, 1), 200, note),
    absolute('supply query p99 (ours)', round(ours.p99 / 1000, 4), 'ms', 1, false, `p50 ${round(ours.p50 / 1000, 4)} ms; machine load average ${round(loadavg()[0], 1)} on 2 cores during the run (wall-clock latency includes preemption); Redis ${round(1000 / Math.max(redisQps, 1e-9), 1)} ms per query server-bound`),
    absolute('results per query (ours / Redis)', round(ours.found, 2), 'workers', undefined, true, `Redis ${round(redisFound / Math.max(1, REDIS_QUERIES), 2)}`),
    absolute('resident memory per worker', round(ours.rssPerWorker, 1), 'bytes', undefined, false, `heap ${round(ours.heapPerWorker, 1)} B/worker; ${round(ours.mib, 0)} MiB for the map`),
    absolute('map build', round(ours.buildPerSecond, 0), 'workers/s'),
  ];
}

/** The Redis client side runs on core 1. */
function pinToCore1(): void {
  spawnSync('taskset', ['-p', '-c', '1', String(process.pid)], { stdio: 'ignore' });
}

if (process.argv[1] === SELF && process.argv[2] === '--measure') {
  process.stdout.write(JSON.stringify(measureOurs()));
  process.exit(0);
}
