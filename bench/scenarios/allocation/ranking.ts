/**
 * Allocation bench part (a): ranking with every gate over BENCH_RANK_WORKERS workers (default
 * 1,000,000) at random over Lagos, in a child process pinned to core 0 (`--expose-gc`); see
 * ../allocation.ts for what it compares and its targets. The child runs this file with `--rank`
 * and writes its figures to stdout as JSON. Its steps: place the workers, build the supply map,
 * build the gate models beside it, and time the rounds.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RankingSources, SupplyMap } from '../../../actors/allocation/index.ts';
import type { SubjectNumbers } from '../../../kernel/index.ts';
import { PROFILE_DIR } from '../../profile.ts';
import { rng } from '../../../support/rng.ts';

const SELF = fileURLToPath(import.meta.url);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
export const RANK_WORKERS = Number(process.env.BENCH_RANK_WORKERS ?? 1_000_000);
export const RANK_QUERIES = Number(process.env.BENCH_RANK_QUERIES ?? 5_000);
const ORG = 'org_bench';
/** The occupation the ranked work orders need; the stand-in licence model holds licences for it. */
const OCCUPATION = 'ng-8322';
/** The pool each ranking and each bare query asks the map for (the weight set's candidate_pool). */
const POOL = 200;
const gc = (globalThis as { gc?: () => void }).gc;

export interface RankingFigures {
  bare: number[];
  ranked: number[];
  /** The explained ranking of GET .../ranking (every factor of every candidate), informative. */
  explained: number[];
  /** Per CPU-second of the child (process.cpuUsage: preemption by other processes does not count). */
  bareCpu: number[];
  rankedCpu: number[];
  p99Cpu: number;
  mapPerWorker: number;
  p99: number;
  p50: number;
  bareP99: number;
  rssPerWorker: number;
  heapPerWorker: number;
  candidates: number;
  excluded: number;
}

type Allocation = typeof import('../../../actors/allocation/index.ts');
type Kernel = typeof import('../../../kernel/index.ts');
type Rnd = () => number;
type Point = readonly [number, number];

/** The workers' ids and positions, and the points the queries rank around. */
function workersOverLagos(rnd: Rnd): { ids: string[]; lat: Float64Array; lng: Float64Array; points: Point[] } {
  const ids: string[] = new Array(RANK_WORKERS);
  const lat = new Float64Array(RANK_WORKERS);
  const lng = new Float64Array(RANK_WORKERS);
  for (let i = 0; i < RANK_WORKERS; i++) {
    ids[i] = `wrk_${i.toString(36).padStart(8, '0')}`;
    lat[i] = 6.4 + rnd() * 0.3;
    lng[i] = 3.2 + rnd() * 0.4;
  }
  const points = Array.from({ length: RANK_QUERIES }, () => [6.4 + rnd() * 0.3, 3.2 + rnd() * 0.4] as const);
  return { ids, lat, lng, points };
}

/**
 * The gate read models, shaped as their modules keep them (maps by id, and the columns by subject
 * number beside them): 95% live passports, 90% current engagements, 85% a current licence for the
 * occupation (5% expired), reliability for a third; the replica's report time and settled counts,
 * by id (the replica's per-worker records) and by subject number (the columns a ranking reads).
 */
function gateModels(k: Kernel, ids: string[], numbers: SubjectNumbers, rnd: Rnd, now: number) {
  const m = {
    passportEntries: new Map<string, { passport: string; live: boolean; version: number }>(),
    livePassports: new Map<string, string>(),
    liveColumn: new k.ByteColumn(),
    standing: new Map<string, number>(),
    standingColumn: new k.CountColumn(),
    licences: new Map<string, Map<string, { id: string; kind: string; current: boolean; expiresMs: number }[]>>(),
    licensedUntil: new k.NumberColumn(),
    settled: new Map<string, { completed: number; failed: number }>(),
    completedColumn: new k.CountColumn(),
    failedColumn: new k.CountColumn(),
    lastReading: new Map<string, number>(),
    reportAtColumn: new k.NumberColumn(),
  };
  for (let i = 0; i < RANK_WORKERS; i++) {
    const w = ids[i];
    const n = numbers.of(ORG, w);
    const r = rnd();
    const passport = `anchor_passport_${i.toString(36).padStart(10, '0')}`;
    m.passportEntries.set(w, { passport, live: r < 0.95, version: 1 });
    if (r < 0.95) m.livePassports.set(w, passport), m.liveColumn.set(n, 1);
    if (rnd() < 0.9) m.standing.set(w, 1), m.standingColumn.set(n, 1);
    const l = rnd();
    if (l < 0.9) {
      const expiresMs = l < 0.85 ? now + 3e10 : now - 1;
      m.licences.set(w, new Map([[OCCUPATION, [{ id: `proof_licence_${i.toString(36)}`, kind: 'frsc_driver_licence', current: true, expiresMs }]]]));
      m.licensedUntil.set(n, expiresMs);
    }
    if (rnd() < 0.33) {
      const x = { completed: Math.floor(rnd() * 20), failed: Math.floor(rnd() * 3) };
      m.settled.set(w, x);
      m.completedColumn.set(n, x.completed);
      m.failedColumn.set(n, x.failed);
    }
    const at = now - Math.floor(rnd() * 90_000);
    m.lastReading.set(w, at);
    m.reportAtColumn.set(n, at);
  }
  return m;
}

