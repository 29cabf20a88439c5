/**
 * Gateway bench (DESIGN "Gateway"). One run measures, on one server core (taskset -c 0) with the load
 * generator in another process on the other core (taskset -c 1):
 *
 *   1. bare uWebSockets.js hello-world JSON GET              (baseline for 2)
 *   2. authenticated GET /v1/api_keys through the full pipeline (target >= 50% of 1)
 *   3. bare uWebSockets.js POST echo                          (baseline for 4)
 *   4. idempotent POST /v1/api_keys, a fresh Idempotency-Key each (informative: it creates an
 *      api_key actor per request, so it measures the accounts area as much as the gateway)
 *   5. the same POST replayed (one key, one body): the idempotency layer alone (informative)
 *   6. the POST of 4 on a platform with the accounts area alone: no event pipeline (informative)
 *   7. an idempotent POST, a fresh Idempotency-Key each, to a handler that creates nothing: the
 *      gateway's own share of 4 (target >= 40% of 3; support/noop-area.ts)
 *   8. the POST of 4 on the local stores `npm start` runs on: every write of the create in the
 *      write-ahead log on disk before the answer (target >= 30% of 3)
 *   9. the POST of 4 through `npm start` as a cluster node (NATS_URL and REDIS_URL, loopback by
 *      default; a cluster of one on a namespace of its own, deleted after): every write of the
 *      create stored by JetStream before the answer; measured after the others, alternating with
 *      3 again, since a node cannot be paused (informative; left out, with a notice, when the node
 *      cannot start)
 *
 * Each figure is also given per second of server CPU (read from /proc), which other processes on a
 * shared machine do not move. The seven runs alternate over BENCH_ROUNDS rounds (default 3) against
 * servers started once; each figure is the median of its rounds, and the note lists each round's
 * ratio to the baseline run in the same round.
 *
 * The load generator is written here on node:net: keep-alive connections, a fixed number of
 * requests in flight per connection (PIPELINE), responses framed by Content-Length. This file is also the child processes: `--serve bare|full|local` and `--load <json>`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { compared, type BenchResult } from '../report.ts';
import { createClusterStores } from '../../stores/index.ts';
import { type MainProcess, START_ARGS, startMain } from '../../support/main-process.ts';
import { NOOP_PATH, noopArea } from '../../support/noop-area.ts';
import { registerBenchOrganisation, startRegisteredPlatform } from '../../support/platform.ts';

const SELF = fileURLToPath(import.meta.url);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP ?? 1);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
/**
 * Requests in flight per connection: 1 (keep-alive, no pipelining). The platform does not serve
 * HTTP/1.1 pipelining (docs/gaps.md#gateway: this uWebSockets.js build drops a connection that
 * pipelines behind a response still pending, and every response is pending past uWS's callback),
 * so the bare baselines are measured under the same shape.
 */
const PIPELINE = 1;

// ---------------------------------------------------------------------------------------------
// Load generator (child, core 1)

const CRLF2 = Buffer.from('\r\n\r\n');
const CL_UWS = Buffer.from('Content-Length: ');
const CL_LOWER = Buffer.from('content-length: ');
const EMPTY_BUF = Buffer.alloc(0);

interface LoadSpec {
  port: number;
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** A fresh Idempotency-Key per request. */
  uniqueKey?: boolean;
  seconds: number;
  warmup: number;
  connections: number;
  pipeline: number;
  /** The server process, whose CPU time over the counted window is read from /proc. */
  serverPid: number;
}

interface LoadResult {
  requests: number;
  seconds: number;
  rps: number;
  /** Server CPU seconds (user + system) spent in the counted window. */
  serverCpu: number;
  /** Requests per server CPU-second: robust to other processes on a shared machine. */
  perCpuSecond: number;
  non2xx: number;
  statuses: Record<string, number>;
}

