/**
 * Durability bench (DESIGN "Stores", STYLE "An acknowledgement is a promise"; issue 33), one run:
 *
 *   a. the kill loop of the crash test at scale (support/local-node.ts crashLoop): `npm start` on
 *      the local stores killed -9 KILLS times under CLIENTS concurrent keyed creates, restarted on
 *      one directory: acknowledged, lost (0), duplicates (0), restart p99 (spawn to first answer);
 *   b. idempotent POST /v1/api_keys through `npm start` on local vs memory stores (>= 0.5x), the
 *      servers on core 0 and the load generator of bench/scenarios/gateway.ts (`--load`) on core
 *      1; and hot-actor commands through the runtime on local vs memory stores (>= 0.3x), in this
 *      process. Alternating rounds; ratio of medians, each round's ratio in the note;
 *   c. RssAnon (/proc/self/status: anonymous memory, the data file's mapped pages left out) of a
 *      platform process after RECORDS keyed creates vs after RECORDS / 10 (<= 1.2x on local),
 *      beside the same for memory stores; the child runs the platform as main.ts does (every area
 *      plus the bench record area, MAX_ACTIVE_ACTORS on local) and creates through the runtime;
 *   d. spawn of `npm start` to its first 200 on a directory holding WORKERS allocation workers,
 *      each gone quiet long enough to be a ghost (workersChild), beside the same on a directory
 *      holding only the organisation: ROUNDS starts reading the whole journal (no checkpoint of
 *      the read models), then ROUNDS taking them back from the checkpoint the stop before wrote.
 *
 * Sizes: BENCH_DURABILITY_KILLS, _CLIENTS, _HOT, _RECORDS, _WORKERS; BENCH_ROUNDS. Parts:
 * BENCH_DURABILITY_PARTS (letters, default `abcd`) runs only those named. This file is
 * also its own child processes: `--rss <family> <count>` and `--workers <dir> <count>`.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { absolute, compared, round, type BenchResult } from '../report.ts';
import { crashLoop, startLocalNode, type LocalNode } from '../../support/local-node.ts';
import { READ_MODELS_FILE } from '../../stores/index.ts';
import { BenchRecord, recordArea } from '../../support/record-area.ts';
import { tempDir } from '../../support/stores.ts';

const SELF = fileURLToPath(import.meta.url);
const GATEWAY_BENCH = fileURLToPath(new URL('./gateway.ts', import.meta.url));
const env = process.env;
const KILLS = Number(env.BENCH_DURABILITY_KILLS ?? 40);
const CLIENTS = Number(env.BENCH_DURABILITY_CLIENTS ?? 32);
const HOT = Number(env.BENCH_DURABILITY_HOT ?? 300_000);
const RECORDS = Number(env.BENCH_DURABILITY_RECORDS ?? 2_000_000);
const WORKERS = Number(env.BENCH_DURABILITY_WORKERS ?? 1_000_000);
const ROUNDS = Number(env.BENCH_ROUNDS ?? 3);
const PARTS = env.BENCH_DURABILITY_PARTS ?? 'abcd';
const LOAD_SECONDS = Number(env.BENCH_SECONDS ?? 3);
/** main.ts's passivation limit over the local stores (MAX_ACTIVE_ACTORS default). */
const LOCAL_MAX_ACTIVE = 50_000;
/** Commands in flight at once, as the runtime bench sends them. */
const WAVE = 8_192;
const ORG = 'org_durability_bench';
/** Targets the issue leaves open: a restart after a crash, and a start over a million workers, in the time a user waits for one. */
const RESTART_TARGET_MS = 5_000;
/** How long (d)'s workers have gone without a reading when the platform starts: longer than any pack's ghost_after_seconds. */
const QUIET_MS = 3_600_000;
const WORKERS_START_TARGET_MS = 30_000;

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const p99 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.99))] ?? 0;
const spread = (xs: number[], digits = 0) => `min/median/max ${[Math.min(...xs), median(xs), Math.max(...xs)].map((x) => round(x, digits).toLocaleString('en-US')).join(' / ')}`;
const ratios = (a: number[], b: number[]) => a.map((x, i) => (x / b[i]).toFixed(2)).join(', ');

