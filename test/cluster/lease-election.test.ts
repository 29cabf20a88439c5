/**
 * Leases survive a JetStream leader election (DESIGN "Sharding"; docs/cluster.md "Leases"):
 * a three-server NATS cluster, two node processes on it with NATS_REPLICAS=3, keyed writes through
 * both gateways retried with the same Idempotency-Key, and the server leading the journal stream
 * killed -9. Every shard is owned by a live node again within JetStream's election plus a lease
 * period of the lease bucket's stream having a leader again, and at every look after that for the
 * rest of the window; writes come back within a lease period plus one journal read's timeout of the
 * journal stream having a leader again; no acknowledged write is lost or applied twice. How long
 * the servers take to elect those leaders is theirs, not ours (on a loaded two-core machine it has
 * taken from under a second to tens of seconds), so the bounds run from it; each election must
 * still come within ELECTION_LIMIT_MS.
 * Processes, servers and leases run on wall time; every wait is bounded by a deadline.
 */
import { appendFileSync, rmSync } from 'node:fs';
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SHARDS } from '../../runtime/cluster/index.ts';
import { SystemClock } from '../../runtime/index.ts';
import { createClusterStores, type ClusterStores, type StoredEvent } from '../../stores/index.ts';
import { jsonCall, type JsonReply } from '../../support/node-http.ts';
import { redisUrl, tempDir, testNamespace } from '../../support/stores.ts';
import { NatsCluster } from '../../support/chaos/nats-cluster.ts';
import { NodeProcesses, type Proc } from '../../support/chaos/node-processes.ts';
import { READ_ATTEMPT_MS } from '../../stores/cluster/election.ts';

/** Every shard owned again after the lease bucket's stream has a leader again: a lease period (3 s), with room. */
const LEASE_BOUND_MS = 10_000;
/**
 * Writes back after the journal stream has a leader again: the lease bound, plus one unanswered
 * attempt of a journal read an actor's activation sent while the election was still on, which is
 * sent again after READ_ATTEMPT_MS (stores/cluster/election.ts), with room for its backoff.
 */
const OUTAGE_BOUND_MS = LEASE_BOUND_MS + READ_ATTEMPT_MS + 1_000;
/** The servers' own election of a journal leader: beyond this the cluster, not the platform, is broken. */
const ELECTION_LIMIT_MS = 60_000;
/** How long after the kill the shards are watched (the issue asks 60 s; this is what CI affords). */
const WATCH_MS = Number(process.env.LEASE_ELECTION_WATCH_MS ?? 20_000);
const TALLIES = 48;
/** One write begins this often (about 100 a second). */
const WRITE_EVERY_MS = 10;