async function load(spec: LoadSpec): Promise<LoadResult> {
  const fixed =
    `${spec.method} ${spec.path} HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: keep-alive\r\n` +
    Object.entries(spec.headers).map(([k, v]) => `${k}: ${v}\r\n`).join('') +
    (spec.body !== undefined ? `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(spec.body)}\r\n` : '');
  const tail = '\r\n' + (spec.body ?? '');
  const staticReq = Buffer.from(fixed + tail);
  let seq = 0;
  const next = (): Buffer | string => (spec.uniqueKey ? `${fixed}idempotency-key: bench-${process.pid}-${seq++}\r\n${tail}` : staticReq);

  const tally: Tally = { counting: false, done: 0, non2xx: 0, statuses: {} };
  let stopped = false;
  const sockets: Socket[] = [];

  const open = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const s = connect(spec.port, '127.0.0.1');
      s.setNoDelay(true);
      sockets.push(s);
      let buf: Buffer = Buffer.alloc(0);
      s.on('connect', () => {
        const batch: Array<Buffer | string> = [];
        for (let i = 0; i < spec.pipeline; i++) batch.push(next());
        s.write(Buffer.concat(batch.map((b) => (typeof b === 'string' ? Buffer.from(b) : b))));
        resolve();
      });
      s.on('error', (e) => (stopped ? undefined : reject(e)));
      s.on('data', (chunk: Buffer) => {
        buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
        const { completed, at } = takeResponses(buf, tally);
        buf = at >= buf.length ? EMPTY_BUF : buf.subarray(at);
        if (completed && !stopped) {
          if (spec.uniqueKey) {
            let out = '';
            for (let i = 0; i < completed; i++) out += next() as string;
            s.write(out);
          } else {
            s.write(completed === 1 ? staticReq : Buffer.concat(Array(completed).fill(staticReq)));
          }
        }
      });
    });

  await Promise.all(Array.from({ length: spec.connections }, open));
  await new Promise((r) => setTimeout(r, spec.warmup * 1000));
  tally.counting = true;
  const cpu0 = cpuSeconds(spec.serverPid);
  const t0 = process.hrtime.bigint();
  await new Promise((r) => setTimeout(r, spec.seconds * 1000));
  tally.counting = false;
  const elapsed = Number(process.hrtime.bigint() - t0) / 1e9;
  const serverCpu = cpuSeconds(spec.serverPid) - cpu0;
  stopped = true;
  for (const s of sockets) s.destroy();
  const { done, non2xx, statuses } = tally;
  return { requests: done, seconds: elapsed, rps: done / elapsed, serverCpu, perCpuSecond: serverCpu > 0 ? done / serverCpu : 0, non2xx, statuses };
}

/** What the load counts: responses while `counting` (after the warm-up), and their statuses. */
interface Tally {
  counting: boolean;
  done: number;
  non2xx: number;
  statuses: Record<string, number>;
}

/**
 * The whole responses at the front of `buf`, framed on bytes with no string made (status at +9,
 * the Content-Length header), each counted in `tally` while it counts: how many, and where the
 * rest begins.
 */
function takeResponses(buf: Buffer, tally: Tally): { completed: number; at: number } {
  let completed = 0;
  let at = 0;
  for (;;) {
    const end = buf.indexOf(CRLF2, at);
    if (end < 0) break;
    let len = 0;
    let cl = buf.indexOf(CL_UWS, at);
    if (cl < 0 || cl > end) cl = buf.indexOf(CL_LOWER, at);
    if (cl >= 0 && cl < end) {
      for (let i = cl + CL_UWS.length; i < end; i++) {
        const c = buf[i];
        if (c < 48 || c > 57) break;
        len = len * 10 + (c - 48);
      }
    }
    if (buf.length < end + 4 + len) break;
    if (tally.counting) {
      tally.done++;
      if (buf[at + 9] !== 50 /* '2' */) {
        tally.non2xx++;
        const code = buf.toString('latin1', at + 9, at + 12);
        tally.statuses[code] = (tally.statuses[code] ?? 0) + 1;
      } else tally.statuses['2xx'] = (tally.statuses['2xx'] ?? 0) + 1;
    }
    at = end + 4 + len;
    completed++;
  }
  return { completed, at };
}

/** utime + stime of a process, in seconds (Linux /proc; clock ticks of 1/100 s). */
function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

// ---------------------------------------------------------------------------------------------
// Servers (child, core 0)

async function serveBareChild(): Promise<void> {
  const { serveBare } = await import('../../support/bare-server.ts');
  const s = await serveBare('127.0.0.1', 0);
  process.stdout.write(JSON.stringify({ port: s.port }) + '\n');
}

async function serveFullChild(family: 'memory' | 'local' = 'memory'): Promise<void> {
  const { areas: all } = await import('../../actors/index.ts');
  // `--serve full accounts` (or BENCH_AREAS=accounts,ledger) mounts only those areas, to tell the
  // gateway's and the accounts area's cost from the event pipeline's.
  // `noop` adds the bench-only area of figure 7.
  const only = (process.argv[4] ?? process.env.BENCH_AREAS)?.split(',').filter(Boolean);
  const served = await startRegisteredPlatform(only ? [...all, noopArea].filter((a) => only.includes(a.name)) : all, family);
  process.stdout.write(JSON.stringify(served) + '\n');
}