/** What the ranking reads, from the map and the stand-in gate models. */
function sourcesOf(map: SupplyMap, m: ReturnType<typeof gateModels>, now: number): RankingSources {
  const NO_CLAIMS: never[] = [];
  return {
    nearestInto: (org, la, ln, r, n, out) => map.nearestInto(org, la, ln, r, n, out),
    reportAt: (n) => m.reportAtColumn.get(n),
    completedAt: (n) => m.completedColumn.get(n),
    failedAt: (n) => m.failedColumn.get(n),
    gates: {
      isLive: (o, w) => o === ORG && m.livePassports.has(w),
      isCurrent: (o, w) => o === ORG && (m.standing.get(w) ?? 0) > 0,
      eligibility: (o, w, occupation) => {
        const held = o === ORG && occupation ? m.licences.get(w)?.get(occupation) : undefined;
        let current = false;
        let expired: { id: string } | undefined;
        for (const x of held ?? []) if (x.current && now < x.expiresMs) current = true;
        else expired ??= x;
        if (current) return { eligible: true, reasons: [], claims: [] };
        return {
          eligible: false,
          reasons: [expired ? { code: 'licence_expired', detail: `The licence for ${occupation} has expired.` } : { code: 'licence_missing', detail: `${occupation} requires a statutory licence.` }],
          claims: [],
        };
      },
      liveAt: (n) => m.liveColumn.get(n) === 1,
      currentAt: (n) => m.standingColumn.get(n) > 0,
      credentialsFor: (o, occupation) => (o === ORG && occupation === OCCUPATION ? (n) => (now < m.licensedUntil.get(n) ? NO_CLAIMS : null) : () => null),
    },
  };
}

/** The rounds' figures as they are gathered, and each query's latency over every round. */
interface Rounds {
  bare: number[];
  ranked: number[];
  explained: number[];
  bareCpu: number[];
  rankedCpu: number[];
  bareLat: Float64Array;
  rankLat: Float64Array;
  rankCpuLat: Float64Array;
  candidates: number;
  excluded: number;
}

const cpuSeconds = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1e6;

/** One round: the bare query, the ranking (timed, then its CPU time query by query), the explained ranking. */
function timeRound(a: Allocation, map: SupplyMap, src: RankingSources, points: Point[], now: number, r: number, out: Rounds): void {
  const ask = (q: number) => ({ location: { latitude: points[q][0], longitude: points[q][1], radius_metres: 200 }, search_radius_metres: 5000, occupation_code: OCCUPATION, claim_codes: [] as string[] });
  gc?.();
  let t0 = performance.now();
  let c0 = process.cpuUsage();
  for (let q = 0; q < RANK_QUERIES; q++) {
    const s = performance.now();
    map.nearest(ORG, points[q][0], points[q][1], 5000, POOL);
    out.bareLat[r * RANK_QUERIES + q] = performance.now() - s;
  }
  out.bare.push(RANK_QUERIES / ((performance.now() - t0) / 1000));
  out.bareCpu.push(RANK_QUERIES / cpuSeconds(process.cpuUsage(c0)));
  gc?.();
  t0 = performance.now();
  c0 = process.cpuUsage();
  for (let q = 0; q < RANK_QUERIES; q++) {
    const s = performance.now();
    const ranked = a.rankForOpen(src, now, ORG, ask(q));
    out.rankLat[r * RANK_QUERIES + q] = performance.now() - s;
    if (r === 0) (out.candidates += ranked.candidate_ids.length), (out.excluded += ranked.excluded);
  }
  out.ranked.push(RANK_QUERIES / ((performance.now() - t0) / 1000));
  out.rankedCpu.push(RANK_QUERIES / cpuSeconds(process.cpuUsage(c0)));
  // CPU time of each ranking alone (cpuUsage is a system call: a separate pass, not the timed one)
  for (let q = 0; q < RANK_QUERIES; q++) {
    const u = process.cpuUsage();
    a.rankForOpen(src, now, ORG, ask(q));
    out.rankCpuLat[r * RANK_QUERIES + q] = cpuSeconds(process.cpuUsage(u)) * 1000;
  }
  gc?.();
  t0 = performance.now();
  for (let q = 0; q < RANK_QUERIES; q++) a.rankWith(src, now, ORG, ask(q));
  out.explained.push(RANK_QUERIES / ((performance.now() - t0) / 1000));
}

