/**
 * `npm start` processes on a data directory (DESIGN "Stores": local, the default), for the crash
 * test and the durability bench: start one and time it to its first answered request, kill it -9,
 * and the kill loop of STYLE "An acknowledgement is a promise".
 *
 * The loop drives `main.ts` itself rather than a platform assembled for the test: the promise is
 * made by `npm start`, so its own start-up (store choice, passivation limit, lock take-over) is
 * part of what is proved. Its keyed create is POST /v1/api_keys: a real create whose record id
 * is derived from the Idempotency-Key, and whose answer is only usable (a working secret) if every
 * write behind it was kept, so a lost write shows as a key that no longer authenticates.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { Agent } from 'node:http';
import { fileURLToPath } from 'node:url';
import { START_ARGS } from './main-process.ts';
import { freePort, jsonCall, type JsonReply } from './node-http.ts';
import { rng } from './rng.ts';
import { until } from './until.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CREATE_PATH = '/v1/api_keys';
/** A retried create waits for its first execution server-side before it is answered. */
const REQUEST_TIMEOUT_MS = 90_000;
/** No answer to any client for this long after a restart: the process has stopped serving. */
const STALL_MS = 20_000;
/** How long the keys still in doubt after the last restart are retried before the loop gives up. */
const FINAL_RETRIES_MS = 150_000;

export interface LocalNode {
  port: number;
  child: ChildProcess;
  /** Ms from spawn to the first answered request. */
  startMs: number;
  call(method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<JsonReply>;
  /** SIGKILL, resolved once the process is gone (its lock is then stale, and taken over on restart). */
  kill(): Promise<void>;
  /** SIGTERM, resolved with the exit code. */
  stop(): Promise<number | null>;
}

/**
 * What `npm start` runs (START_ARGS) on `dataDir` (STORE=memory in `env` for the heap family), on a free
 * loopback port, resolved once a request is answered (any status). `ready` replaces that check
 * (a bench waits for a 200 of its own GET). `core` pins the process with taskset.
 */
export async function startLocalNode(dataDir: string, opts: { env?: Record<string, string>; core?: number; ready?: (node: LocalNode) => Promise<boolean> } = {}): Promise<LocalNode> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', OPERATOR_SOCKET: `${dataDir}.sock`, ...opts.env };
  // the test projects set both for the cluster family; main.ts would then start a cluster node
  delete env.NATS_URL;
  delete env.REDIS_URL;
  const argv = [process.execPath, ...START_ARGS];
  const began = performance.now();
  const child = opts.core === undefined ? spawn(argv[0], argv.slice(1), { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] }) : spawn('taskset', ['-c', String(opts.core), ...argv], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = ''; // its output, kept for the message when it exits before answering
  child.stdout!.on('data', (d) => (out = (out + String(d)).slice(-4000)));
  child.stderr!.on('data', (d) => (out = (out + String(d)).slice(-4000)));
  let how = '';
  const exited = new Promise<number | null>((r) => child.once('exit', (code, signal) => ((how = `code ${code}, signal ${signal}`), r(code))));
  let gone = false;
  void exited.then(() => (gone = true));
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  const node: LocalNode = {
    port,
    child,
    startMs: 0,
    call: (method, path, headers, body) => jsonCall(port, method, path, headers, body, { agent, timeoutMs: REQUEST_TIMEOUT_MS }),
    async kill() {
      child.kill('SIGKILL');
      await exited;
      agent.destroy();
    },
    async stop() {
      child.kill('SIGTERM');
      const code = await exited;
      agent.destroy();
      return code;
    },
  };
  const answered = async () => {
    if (gone) throw new Error(`main.ts on ${dataDir} exited (${how}) before answering: ${out}`);
    try {
      return opts.ready ? await opts.ready(node) : (await jsonCall(port, 'GET', '/v1/me', {}, undefined, { agent: false, timeoutMs: 5_000 }), true);
    } catch {
      return false; // not listening yet
    }
  };
  await until(answered, 120_000);
  node.startMs = performance.now() - began;
  return node;
}

/** True when the process answers a request (any status) within a few seconds. */
async function answers(node: LocalNode): Promise<boolean> {
  try {
    await jsonCall(node.port, 'GET', '/v1/me', {}, undefined, { agent: false, timeoutMs: 5_000 });
    return true;
  } catch {
    return false;
  }
}

export interface CrashLoopOptions {
  dir: string;
  kills: number;
  /** Concurrent clients, each sending keyed creates one after another. */
  clients: number;
  seed: number;
  /** Each kill comes after a random number of answers in [min, max] since the last start (acknowledgements, replays, refusals). */
  acksBetweenKills: [number, number];
  /** Acknowledged keys sent again after each restart (the newest before the kill): each must replay. */
  replaysPerKill: number;
}