// ---------------------------------------------------------------------------------------------
// Orchestration (parent)

/** A child on one core, with this process's Node flags: the servers run as `npm start` runs (package.json). */
function child(core: number, args: string[]): ChildProcess {
  return spawn('taskset', ['-c', String(core), process.execPath, ...process.execArgv, SELF, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
}

function firstLine(p: ChildProcess): Promise<any> {
  return new Promise((resolve, reject) => {
    let buf = '';
    p.stdout!.on('data', (c) => {
      buf += c;
      const nl = buf.indexOf('\n');
      if (nl >= 0) resolve(JSON.parse(buf.slice(0, nl)));
    });
    p.on('exit', (code) => reject(new Error(`child exited ${code} before answering`)));
  });
}

interface Server {
  port: number;
  /** The registered organisation's first key (full servers). */
  key?: string;
  pid: number;
  pause(): void;
  resume(): void;
  stop(): void;
}

async function startServer(kind: 'bare' | 'full' | 'local', areas?: string): Promise<Server> {
  const p = child(0, ['--serve', kind, ...(areas ? [areas] : [])]);
  const info = await firstLine(p);
  return { ...info, pid: p.pid!, pause: () => p.kill('SIGSTOP'), resume: () => p.kill('SIGCONT'), stop: () => (p.kill('SIGCONT'), p.kill('SIGKILL')) };
}

const NATS_URL = process.env.NATS_URL ?? '127.0.0.1:4222';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * `npm start` as a cluster node (figure 9) on a namespace of its own, with a registered
 * organisation; `drop` deletes the namespace once the node is stopped. It is never paused: a node
 * stopped for seconds would lose its shard leases and spend the next run taking them back.
 */
async function startClusterServer(): Promise<Server & { drop(): Promise<void> }> {
  const namespace = `bench_gw_${process.pid}`;
  const drop = async () => {
    const stores = await createClusterStores({ natsUrl: NATS_URL, redisUrl: REDIS_URL, now: Date.now, namespace, ephemeral: true });
    await stores.close();
  };
  let node: MainProcess | undefined;
  try {
    node = await startMain({ NATS_URL, REDIS_URL, STORE_NAMESPACE: namespace, METRICS_PORT: '0' }, ['taskset', '-c', '0', process.execPath, ...START_ARGS]);
    const { child, port } = node;
    const key = await registerBenchOrganisation(port, `bench.cluster${process.pid}@example.ng`);
    return { port, key, pid: child.pid!, pause: () => undefined, resume: () => undefined, stop: () => child.kill('SIGKILL'), drop };
  } catch (e) {
    node?.child.kill('SIGKILL');
    await drop().catch(() => undefined);
    throw e;
  }
}

async function runLoad(spec: Omit<LoadSpec, 'seconds' | 'warmup' | 'connections' | 'pipeline'>): Promise<LoadResult> {
  const full: LoadSpec = { seconds: SECONDS, warmup: WARMUP_SECONDS, connections: CONNECTIONS, pipeline: PIPELINE, ...spec };
  const p = child(1, ['--load', JSON.stringify(full)]);
  const r = (await firstLine(p)) as LoadResult;
  if (r.non2xx) process.stderr.write(`  ${spec.method} ${spec.path}: ${r.non2xx} non-2xx ${JSON.stringify(r.statuses)}\n`);
  return r;
}

/** Alternating rounds: on a shared machine one run of each can land in a slow or fast moment. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** The runs of one figure over the rounds: median wall and per-CPU rates, and each round's ratio to its baseline. */
class Series {
  readonly runs: LoadResult[] = [];
  get rps(): number {
    return median(this.runs.map((r) => r.rps));
  }
  get perCpu(): number {
    return median(this.runs.map((r) => r.perCpuSecond));
  }
  get cpu(): number {
    return median(this.runs.map((r) => r.serverCpu));
  }
  get non2xx(): number {
    return this.runs.reduce((n, r) => n + r.non2xx, 0);
  }
  /** Per-round ratios to `base` (same round), for the note: how far the rounds spread. */
  spread(base: Series, perCpu = false): string {
    return this.runs.map((r, i) => ((perCpu ? r.perCpuSecond / base.runs[i].perCpuSecond : r.rps / base.runs[i].rps)).toFixed(2)).join(', ');
  }
}

export default async function gatewayBench(): Promise<BenchResult[]> {
  const echoBody = JSON.stringify({ name: 'bench key' });
  // The servers run on core 0 at once, and every one but the server under load is stopped
  // (SIGSTOP), so no server's background work (a large heap's concurrent marking and sweeping) runs
  // during another's measurement. The list GET and the replay have platforms of their own, so every
  // round measures the same thing whatever the create rounds added to the creating platform's
  // heap. The last mounts the accounts area alone, i.e. the same create without the event pipeline
  // (sequence, public event, reactions) every create feeds (informative).
  const servers = await Promise.all([startServer('bare'), startServer('full'), startServer('full'), startServer('full'), startServer('full', 'accounts'), startServer('full', 'accounts,noop'), startServer('local')]);
  const [bare, lister, replayer, creator, accounts, noop, localCreator] = servers;
  const [bareGet, listGet, barePost, replayPost, idemPost, accountsPost, noopPost, localPost, clusterPost, clusterBarePost] = Array.from({ length: 10 }, () => new Series());
  let clusterCreator: (Server & { drop(): Promise<void> }) | undefined;
  const measure = async (series: Series, server: Server, spec: Omit<LoadSpec, 'seconds' | 'warmup' | 'connections' | 'pipeline' | 'serverPid' | 'port'>) => {
    for (const s of servers) if (s !== server) s.pause();
    server.resume();
    series.runs.push(await runLoad({ ...spec, serverPid: server.pid, port: server.port }));
  };
  const key = (s: Server) => ({ 'service-api-key': s.key! });
  try {
    for (let round = 0; round < ROUNDS; round++) {
      await measure(bareGet, bare, { method: 'GET', path: '/hello', headers: {} });
      await measure(listGet, lister, { method: 'GET', path: '/v1/api_keys', headers: key(lister) });
      await measure(barePost, bare, { method: 'POST', path: '/echo', headers: {}, body: echoBody });
      await measure(replayPost, replayer, { method: 'POST', path: '/v1/api_keys', headers: { ...key(replayer), 'idempotency-key': 'bench-replay' }, body: echoBody });
      await measure(idemPost, creator, { method: 'POST', path: '/v1/api_keys', headers: key(creator), body: echoBody, uniqueKey: true });
      await measure(accountsPost, accounts, { method: 'POST', path: '/v1/api_keys', headers: key(accounts), body: echoBody, uniqueKey: true });
      await measure(noopPost, noop, { method: 'POST', path: NOOP_PATH, headers: key(noop), body: echoBody, uniqueKey: true });
      await measure(localPost, localCreator, { method: 'POST', path: '/v1/api_keys', headers: key(localCreator), body: echoBody, uniqueKey: true });
    }
    // Figure 9 after the others, against the bare echo again: a cluster node cannot be paused (its
    // leases would lapse), and its lease loop and feed readers would run through the other runs.
    clusterCreator = await startClusterServer().catch((e: Error) => {
      process.stderr.write(`  gateway: figure 9 left out: ${e.message}\n`);
      return undefined;
    });
    if (clusterCreator) servers.push(clusterCreator);
    for (let round = 0; clusterCreator && round < ROUNDS; round++) {
      await measure(clusterBarePost, bare, { method: 'POST', path: '/echo', headers: {}, body: echoBody });
      await measure(clusterPost, clusterCreator, { method: 'POST', path: '/v1/api_keys', headers: key(clusterCreator), body: echoBody, uniqueKey: true });
    }
  } finally {
    for (const s of servers) s.stop();
    await clusterCreator?.drop().catch((e: Error) => process.stderr.write(`  gateway: the cluster node's namespace was not deleted: ${e.message}\n`));
  }
  const shape = `server core 0, load core 1; medians of ${ROUNDS} alternating rounds of ${SECONDS}s`;
  const note = `${shape}; ${CONNECTIONS} keep-alive conns x ${PIPELINE} in flight`;
  const postNote = `${shape}; ${CONNECTIONS} keep-alive conns x 1 in flight`;
  const errs = (r: Series) => (r.non2xx ? `; ${r.non2xx} non-2xx` : '');
  const rounds = (r: Series, base: Series, perCpu = false) => `; rounds ${r.spread(base, perCpu)}`;
  return [
    compared('authenticated list GET (full pipeline)', Math.round(listGet.rps), 'req/s', 'bare uWS hello-world GET', Math.round(bareGet.rps), 0.5, note + rounds(listGet, bareGet) + errs(listGet)),
    compared('idempotent POST /v1/api_keys (new key each)', Math.round(idemPost.rps), 'req/s', 'bare uWS POST echo', Math.round(barePost.rps), undefined, postNote + '; creates an api_key actor per request (informative; the target is on the no-op row)' + rounds(idemPost, barePost) + errs(idemPost)),
    compared('idempotent POST replay (same key and body)', Math.round(replayPost.rps), 'req/s', 'bare uWS POST echo', Math.round(barePost.rps), undefined, postNote + '; the idempotency layer alone' + rounds(replayPost, barePost) + errs(replayPost)),
    compared('idempotent POST, no-op handler (new key each)', Math.round(noopPost.rps), 'req/s', 'bare uWS POST echo', Math.round(barePost.rps), 0.4, postNote + "; target: the gateway's own share of a first-time idempotent POST: claim, record, JSON, replay copy" + rounds(noopPost, barePost) + errs(noopPost)),
    compared('idempotent POST /v1/api_keys (new key each), local stores', Math.round(localPost.rps), 'req/s', 'bare uWS POST echo', Math.round(barePost.rps), 0.3, postNote + '; acknowledged once on disk (write-ahead log synced)' + rounds(localPost, barePost) + errs(localPost)),
    ...(clusterCreator ? [compared('idempotent POST /v1/api_keys (new key each), one cluster node', Math.round(clusterPost.rps), 'req/s', 'bare uWS POST echo', Math.round(clusterBarePost.rps), undefined, postNote + `; after the other figures, alternating with the echo; npm start on NATS and Redis, a cluster of one; every write stored by JetStream before the answer; server CPU per create ${Math.round(1e6 / clusterPost.perCpu)} us` + rounds(clusterPost, clusterBarePost) + errs(clusterPost))] : []),
    compared('idempotent POST /v1/api_keys, accounts area alone', Math.round(accountsPost.rps), 'req/s', 'bare uWS POST echo', Math.round(barePost.rps), undefined, postNote + '; no event pipeline mounted' + rounds(accountsPost, barePost) + errs(accountsPost)),
    // The same figures per second of server CPU, i.e. what one saturated server core serves. On a
    // shared machine the load generator often cannot saturate the server, and wall-clock rates then
    // measure the generator; CPU-normalised rates do not move with that.
    compared('authenticated list GET per server CPU-second', Math.round(listGet.perCpu), 'req/cpu-s', 'bare GET per server CPU-second', Math.round(bareGet.perCpu), 0.5, `server CPU ${listGet.cpu.toFixed(2)}s vs ${bareGet.cpu.toFixed(2)}s` + rounds(listGet, bareGet, true)),
    compared('idempotent POST per server CPU-second', Math.round(idemPost.perCpu), 'req/cpu-s', 'bare POST echo per server CPU-second', Math.round(barePost.perCpu), undefined, `informative, per server core; server CPU ${idemPost.cpu.toFixed(2)}s vs ${barePost.cpu.toFixed(2)}s` + rounds(idemPost, barePost, true)),
    compared('idempotent POST, no-op handler, per server CPU-second', Math.round(noopPost.perCpu), 'req/cpu-s', 'bare POST echo per server CPU-second', Math.round(barePost.perCpu), undefined, `server CPU ${noopPost.cpu.toFixed(2)}s` + rounds(noopPost, barePost, true)),
    compared('idempotent POST replay per server CPU-second', Math.round(replayPost.perCpu), 'req/cpu-s', 'bare POST echo per server CPU-second', Math.round(barePost.perCpu), undefined, `server CPU ${replayPost.cpu.toFixed(2)}s` + rounds(replayPost, barePost, true)),
  ];
}

// ---------------------------------------------------------------------------------------------
// Child entry points

if (process.argv[1] === SELF) {
  const [role, arg] = process.argv.slice(2);
  if (role === '--serve') {
    process.on('SIGTERM', () => process.exit(0)); // lets --cpu-prof write its profile
    await (arg === 'bare' ? serveBareChild() : serveFullChild(arg === 'local' ? 'local' : 'memory'));
  } else if (role === '--load') {
    const r = await load(JSON.parse(arg) as LoadSpec);
    process.stdout.write(JSON.stringify(r) + '\n');
    process.exit(0);
  }
}