/** A warm-up, then ROUNDS rounds, under the CPU profiler when BENCH_CPU_PROF names a folder. */
async function timeRounds(a: Allocation, map: SupplyMap, src: RankingSources, points: Point[], now: number): Promise<Rounds> {
  const ask = (q: number) => ({ location: { latitude: points[q][0], longitude: points[q][1], radius_metres: 200 }, search_radius_metres: 5000, occupation_code: OCCUPATION, claim_codes: [] as string[] });
  for (let q = 0; q < Math.min(1000, RANK_QUERIES); q++) {
    map.nearest(ORG, points[q][0], points[q][1], 5000, POOL);
    a.rankForOpen(src, now, ORG, ask(q));
    a.rankWith(src, now, ORG, ask(q));
  }
  const n = RANK_QUERIES * ROUNDS;
  const out: Rounds = { bare: [], ranked: [], explained: [], bareCpu: [], rankedCpu: [], bareLat: new Float64Array(n), rankLat: new Float64Array(n), rankCpuLat: new Float64Array(n), candidates: 0, excluded: 0 };
  const session = PROFILE_DIR ? new Session() : undefined;
  if (session) {
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
  }
  for (let r = 0; r < ROUNDS; r++) timeRound(a, map, src, points, now, r, out);
  if (session) {
    const { profile } = await session.post('Profiler.stop');
    mkdirSync(PROFILE_DIR!, { recursive: true });
    writeFileSync(join(PROFILE_DIR!, 'ranking.cpuprofile'), JSON.stringify(profile));
    session.disconnect();
  }
  return out;
}

async function measureRanking(): Promise<RankingFigures> {
  const a = await import('../../../actors/allocation/index.ts');
  const k = await import('../../../kernel/index.ts');
  const rnd = rng(7);
  const { ids, lat, lng, points } = workersOverLagos(rnd);
  gc?.();
  const before = process.memoryUsage();
  // One numbering per node, shared by the map and every gate model (kernel SubjectNumbers).
  const numbers = new k.SubjectNumbers();
  const map = new a.SupplyMap(9, 5);
  for (let i = 0; i < RANK_WORKERS; i++)
    map.apply(ORG, ids[i], { available: true, onAssignment: false, presence: 'reporting', latitude: lat[i], longitude: lng[i], suspended: false, flagOpen: false, external: [] }, numbers.of(ORG, ids[i]));
  gc?.();
  const mapOnly = process.memoryUsage();
  const now = Date.now();
  const models = gateModels(k, ids, numbers, rnd, now);
  gc?.();
  const after = process.memoryUsage();
  const r = await timeRounds(a, map, sourcesOf(map, models, now), points, now);
  r.bareLat.sort();
  r.rankLat.sort();
  r.rankCpuLat.sort();
  return {
    bare: r.bare,
    ranked: r.ranked,
    explained: r.explained,
    bareCpu: r.bareCpu,
    rankedCpu: r.rankedCpu,
    p99Cpu: r.rankCpuLat[Math.floor(r.rankCpuLat.length * 0.99)],
    mapPerWorker: (mapOnly.rss - before.rss) / RANK_WORKERS,
    p50: r.rankLat[Math.floor(r.rankLat.length * 0.5)],
    p99: r.rankLat[Math.floor(r.rankLat.length * 0.99)],
    bareP99: r.bareLat[Math.floor(r.bareLat.length * 0.99)],
    rssPerWorker: (after.rss - before.rss) / RANK_WORKERS,
    heapPerWorker: (after.heapUsed - before.heapUsed) / RANK_WORKERS,
    candidates: r.candidates / RANK_QUERIES,
    excluded: r.excluded / RANK_QUERIES,
  };
}

/** Part (a) in its child process, on core 0 where taskset can pin it. */
export function runRanking(): Promise<RankingFigures> {
  const pinned = spawnSync('taskset', ['-c', '0', 'true']).status === 0;
  const args = ['--expose-gc', ...process.execArgv, SELF, '--rank'];
  const child = pinned ? spawn('taskset', ['-c', '0', process.execPath, ...args], { stdio: ['ignore', 'pipe', 'inherit'] }) : spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout!.on('data', (c) => (out += c));
  return new Promise((resolve, reject) => child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as RankingFigures) : reject(new Error(`ranking child exited ${code}`)))));
}

if (process.argv.includes('--rank')) {
  measureRanking().then(
    (f) => {
      process.stdout.write(JSON.stringify(f));
      process.exit(0);
    },
    (e) => {
      console.error(e);
      process.exit(1);
    },
  );
}