export interface CrashLoopResult {
  kills: number;
  /** Keys answered 2xx at their first attempt. */
  acknowledged: number;
  /** Keys whose first attempt died with the process, retried after a restart until answered. */
  inDoubt: number;
  /** Acknowledged or retried keys with no listed record, or whose acknowledged secret stopped working. */
  lost: string[];
  /** Keys with more than one listed record. */
  duplicates: string[];
  /** Records listed under the loop's keys; every key ends exactly once, so acknowledged + inDoubt. */
  records: number;
  /** Acknowledged keys sent again after a kill, and those whose answer was not the first one replayed. */
  replays: number;
  replayMismatches: string[];
  /** Answers that were neither 2xx nor a dropped connection (a 4xx, a 5xx other than a retryable one). */
  refused: string[];
  /** Restarted processes that stopped answering (nothing answered for STALL_MS); each was killed and restarted. */
  stalls: string[];
  /** Ms from each restart's spawn to its first answered request. */
  restartMs: number[];
}

interface First {
  status: number;
  body: any;
}

/**
 * The kill loop (STYLE "An acknowledgement is a promise"): keyed creates from `clients` loops
 * against a platform that is killed -9 after a seeded random number of acknowledgements, and
 * restarted on the same directory, `kills` times. A create whose connection died is in doubt: it
 * is retried with its key after the restart until answered. Then every key is counted through the
 * list endpoint, and every acknowledged secret is tried.
 */
export async function crashLoop(o: CrashLoopOptions): Promise<CrashLoopResult> {
  const node = await startLocalNode(o.dir);
  const reg = await node.call('POST', '/v1/registrations', {}, { organisation_name: 'Crash Works', name: 'Ada Obi', email: `crash.${process.pid}.${o.seed}@example.ng`, password: 'violet-harmattan-7-kettle' });
  if (reg.status >= 300) {
    await node.kill();
    throw new Error(`registration failed: ${reg.status} ${JSON.stringify(reg.body)}`);
  }
  return new KillLoop(o, node, { 'service-api-key': reg.body.api_key.key as string }).run();
}

/** The kill loop's state: the platform it drives, what was acknowledged, in doubt and replayed. */
class KillLoop {
  private readonly random: () => number;
  private readonly acked = new Map<string, First>();
  private readonly ackOrder: string[] = [];
  private readonly doubt = new Set<string>();
  private readonly resolved = new Map<string, First>();
  private readonly refused: string[] = [];
  private readonly replayMismatches: string[] = [];
  private readonly restartMs: number[] = [];
  private readonly stalls: string[] = [];
  private readonly background: Promise<void>[] = [];
  private replays = 0;
  private up: Promise<void> = Promise.resolve();
  private running = true;
  private sinceStart = 0;
  private killAt = 0;
  private killPoint: (() => void) | undefined;
  private lastAnswer = performance.now();
  private seq = 0;

  constructor(
    private readonly o: CrashLoopOptions,
    private node: LocalNode,
    private readonly auth: Record<string, string>,
  ) {
    this.random = rng(o.seed);
  }

  async run(): Promise<CrashLoopResult> {
    const { o } = this;
    const clients = Array.from({ length: o.clients }, () => this.client());
    try {
      for (let k = 0; k < o.kills; k++) {
        this.killAt = o.acksBetweenKills[0] + Math.floor(this.random() * (o.acksBetweenKills[1] - o.acksBetweenKills[0] + 1));
        if (this.sinceStart < this.killAt && (await this.killPointOrStall())) this.stalls.push(`after restart ${k}: no answer for ${STALL_MS} ms (killed -9 and restarted)`);
        await this.restart(true);
      }
      this.running = false;
      await Promise.all(clients);
      await Promise.all(this.background);
      // a process that stopped answering is a fault counted, then replaced so the keys can be counted
      if (!(await answers(this.node))) {
        this.stalls.push(`after the last restart: not answering (killed -9 and restarted)`);
        await this.restart(false);
      }
      // the last restart's survivors: every key still in doubt is retried until it is answered
      await until(async () => (await this.afterRestart([]), this.doubt.size === 0), FINAL_RETRIES_MS);
      const counted = await count(this.node, this.auth, this.acked, this.resolved);
      return { kills: o.kills, ...counted, acknowledged: this.acked.size, inDoubt: this.resolved.size, replays: this.replays, replayMismatches: this.replayMismatches, refused: this.refused, stalls: this.stalls, restartMs: this.restartMs };
    } finally {
      this.running = false;
      await this.node.kill();
    }
  }