const namespace = testNamespace('election');
const nats = new NatsCluster();
const logDir = process.env.LEASE_ELECTION_LOG_DIR ?? tempDir('wf-election-logs-');
/** The logs are kept when asked for or when the test failed. */
let keepLogs = process.env.LEASE_ELECTION_LOG_DIR !== undefined;
const groups: NodeProcesses[] = [];
const procs: Proc[] = [];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const call = (port: number, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<JsonReply> =>
  jsonCall(port, method, path, headers, body, { agent: false, timeoutMs: 30_000 });

/** A node process on server `i` of the cluster (each node talks to its own server). */
async function startNode(id: string, i: number): Promise<Proc> {
  const g = new NodeProcesses(namespace, 'test/cluster/node-main.ts', { env: { NATS_URL: nats.url(i), NATS_REPLICAS: '3' }, logDir });
  groups.push(g);
  const p = await g.start(id);
  procs.push(p);
  return p;
}

interface Write {
  key: string;
  tally: string;
  began: number;
  acked?: number;
}

/**
 * Open-loop keyed writes: one begins every WRITE_EVERY_MS whatever the others are doing (a write
 * stuck on one actor does not hold back the rest), each retried with its key until acknowledged,
 * alternating between the two gateways, so none is left in doubt at the end.
 */
function drive(apiKey: string) {
  const writes: Write[] = [];
  const inFlight = new Set<Promise<void>>();
  let running = true;
  const one = async (write: Write, n: number) => {
    for (let attempt = 0; ; attempt++) {
      const p = procs[(n + attempt) % procs.length];
      const r = await call(p.port, 'POST', `/v1/test_tallies/${write.tally}/add`, { 'service-api-key': apiKey, 'idempotency-key': write.key }, { n: 1 }).catch(() => undefined);
      if (r && r.status >= 200 && r.status < 300) {
        write.acked = performance.now();
        return;
      }
      if (r && attempt % 20 === 19) note(`${write.key} on ${write.tally}: attempt ${attempt + 1} answered ${r.status} ${JSON.stringify(r.body).slice(0, 160)}`);
      if (r && r.status < 500) throw new Error(`write ${write.key} refused: ${r.status} ${JSON.stringify(r.body)}`);
      await sleep(50);
    }
  };
  const scheduler = (async () => {
    for (let n = 0; running; n++) {
      const write: Write = { key: `k-${n}`, tally: `tly_${n % TALLIES}`, began: performance.now() };
      writes.push(write);
      const p = one(write, n).finally(() => inFlight.delete(p));
      inFlight.add(p);
      await sleep(WRITE_EVERY_MS);
    }
  })();
  return {
    writes,
    async stop() {
      running = false;
      await scheduler;
      await Promise.all(inFlight);
    },
  };
}

/** Every shard lease as the journal's servers hold it now, read from the bucket's leader; undefined while it has none. */
async function leases(jsm: JetStreamManager): Promise<{ node: string; until: number }[] | undefined> {
  const bucket = `${namespace}_shards`;
  try {
    return await Promise.all(
      Array.from({ length: DEFAULT_SHARDS }, async (_, s) => {
        const m = await jsm.streams.getMessage(`KV_${bucket}`, { last_by_subj: `$KV.${bucket}.s.${s}` }).catch((e) => {
          if (/no message found/i.test(String(e))) return null;
          throw e;
        });
        return m && m.data.length ? m.json<{ node: string; until: number }>() : { node: '', until: 0 };
      }),
    );
  } catch (e) {
    lastReadError = String(e);
    return undefined;
  }
}
let lastReadError = '';

/** Milliseconds from `killedAt` until `stream` names a live leader, polled every 100 ms and noted; Infinity past ELECTION_LIMIT_MS. */
async function leaderBack(jsm: JetStreamManager, stream: string, killed: string, killedAt: number): Promise<number> {
  while (performance.now() - killedAt < ELECTION_LIMIT_MS) {
    const leader = await jsm.streams.info(stream).then((i) => i.cluster?.leader, () => undefined);
    if (leader && leader !== killed) {
      const ms = performance.now() - killedAt;
      note(`${Math.round(ms)} ms: ${stream} has a leader again (${leader})`);
      return ms;
    }
    await sleep(100);
  }
  return Infinity;
}

/** A line of the run's timeline, beside the nodes' logs. */
const note = (line: string) => appendFileSync(`${logDir}/timeline.txt`, `${new Date().toISOString()} ${line}\n`);

const unowned = (table: { node: string; until: number }[], live: string[], at: number) => table.filter((l) => !live.includes(l.node) || l.until <= at).length;

describe('leases survive a JetStream leader election (DESIGN "Sharding", docs/cluster.md "Leases")', () => {
  let stores: ClusterStores;
  let jsm: JetStreamManager;
  let watcher: NatsConnection;
  let apiKey = '';

  beforeAll(async () => {
    await nats.start(3);
    const clock = new SystemClock();
    stores = await createClusterStores({ natsUrl: nats.url(2), redisUrl: redisUrl(), now: () => clock.now(), namespace, replicas: 3 });
    // The lease table is read over a connection that knows every server, so it moves on at once when one dies.
    watcher = await connect({ servers: nats.servers.map((x) => x.url), maxReconnectAttempts: -1, reconnectTimeWait: 100 });
    jsm = await jetstreamManager(watcher, { timeout: 1000 });
    await Promise.all([startNode('n1', 0), startNode('n2', 1)]);
    const deadline = performance.now() + 20_000;
    for (;;) {
      const table = await leases(jsm);
      if (table && unowned(table, ['n1', 'n2'], Date.now()) === 0) break;
      if (performance.now() > deadline) throw new Error(`shards never fully owned: ${table ? `${unowned(table, ['n1', 'n2'], Date.now())} unowned` : lastReadError}`);
      await sleep(200);
    }
    const reg = await call(procs[0].port, 'POST', '/v1/registrations', {}, { organisation_name: 'Election Works', name: 'Ada Obi', email: `election.${process.pid}@example.ng`, password: 'violet-harmattan-7-kettle' });
    if (reg.status !== 200) throw new Error(`registration failed: ${reg.status}`);
    apiKey = reg.body.api_key.key;
  }, 90_000);

  afterAll(async () => {
    for (const g of groups) for (const p of g.procs) if (p.child.exitCode === null) p.child.kill('SIGKILL');
    await Promise.all(groups.flatMap((g) => g.procs.map((p) => p.exited)));
    // The streams live only on this test's NATS cluster, removed with it; the shared Redis keeps the namespace's keys until here.
    await stores?.redis.eval("for _, k in ipairs(redis.call('keys', ARGV[1])) do redis.call('del', k) end", 0, `${namespace}:*`).catch(() => {});
    await stores?.close().catch(() => {});
    await watcher?.close().catch(() => {});
    await nats.stopAll();
    if (!keepLogs) rmSync(logDir, { recursive: true, force: true });
  }, 60_000);

  it('the journal leader killed -9: every shard owned by a live node within 10 s of the lease bucket having a leader again and at every look after it, writes back within 12.5 s of the journal having one, no acknowledged write lost or applied twice', async () => {
    keepLogs = true;
    const load = drive(apiKey);
    await sleep(3000);
    const leader = (await jsm.streams.info(`${namespace}_journal`)).cluster?.leader;
    expect(leader).toMatch(/^s[123]$/);
    await nats.kill(leader!);
    const killedAt = performance.now();
    note(`killed ${leader}`);
    const journalElected = leaderBack(jsm, `${namespace}_journal`, leader!, killedAt);
    const leasesElected = leaderBack(jsm, `KV_${namespace}_shards`, leader!, killedAt);
    // the window runs WATCH_MS, and long enough past the lease bucket's election for ten looks after its bound
    let watchUntil = Math.max(WATCH_MS, ELECTION_LIMIT_MS);
    void leasesElected.then((ms) => {
      if (ms !== Infinity) watchUntil = Math.max(WATCH_MS, ms + LEASE_BOUND_MS + 4_000);
    });

    /** Each readable look at the lease table: when, and how many shards no live node held. */
    const seen: { since: number; unowned: number }[] = [];
    while (performance.now() - killedAt < watchUntil) {
      const table = await leases(jsm);
      const since = performance.now() - killedAt;
      if (table) {
        const n = unowned(table, ['n1', 'n2'], Date.now());
        note(`${Math.round(since)} ms: ${n} unowned; n1 ${table.filter((l) => l.node === 'n1').length}, n2 ${table.filter((l) => l.node === 'n2').length}`);
        seen.push({ since, unowned: n });
      } else note(`${Math.round(since)} ms: lease table unreadable: ${lastReadError.slice(0, 120)}`);
      await sleep(250);
    }
    const [election, leaseElection] = await Promise.all([journalElected, leasesElected]);
    await load.stop();
    const reowned = seen.find((l) => l.unowned === 0)?.since ?? Infinity;
    const after = seen.filter((l) => l.since > leaseElection + LEASE_BOUND_MS);
    const looks = after.length;
    const late = after.filter((l) => l.unowned > 0).map((l) => `${Math.round(l.since)} ms: ${l.unowned} unowned`);

    for (const p of procs) expect({ node: p.id, alive: p.child.exitCode === null }).toEqual({ node: p.id, alive: true });
    const acked = load.writes.filter((w) => w.acked !== undefined);
    const around = acked.filter((w) => w.acked! > killedAt);
    // The write outage: the longest time after the kill in which no write completed anywhere.
    const times = [killedAt, ...around.map((w) => w.acked!).sort((a, b) => a - b)];
    const outage = Math.max(...times.slice(1).map((t, i) => t - times[i]));
    const took = around.map((w) => w.acked! - w.began).sort((a, b) => a - b);
    const p99 = took[Math.floor(took.length * 0.99)];
    const line = `leader ${leader} killed; journal leader again after ${Math.round(election)} ms, lease bucket's after ${Math.round(leaseElection)} ms; write outage ${Math.round(outage)} ms; write p99 ${Math.round(p99)} ms, longest ${Math.round(took[took.length - 1])} ms; all shards owned again after ${Math.round(reowned)} ms; ${acked.length} acknowledged`;
    note(line);
    console.log(`[lease-election] ${line}; logs in ${logDir}`);
    expect(around.length).toBeGreaterThan(50);
    expect(election).toBeLessThan(ELECTION_LIMIT_MS);
    expect(outage).toBeLessThan(election + OUTAGE_BOUND_MS);
    expect(p99).toBeLessThan(election + OUTAGE_BOUND_MS);
    // One write may wait longer than the outage: its actor's activation, begun during the election,
    // reads the journal once a leader answers a re-sent get (stores/cluster/election.ts).
    expect(took[took.length - 1]).toBeLessThan(election + 2 * OUTAGE_BOUND_MS);
    expect(leaseElection).toBeLessThan(ELECTION_LIMIT_MS);
    expect(reowned).toBeLessThan(leaseElection + LEASE_BOUND_MS);
    expect(looks).toBeGreaterThan(10);
    expect(late).toEqual([]);

    // Every acknowledged write is there once: each tally's total is its number of acknowledged keys.
    const expected = new Map<string, number>();
    for (const w of acked) expected.set(w.tally, (expected.get(w.tally) ?? 0) + 1);
    for (const [tally, n] of expected) {
      const r = await call(procs[0].port, 'GET', `/v1/test_tallies/${tally}`, { 'service-api-key': apiKey });
      expect({ tally, total: r.body.total }).toEqual({ tally, total: n });
    }
    // No actor had two writers: per stream, versions run 1..n.
    const byStream = new Map<string, StoredEvent[]>();
    for (let after = 0; ; ) {
      const page = await stores.journal.readFeed(after, 1000);
      if (page.length === 0) break;
      for (const f of page) byStream.set(f.stream, [...(byStream.get(f.stream) ?? []), f.event]);
      after = page[page.length - 1].position;
    }
    expect(byStream.size).toBeGreaterThan(TALLIES - 1);
    for (const [stream, events] of byStream) expect({ stream, versions: events.map((e) => e.version) }).toEqual({ stream, versions: events.map((_, i) => i + 1) });
    keepLogs = process.env.LEASE_ELECTION_LOG_DIR !== undefined;
  }, 150_000);
});