/** A child's first line of output, as JSON (this file's child roles, gateway.ts's load generator). */
function childLine(args: string[], core?: number): Promise<any> {
  const argv = [process.execPath, ...process.execArgv, ...args];
  const p = core === undefined ? spawn(argv[0], argv.slice(1), { stdio: ['ignore', 'pipe', 'inherit'] }) : spawn('taskset', ['-c', String(core), ...argv], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = once(p, 'exit').then(([code]) => Promise.reject(new Error(`${args.join(' ').slice(0, 80)} exited ${code} before answering`)));
  return Promise.race([once(createInterface({ input: p.stdout! }), 'line').then(([line]) => JSON.parse(line as string)), exited]);
}

async function register(node: LocalNode, name: string): Promise<string> {
  const reg = await node.call('POST', '/v1/registrations', {}, { organisation_name: `${name} Works`, name: 'Ada Obi', email: `${name.toLowerCase()}.${process.pid}@example.ng`, password: 'violet-harmattan-7-kettle' });
  if (reg.status >= 300) throw new Error(`registration failed: ${reg.status} ${JSON.stringify(reg.body)}`);
  return reg.body.api_key.key;
}

// ---------------------------------------------------------------------------------------------
// a. The kill loop at scale

async function killLoop(): Promise<BenchResult[]> {
  const root = tempDir('wf-durability-');
  try {
    const t0 = performance.now();
    const r = await crashLoop({ dir: join(root, 'data'), kills: KILLS, clients: CLIENTS, seed: 0xd0ab1e, acksBetweenKills: [20, 600], replaysPerKill: 16 });
    const took = round((performance.now() - t0) / 1000);
    const refused = r.refused.length ? `; ${r.refused.length} refused: ${r.refused[0]}` : '';
    return [
      absolute(`writes acknowledged (npm start killed -9 ${r.kills} times)`, r.acknowledged, 'writes', undefined, true, `${CLIENTS} clients, POST /v1/api_keys with an Idempotency-Key each; ${r.inDoubt} more in doubt at a kill, retried after the restart; ${took} s${refused}`),
      absolute('acknowledged writes lost', r.lost.length, 'writes', 0, false, r.lost.length ? `e.g. ${r.lost[0]}` : 'every acknowledged key listed, and its secret authenticates; every key in doubt listed once'),
      absolute('records created twice (duplicates)', r.duplicates.length, 'records', 0, false, `${r.records} records listed for ${r.acknowledged + r.inDoubt} keys`),
      absolute('acknowledged keys sent again after a kill not replayed', r.replayMismatches.length, 'keys', 0, false, `${r.replays} replays checked (status, Service-Idempotent-Replay: true, body)`),
      absolute('restarted processes that stopped answering', r.stalls.length, 'restarts', 0, false, r.stalls.length ? `${r.stalls[0]}` : 'each kept answering until its kill'),
      absolute('restart to first answered request, p99', round(p99(r.restartMs)), 'ms', RESTART_TARGET_MS, false, `spawn of npm start's command to its first answer; ${spread(r.restartMs)} ms over ${r.restartMs.length} restarts`),
    ];
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// b. Throughput on local vs memory stores

async function gatewayCreates(): Promise<BenchResult> {
  const root = tempDir('wf-durability-gw-');
  const servers = await Promise.all([startLocalNode(join(root, 'local'), { core: 0 }), startLocalNode(join(root, 'memory'), { core: 0, env: { STORE: 'memory' } })]);
  try {
    const keys = await Promise.all(servers.map((s, i) => register(s, `Gateway${i}`)));
    const rps: number[][] = [[], []];
    for (let r = 0; r < ROUNDS; r++) {
      for (let i = 0; i < servers.length; i++) {
        // the other server is stopped, so its background work never runs in this one's window
        servers[1 - i].child.kill('SIGSTOP');
        servers[i].child.kill('SIGCONT');
        const spec = { port: servers[i].port, method: 'POST', path: '/v1/api_keys', headers: { 'service-api-key': keys[i] }, body: JSON.stringify({ name: 'bench key' }), uniqueKey: true, seconds: LOAD_SECONDS, warmup: 1, connections: 64, pipeline: 1, serverPid: servers[i].child.pid };
        const res = await childLine([GATEWAY_BENCH, '--load', JSON.stringify(spec)], 1);
        if (res.non2xx) process.stderr.write(`  durability: ${res.non2xx} non-2xx ${JSON.stringify(res.statuses)}\n`);
        rps[i].push(res.rps);
      }
    }
    for (const s of servers) s.child.kill('SIGCONT');
    return compared('idempotent POST /v1/api_keys, local stores', Math.round(median(rps[0])), 'req/s', 'the same on memory stores', Math.round(median(rps[1])), 0.5, `npm start on core 0, gateway.ts load on core 1, 64 conns; medians of ${ROUNDS} alternating rounds of ${LOAD_SECONDS} s; local ${spread(rps[0])}; memory ${spread(rps[1])}; rounds ${ratios(rps[0], rps[1])}`);
  } finally {
    await Promise.all(servers.map((s) => s.kill()));
    rmSync(root, { recursive: true, force: true });
  }
}

async function hotActor(family: 'local' | 'memory'): Promise<number> {
  const { ActorSystem, SystemClock } = await import('../../runtime/index.ts');
  const { createLocalStores, createMemoryStores } = await import('../../stores/index.ts');
  const clock = new SystemClock();
  const dir = tempDir('wf-durability-hot-');
  const stores = family === 'local' ? createLocalStores({ dir, now: () => clock.now() }) : createMemoryStores({ now: () => clock.now() });
  const system = new ActorSystem({ stores, clock, kinds: [BenchRecord], limits: { mailboxCapacity: WAVE * 2 } });
  await system.start();
  // one record taking every command: each create appends an event (no dedupe id, support/record-area.ts)
  const send = (n: number) => system.ask(BenchRecord, 'bcr_hot', 'create', { key: 'hot', n }, { org: ORG });
  const waves = async (total: number) => {
    for (let i = 0; i < total; i += WAVE) await Promise.all(Array.from({ length: Math.min(WAVE, total - i) }, (_, j) => send(i + j)));
  };
  await waves(HOT / 10); // warm-up
  const t0 = performance.now();
  await waves(HOT);
  const rate = HOT / ((performance.now() - t0) / 1000);
  await system.stop();
  await stores.close();
  rmSync(dir, { recursive: true, force: true });
  return rate;
}

async function hotActors(): Promise<BenchResult> {
  const rates: number[][] = [[], []];
  for (let r = 0; r < ROUNDS; r++) {
    rates[0].push(await hotActor('local'));
    rates[1].push(await hotActor('memory'));
  }
  return compared('hot-actor commands through the runtime, local stores', Math.round(median(rates[0])), 'cmd/s', 'the same on memory stores', Math.round(median(rates[1])), 0.3, `one actor, ${HOT.toLocaleString('en-US')} commands in waves of ${WAVE}, in this process (not pinned: LMDB flushes on its own thread); medians of ${ROUNDS} rounds; local ${spread(rates[0])}; memory ${spread(rates[1])}; rounds ${ratios(rates[0], rates[1])}`);
}

// ---------------------------------------------------------------------------------------------
// c. Anonymous resident memory after many records

interface RssReport {
  rssAnonKb: number;
  heapUsedMb: number;
  seconds: number;
}

/** Child: a platform over `family` stores, `count` keyed creates through the runtime, then RssAnon after a GC. */
async function rssChild(family: 'local' | 'memory', count: number): Promise<void> {
  const { areas } = await import('../../actors/index.ts');
  const { createPlatform, createDedupe, createdId, stopPlatform } = await import('../../kernel/index.ts');
  const { SystemClock } = await import('../../runtime/index.ts');
  const { createLocalStores, createMemoryStores } = await import('../../stores/index.ts');
  const clock = new SystemClock();
  const dir = tempDir('wf-durability-rss-');
  const stores = family === 'local' ? createLocalStores({ dir, now: () => clock.now() }) : createMemoryStores({ now: () => clock.now() });
  // as main.ts builds it: idle actors passivated past the local limit, the memory family's default otherwise
  const platform = await createPlatform({ areas: [...areas, recordArea], stores, clock, config: {}, limits: family === 'local' ? { maxActive: LOCAL_MAX_ACTIVE } : undefined });
  const t0 = performance.now();
  for (let i = 0; i < count; i += WAVE) {
    const wave: Promise<unknown>[] = [];
    for (let j = i; j < Math.min(count, i + WAVE); j++) {
      // a keyed create as the record area's route makes it (support/record-area.ts)
      const caller = { org: ORG, livemode: false, idempotencyKey: `rss-${j}` };
      wave.push(platform.system.ask(BenchRecord, createdId(caller, BenchRecord.prefix), 'create', { key: caller.idempotencyKey, n: j }, { ...caller, dedupeId: createDedupe(caller) }));
    }
    await Promise.all(wave);
  }
  const seconds = (performance.now() - t0) / 1000;
  await platform.system.settle(); // the feed readers (audit entries, public events) and shedding catch up
  await new Promise((r) => setTimeout(r, 1_000));
  for (let i = 0; i < 3; i++) (globalThis as { gc?: () => void }).gc?.();
  const status = readFileSync('/proc/self/status', 'utf8');
  const rssAnonKb = Number(/RssAnon:\s+(\d+)/.exec(status)?.[1] ?? 0);
  const report: RssReport = { rssAnonKb, heapUsedMb: process.memoryUsage().heapUsed / 2 ** 20, seconds };
  process.stdout.write(JSON.stringify(report) + '\n');
  await stopPlatform(platform);
  rmSync(dir, { recursive: true, force: true });
  process.exit(0);
}

async function residentMemory(): Promise<BenchResult[]> {
  const small = Math.round(RECORDS / 10);
  const run = (family: string, n: number): Promise<RssReport> => childLine(['--expose-gc', '--max-old-space-size=16384', SELF, '--rss', family, String(n)]);
  const out: BenchResult[] = [];
  for (const family of ['local', 'memory'] as const) {
    const few = await run(family, small);
    const many = await run(family, RECORDS);
    const mb = (r: RssReport) => round(r.rssAnonKb / 1024);
    const note = (r: RssReport) => `heap used ${round(r.heapUsedMb)} MB, created in ${round(r.seconds)} s`;
    out.push({
      ...compared(`RssAnon after ${RECORDS.toLocaleString('en-US')} records, ${family} stores`, mb(many), 'MB', `after ${small.toLocaleString('en-US')}`, mb(few), undefined, `${note(many)}; at ${small.toLocaleString('en-US')}: ${note(few)}`),
      // at most 1.2x on local; memory stores keep every record on the heap and have no target
      ...(family === 'local' ? { target: 1.2, pass: mb(many) / mb(few) <= 1.2 } : {}),
    });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// d. Start with a million workers on disk

/** Child: an organisation on the local stores in `dir`, and `count` allocation workers set available through the area's face. */
async function workersChild(dir: string, count: number): Promise<void> {
  const { areas } = await import('../../actors/index.ts');
  const { setAvailability } = await import('../../actors/allocation/index.ts');
  const { createPlatform, stopPlatform } = await import('../../kernel/index.ts');
  const { startGateway } = await import('../../gateway/index.ts');
  const { ManualClock } = await import('../../runtime/index.ts');
  const { createLocalStores } = await import('../../stores/index.ts');
  // The workers are written at one instant of a manual clock, QUIET_MS before now, and the clock
  // then moves to now: every worker has gone without a reading past any pack's ghost_after_seconds
  // and holds its ghost presence, as on a platform that ran a while. On the system clock what the
  // directory held would depend on how long this machine took to write it (presence.ts: a worker
  // turns ghost on its own once ghost_after has passed).
  const clock = new ManualClock(Date.now() - QUIET_MS);
  const platform = await createPlatform({ areas, stores: createLocalStores({ dir, now: () => clock.now() }), clock, config: {}, limits: { maxActive: LOCAL_MAX_ACTIVE } });
  const gw = await startGateway(platform, { host: '127.0.0.1', port: 0 });
  const res = await fetch(`http://127.0.0.1:${gw.port}/v1/registrations`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ organisation_name: 'Workers Works', name: 'Ada Obi', email: `workers.${process.pid}@example.ng`, password: 'violet-harmattan-7-kettle' }),
  });
  const reg = (await res.json()) as { api_key: { key: string }; organisation: { id: string } };
  const caller = { org: reg.organisation.id, livemode: false };
  const t0 = performance.now();
  for (let i = 0; i < count; i += WAVE) {
    const wave: Promise<unknown>[] = [];
    for (let j = i; j < Math.min(count, i + WAVE); j++) wave.push(setAvailability(platform, caller, `w-${j}`, 'available'));
    await Promise.all(wave);
  }
  const seconds = (performance.now() - t0) / 1000;
  await clock.advance(QUIET_MS);
  // a platform that ran a while has its feed readers (public events, reactions) caught up: the
  // start measured is a restart's, not one that first projects the million writes just made
  for (;;) {
    const lags = await platform.system.feeds.figures();
    if (lags.every((f) => f.value === 0)) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  if (count > 0) {
    // the directory holds what the comment above says, or the figure would mean something else
    const last = await fetch(`http://127.0.0.1:${gw.port}/v1/allocation/availability/w-${count - 1}`, { headers: { 'service-api-key': reg.api_key.key } });
    const presence = ((await last.json()) as { presence?: string }).presence;
    if (presence !== 'ghost') throw new Error(`the last worker's presence is ${presence} after ${QUIET_MS} ms without a reading, not ghost: raise QUIET_MS past the pack's ghost_after_seconds`);
  }
  await gw.close(0);
  await stopPlatform(platform);
  process.stdout.write(JSON.stringify({ key: reg.api_key.key, seconds }) + '\n');
  process.exit(0);
}

/**
 * Starts over the prepared directories: first ROUNDS that read the whole journal (the checkpoint
 * of the read models removed before each: a directory a build first starts on), then ROUNDS that
 * take the read models back from the checkpoint the stop before wrote (a restart after a stop).
 */
async function startWithWorkers(): Promise<BenchResult[]> {
  const root = tempDir('wf-durability-workers-');
  try {
    const whole: number[][] = [[], []];
    const kept: number[][] = [[], []];
    const prepared: Array<{ key: string; seconds: number }> = [];
    for (const [i, n] of [WORKERS, 0].entries()) {
      const dir = join(root, `w${n}`);
      // the preparation keeps every worker in the supply map and the read models in one process:
      // at a million, more than V8's default old space (the platform started after it is measured
      // with its own defaults)
      const p = await childLine(['--max-old-space-size=16384', SELF, '--workers', dir, String(n)]);
      prepared.push(p);
      const path = `/v1/allocation/availability/w-${Math.max(0, n - 1)}`;
      for (const times of [whole, kept]) {
        for (let r = 0; r < ROUNDS; r++) {
          if (times === whole) rmSync(join(dir, READ_MODELS_FILE), { force: true });
          const node = await startLocalNode(dir, { ready: async (s) => (await s.call('GET', n ? path : '/v1/api_keys?limit=1', { 'service-api-key': p.key })).status === 200 });
          times[i].push(node.startMs);
          await node.stop();
        }
      }
    }
    const row = (times: number[][], how: string, label: string): BenchResult => {
      const value = round(median(times[0]));
      return {
        ...compared(`npm start to first 200, ${WORKERS.toLocaleString('en-US')} allocation workers on disk, ${label}`, value, 'ms', 'the same, organisation only', round(median(times[1]))),
        target: WORKERS_START_TARGET_MS,
        pass: value <= WORKERS_START_TARGET_MS,
        note: `target on the value; ${how}; GET of the last worker's availability; ${spread(times[0])} ms over ${ROUNDS} starts; the organisation alone ${spread(times[1])} ms; workers written in ${round(prepared[0].seconds)} s through the allocation face`,
      };
    };
    return [
      row(whole, 'no checkpoint of the read models (removed before each start): the whole journal read, as at a build\'s first start', 'reading the whole journal'),
      row(kept, 'each start takes the read models back from the checkpoint its stop before wrote (kernel/read-model-checkpoints.ts)', 'after a stop'),
    ];
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

export default async function durability(): Promise<BenchResult[]> {
  const results: BenchResult[] = [];
  if (PARTS.includes('a')) results.push(...(await killLoop()));
  if (PARTS.includes('b')) results.push(await gatewayCreates(), await hotActors());
  if (PARTS.includes('c')) results.push(...(await residentMemory()));
  if (PARTS.includes('d')) results.push(...(await startWithWorkers()));
  return results;
}

if (process.argv[1] === SELF) {
  const [role, a, b] = process.argv.slice(2);
  if (role === '--rss') await rssChild(a as 'local' | 'memory', Number(b));
  else if (role === '--workers') await workersChild(a, Number(b));
}