  /**
   * One attempt of a key: its answer, `unknown` when the process died under it or it was told to
   * retry (a retryable 503), `refused` for any other answer (counted; the key is not tried again).
   */
  private async attempt(key: string): Promise<JsonReply | 'unknown' | 'refused'> {
    try {
      const r = await this.node.call('POST', CREATE_PATH, { ...this.auth, 'idempotency-key': key }, { name: key });
      this.lastAnswer = performance.now();
      if (++this.sinceStart >= this.killAt) this.killPoint?.();
      if (r.status < 300) return r;
      if (r.status === 503 && r.body?.error?.retryable !== false) return 'unknown';
      this.refused.push(`${key}: ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
      return 'refused';
    } catch {
      return 'unknown'; // connection refused, or dropped by the kill
    }
  }

  /** One client: keyed creates one after another while the loop runs, each waiting for the platform to be up. */
  private async client(): Promise<void> {
    while (this.running) {
      const key = `crash-${this.o.seed}-${this.seq++}`;
      await this.up;
      const r = await this.attempt(key);
      if (r === 'unknown') this.doubt.add(key);
      if (typeof r === 'string') continue;
      this.acked.set(key, { status: r.status, body: r.body });
      this.ackOrder.push(key);
    }
  }

  /** After a restart: every key in doubt tried once more, and the newest acknowledged keys sent again. */
  private async afterRestart(newest: string[]): Promise<void> {
    await Promise.all([
      ...[...this.doubt].map(async (key) => {
        const r = await this.attempt(key);
        if (r !== 'unknown') this.doubt.delete(key);
        if (typeof r !== 'string') this.resolved.set(key, { status: r.status, body: r.body });
      }),
      ...newest.map((key) => this.replay(key)),
    ]);
  }

  /** An acknowledged key sent again: it must replay its first answer. */
  private async replay(key: string): Promise<void> {
    const r = await this.attempt(key);
    if (r === 'unknown') return;
    this.replays++;
    if (r === 'refused') return void this.replayMismatches.push(`${key}: refused`);
    const first = this.acked.get(key)!;
    // the secret is shown once: a replay carries the same record with it nulled (gateway/idempotency.ts)
    const same = r.status === first.status && r.headers['service-idempotent-replay'] === 'true' && JSON.stringify(r.body) === JSON.stringify({ ...first.body, key: null });
    if (!same) this.replayMismatches.push(`${key}: ${r.status} replay=${r.headers['service-idempotent-replay']} ${JSON.stringify(r.body).slice(0, 200)}`);
  }

  /** Resolves true when nothing was answered for STALL_MS before the kill point came: the process stopped serving. */
  private killPointOrStall(): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      const watch = setInterval(() => {
        if (performance.now() - this.lastAnswer > STALL_MS) done(true);
      }, 250);
      const done = (stalled: boolean) => {
        clearInterval(watch);
        this.killPoint = undefined;
        resolve(stalled);
      };
      this.killPoint = () => done(false);
    });
  }

  /** Kill -9, restart on the same directory, let the clients go on; `replay` sends the newest acknowledged keys again. */
  private async restart(replay: boolean): Promise<void> {
    let open!: () => void;
    this.up = new Promise((r) => (open = r));
    await this.node.kill();
    const newest = replay ? this.ackOrder.slice(-this.o.replaysPerKill) : [];
    this.node = await startLocalNode(this.o.dir);
    this.restartMs.push(this.node.startMs);
    this.sinceStart = 0;
    this.lastAnswer = performance.now();
    open();
    this.background.push(this.afterRestart(newest));
  }
}

/** Every record listed once per key, every acknowledged secret still authenticating. */
async function count(node: LocalNode, auth: Record<string, string>, acked: Map<string, First>, resolved: Map<string, First>) {
  const listed = new Map<string, string[]>();
  for (let after: string | undefined; ; ) {
    const page = await node.call('GET', `${CREATE_PATH}?limit=100${after ? `&starting_after=${after}` : ''}`, auth);
    if (page.status !== 200) throw new Error(`list failed: ${page.status} ${JSON.stringify(page.body)}`);
    for (const k of page.body.data as Array<{ id: string; name: string }>) listed.set(k.name, [...(listed.get(k.name) ?? []), k.id]);
    if (!page.body.has_more) break;
    after = page.body.data[page.body.data.length - 1].id;
  }
  const lost: string[] = [];
  const duplicates: string[] = [];
  let records = 0;
  for (const [key, first] of [...acked, ...resolved]) {
    const ids = listed.get(key) ?? [];
    records += ids.length;
    if (ids.length > 1) duplicates.push(key);
    if (!ids.includes(first.body.id)) lost.push(`${key}: ${first.body.id} not listed`);
  }
  const secrets = [...acked].filter(([, f]) => typeof f.body.key === 'string');
  for (let i = 0; i < secrets.length; i += 32) {
    await Promise.all(
      secrets.slice(i, i + 32).map(async ([key, f]) => {
        const r = await node.call('GET', `${CREATE_PATH}?limit=1`, { 'service-api-key': f.body.key });
        if (r.status !== 200) lost.push(`${key}: its acknowledged secret is refused (${r.status})`);
      }),
    );
  }
  return { lost, duplicates, records };
}
