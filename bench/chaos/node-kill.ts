/**
 * The chaos bench's node-kill scenario (DESIGN "Sharding"; docs/cluster.md "How a cluster behaves"), against NATS
 * and Redis of its own (a lone JetStream server and a redis-server on free loopback ports, stopped
 * by their PIDs; the shared ones are never touched): three node processes
 * (support/chaos-node.ts: every area plus a keyed-create record), keyed creates under load
 * from this process (a separate process from the nodes; not pinned: the nodes and the client share
 * the two cores), a kill -9 of one node mid-load, each failed create retried with its
 * Idempotency-Key on the other nodes. Then counted: writes acknowledged, records readable, records
 * created more than once, acknowledged writes lost, how soon each of the dead node's shards was
 * served again (a probe per shard, asking through the survivors from the moment of the kill), and
 * the longest any key waited from its first attempt to its acknowledgement. Then every node is
 * killed -9 and all three restarted, and the records counted again.
 * Targets: 0 lost, 0 duplicates, shards served again p99 <= 5 s, longest blocked key <= 6 s, every
 * acknowledged record readable after the restart. There is no baseline: these are counts of
 * faults, each against zero or a bound.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { Agent } from 'node:http';
import { fileURLToPath } from 'node:url';
import { Kvm } from '@nats-io/kv';
import { DEFAULT_SHARDS, shardOf } from '../../runtime/cluster/index.ts';
import { createClusterStores, type ClusterStores } from '../../stores/index.ts';
import { absolute, round, type BenchResult } from '../report.ts';
import { freePort, jsonCall, type JsonReply } from '../../support/node-http.ts';
import { BenchRecord, EXECUTIONS, RECORDS_PATH } from '../../support/record-area.ts';
import { NatsCluster, OwnRedis } from '../../support/chaos/index.ts';

/** This run's own servers' addresses, set when nodeKill starts them. */
let NATS_URL = '';
let REDIS_URL = '';
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const WORKERS = Number(process.env.BENCH_CHAOS_WORKERS ?? 16);
const BEFORE_KILL_MS = 3_000;
const AFTER_KILL_MS = 8_000;
const REQUEST_TIMEOUT_MS = 20_000;
const READ_PARALLEL = 32;
const NODES = ['c1', 'c2', 'c3'];

interface Proc {
  id: string;
  port: number;
  child: ChildProcess;
  exited: Promise<void>;
  up: boolean;
}

type Reply = JsonReply;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));


async function startNode(id: string, namespace: string): Promise<Proc> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'support/chaos-node.ts'], {
    cwd: ROOT,
    env: { ...process.env, NATS_URL, REDIS_URL, STORE_NAMESPACE: namespace, NODE_ID: id, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  let err = '';
  child.stderr!.on('data', (d) => (err = (err + String(d)).slice(-4000)));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      if (String(d).includes('listening')) resolve();
    });
    void exited.then(() => reject(new Error(`${id} exited before listening: ${err}`)));
  });
  return { id, port, child, exited, up: true };
}

async function kill(p: Proc): Promise<void> {
  p.up = false;
  p.child.kill('SIGKILL');
  await p.exited;
}

const agents = new Map<number, Agent>();

function call(port: number, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Reply> {
  let agent = agents.get(port);
  if (!agent) agents.set(port, (agent = new Agent({ keepAlive: true, maxSockets: 64 })));
  return jsonCall(port, method, path, headers, body, { agent, timeoutMs: REQUEST_TIMEOUT_MS });
}

/** One request through the live nodes, moving on after a 5xx or a failed connection, until it has an answer below 500. */
async function through(procs: Proc[], start: number, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Reply> {
  for (let attempt = 0; ; attempt++) {
    const live = procs.filter((p) => p.up);
    const p = live[(start + attempt) % live.length];
    try {
      const r = await call(p.port, method, path, headers, body);
      if (r.status < 500) return r;
    } catch {
      // the node died under the request, or refused it: the next one
    }
    await sleep(20);
  }
}

interface Acked {
  id: string;
  took: number;
}

interface Load {
  acked: Map<string, Acked>;
  refused: string[];
  stop(): Promise<void>;
}

/** Keyed creates from WORKERS loops; each key retried on the next live node until it is answered. */
function drive(procs: Proc[], apiKey: string): Load {
  const acked = new Map<string, Acked>();
  const refused: string[] = [];
  let running = true;
  let seq = 0;
  const worker = async (w: number) => {
    while (running) {
      const key = `chaos-${w}-${seq++}`;
      const began = performance.now();
      const r = await through(procs, w, 'POST', RECORDS_PATH, { 'service-api-key': apiKey, 'idempotency-key': key }, { n: w });
      if (r.status < 300) acked.set(key, { id: r.body.id, took: performance.now() - began });
      else refused.push(`${key} ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
    }
  };
  const all = Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w)));
  return {
    acked,
    refused,
    async stop() {
      running = false;
      await all;
    },
  };
}

/** Shards whose stored lease names `node` with an unexpired time. */
async function shardsOf(kv: Awaited<ReturnType<Kvm['open']>>, node: string): Promise<number[]> {
  const out: number[] = [];
  for (let s = 0; s < DEFAULT_SHARDS; s++) {
    const e = await kv.get(`s.${s}`);
    if (!e || e.operation !== 'PUT' || !e.value.length) continue;
    const v = e.json<{ node: string; until: number }>();
    if (v.node === node && v.until > Date.now()) out.push(s);
  }
  return out;
}

/** A record id (never created) on `shard`: asking for it is answered once some node serves the shard. */
function probeId(shard: number): string {
  for (let i = 0; ; i++) {
    const id = `${BenchRecord.prefix}p${shard}x${i}`;
    if (shardOf(BenchRecord.kind, id) === shard) return id;
  }
}

/** Ms from `since` until a read of each shard is answered (200 or 404) through the live nodes. */
function probe(procs: Proc[], apiKey: string, shards: number[], since: number): Promise<number[]> {
  return Promise.all(
    shards.map(async (shard, i) => {
      await through(procs, i, 'GET', `${RECORDS_PATH}/${probeId(shard)}`, { 'service-api-key': apiKey });
      return performance.now() - since;
    }),
  );
}

interface Counts {
  readable: number;
  lost: number;
  duplicates: number;
  executedAgain: number;
}

/** Reads every acknowledged record back through the nodes, and counts creations per key in the journal. */
async function count(procs: Proc[], stores: ClusterStores, apiKey: string, org: string, acked: Map<string, Acked>): Promise<Counts> {
  const entries = [...acked.entries()];
  let readable = 0;
  let next = 0;
  await Promise.all(
    Array.from({ length: READ_PARALLEL }, async (_, w) => {
      for (let i = next++; i < entries.length; i = next++) {
        const [key, { id }] = entries[i];
        const r = await through(procs, w, 'GET', `${RECORDS_PATH}/${id}`, { 'service-api-key': apiKey });
        if (r.status === 200 && r.body.key === key) readable++;
      }
    }),
  );
  const created = new Map<string, number>();
  for (let after = 0; ; ) {
    const page = await stores.journal.readFeed(after, 1000);
    if (page.length === 0) break;
    for (const f of page) {
      const data = f.event.data as { type?: string; key?: string };
      if (f.stream.startsWith(`${BenchRecord.kind}.`) && data.type === 'record.created') created.set(data.key!, (created.get(data.key!) ?? 0) + 1);
    }
    after = page[page.length - 1].position;
  }
  let duplicates = 0;
  for (const n of created.values()) duplicates += n - 1;
  let executedAgain = 0;
  for (const [key] of entries) if (((await stores.kv.get<number>(`${EXECUTIONS}${org}:${key}`)) ?? 0) > 1) executedAgain++;
  return { readable, lost: acked.size - readable, duplicates, executedAgain };
}

function p99(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * 0.99))] ?? 0;
}

export async function nodeKill(): Promise<BenchResult[]> {
  const namespace = `chaos_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const nats = new NatsCluster();
  await nats.start(1);
  const redis = await OwnRedis.start().catch(async (e) => {
    await nats.stopAll();
    throw e;
  });
  NATS_URL = nats.url(0);
  REDIS_URL = redis.url;
  const stores = await createClusterStores({ natsUrl: NATS_URL, redisUrl: REDIS_URL, now: () => Date.now(), namespace, ephemeral: true, name: 'chaos-bench' });
  const procs: Proc[] = [];
  try {
    procs.push(...(await Promise.all(NODES.map((id) => startNode(id, namespace)))));
    const kv = await new Kvm(stores.nats).open(`${namespace}_shards`);
    for (let t = 0; (await Promise.all(NODES.map((n) => shardsOf(kv, n)))).flat().length < DEFAULT_SHARDS; t++) {
      if (t > 300) throw new Error('shards never fully owned');
      await sleep(100);
    }
    const reg = await call(procs[0].port, 'POST', '/v1/registrations', {}, { organisation_name: 'Chaos Works', name: 'Ada Obi', email: `chaos.${process.pid}@example.ng`, password: 'violet-harmattan-7-kettle' });
    if (reg.status !== 200) throw new Error(`registration failed: ${reg.status} ${JSON.stringify(reg.body)}`);
    const apiKey: string = reg.body.api_key.key;
    const org: string = reg.body.organisation.id;

    const load = drive(procs, apiKey);
    await sleep(BEFORE_KILL_MS);
    const victim = procs[2];
    const victimShards = await shardsOf(kv, victim.id);
    const killedAt = performance.now();
    victim.up = false;
    victim.child.kill('SIGKILL');
    const [served] = await Promise.all([probe(procs, apiKey, victimShards, killedAt), sleep(AFTER_KILL_MS)]);
    await load.stop();
    const longest = Math.max(0, ...[...load.acked.values()].map((a) => a.took));
    const first = await count(procs, stores, apiKey, org, load.acked);

    for (const p of procs) if (p.up) await kill(p);
    await victim.exited;
    const restartedAt = performance.now();
    procs.splice(0, procs.length, ...(await Promise.all(NODES.map((id) => startNode(id, namespace)))));
    const again = await count(procs, stores, apiKey, org, load.acked);
    const restartMs = performance.now() - restartedAt;
    const acked = load.acked.size;
    const refusedNote = load.refused.length ? `; ${load.refused.length} refused (4xx): ${load.refused[0]}` : '';

    return [
      absolute('writes acknowledged (kill -9 of 1 of 3 nodes mid-load)', acked, 'writes', undefined, true, `${WORKERS} clients, keyed creates, retried on the other nodes${refusedNote}`),
      absolute('acknowledged writes readable', first.readable, 'records', acked, true),
      absolute('acknowledged writes lost', first.lost, 'writes', 0, false),
      absolute('records created twice (duplicates)', first.duplicates, 'records', 0, false, 'record.created events per key in the journal, beyond the first'),
      absolute('keys executed again by a survivor', first.executedAgain, 'keys', undefined, true, 'a dead node\'s claim taken over, or a retry after a 503; the record dedupes it'),
      absolute('dead node\'s shards served again, p99 over probes', round(p99(served)), 'ms', 5_000, false, `one probe per shard (${victimShards.length}), from the kill`),
      absolute('longest blocked key', round(longest), 'ms', 6_000, false, 'first attempt to acknowledgement, retries included'),
      absolute('acknowledged writes readable after a full restart', again.readable, 'records', acked, true, `all 3 killed -9 and restarted; every record read back in ${round(restartMs / 1000, 1)} s`),
      absolute('acknowledged writes lost after the restart', again.lost, 'writes', 0, false),
      absolute('duplicates after the restart', again.duplicates, 'records', 0, false),
    ];
  } finally {
    for (const p of procs) if (p.child.exitCode === null && p.child.signalCode === null) await kill(p);
    for (const a of agents.values()) a.destroy();
    agents.clear();
    await stores.close();
    await redis.stop();
    await nats.stopAll();
  }
}
