/**
 * Failover on loopback (DESIGN "Sharding"): three node processes, a client driving idempotent
 * writes through all three gateways and retrying failures with the same Idempotency-Key.
 *  - kill -9 of one node mid-load: every write answered 2xx is present, every retried write
 *    applied exactly once, the dead node's shards are owned again within 5 s, no key waits long
 *    on a claim the dead node held (docs/cluster.md "Idempotency claims"), and no actor's
 *    journal has two appends at one version;
 *  - SIGTERM of another under the same load: no client-visible error (a refused connection is
 *    not one: nothing was sent, the client moves to the next gateway as a load balancer would).
 * Processes and leases run on wall time; the waits below are bounded by deadlines.
 */
import { Kvm } from '@nats-io/kv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../runtime/index.ts';
import { jsonCall, type JsonReply } from '../../support/node-http.ts';
import { NodeProcesses, type Proc } from '../../support/chaos/node-processes.ts';
import { DEFAULT_SHARDS } from '../../runtime/cluster/index.ts';
import type { ClusterStores, StoredEvent } from '../../stores/index.ts';
import { clusterTestStores, testNamespace } from '../../support/stores.ts';

const namespace = testNamespace('failover');
const TALLIES = 24;
const WORKERS = 12;

const nodes = new NodeProcesses(namespace, 'test/cluster/node-main.ts', { logDir: process.env.FAILOVER_LOG_DIR });
const procs = nodes.procs;
const startNode = (id: string): Promise<Proc> => nodes.start(id);

afterAll(() => nodes.stopAll(), 60_000);

type Reply = JsonReply;

/** One request on a fresh connection (no keep-alive, so a closing node never reuses a socket). */
const call = (port: number, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Reply> =>
  jsonCall(port, method, path, headers, body, { agent: false, timeoutMs: 20_000 });

interface Load {
  /** Idempotency key -> tally id of every write answered 2xx. */
  acked: Map<string, string>;
  /** Keys that needed more than one attempt. */
  retried: Set<string>;
  /** Failures a client would have seen (5xx, a connection cut mid-request), refused connections excepted. */
  visible: string[];
  /** The longest a write took from its first attempt to its 2xx, retries included (ms). */
  longest(): number;
  stop(): Promise<void>;
}

function drive(apiKey: string, phase: string): Load {
  const acked = new Map<string, string>();
  const retried = new Set<string>();
  const visible: string[] = [];
  let longest = 0;
  let running = true;
  let seq = 0;
  const worker = async (w: number) => {
    while (running) {
      const key = `${phase}-${w}-${seq++}`;
      const tally = `tly_${(w * 7 + seq) % TALLIES}`;
      const began = performance.now();
      for (let attempt = 0; ; attempt++) {
        const live = procs.filter((p) => p.up);
        const p = live[(w + attempt) % live.length];
        if (attempt > 0) retried.add(key);
        try {
          const r = await call(p.port, 'POST', `/v1/test_tallies/${tally}/add`, { 'service-api-key': apiKey, 'idempotency-key': key }, { n: 1 });
          if (r.status >= 200 && r.status < 300) {
            acked.set(key, tally);
            longest = Math.max(longest, performance.now() - began);
            break;
          }
          visible.push(`${p.id} ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
          if (r.status < 500) break;
        } catch (e) {
          const code = (e as { code?: string }).code;
          if (code !== 'ECONNREFUSED') visible.push(`${p.id} ${code ?? (e as Error).message}`);
        }
        await new Promise((r) => setTimeout(r, 20));
      }
    }
  };
  const all = Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w)));
  return {
    acked,
    retried,
    visible,
    longest: () => longest,
    async stop() {
      running = false;
      await all;
    },
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Shards whose lease (as stored) names a live node with an unexpired time. */
async function ownedBy(kv: Awaited<ReturnType<Kvm['open']>>, live: string[]): Promise<number> {
  let n = 0;
  for (let s = 0; s < DEFAULT_SHARDS; s++) {
    const e = await kv.get(`s.${s}`);
    if (!e || e.operation !== 'PUT' || !e.value.length) continue;
    const v = e.json<{ node: string; until: number }>();
    if (live.includes(v.node) && v.until > Date.now()) n++;
  }
  return n;
}

/** Every acknowledged write is present exactly once: each tally's total is its number of acked keys. */
async function expectTotals(port: number, apiKey: string, loads: Load[]): Promise<void> {
  const expected = new Map<string, number>();
  for (const l of loads) for (const t of l.acked.values()) expected.set(t, (expected.get(t) ?? 0) + 1);
  for (const [tally, n] of expected) {
    const r = await call(port, 'GET', `/v1/test_tallies/${tally}`, { 'service-api-key': apiKey });
    expect({ tally, total: r.body.total }).toEqual({ tally, total: n });
  }
}

/** No actor had two writers: per stream, versions run 1..n with no repeat, and no dedupe id twice. */
async function expectOneWriterPerVersion(stores: ClusterStores): Promise<void> {
  const byStream = new Map<string, StoredEvent[]>();
  for (let after = 0; ; ) {
    const page = await stores.journal.readFeed(after, 1000);
    if (page.length === 0) break;
    for (const f of page) byStream.set(f.stream, [...(byStream.get(f.stream) ?? []), f.event]);
    after = page[page.length - 1].position;
  }
  expect(byStream.size).toBeGreaterThan(TALLIES - 1);
  for (const [stream, events] of byStream) {
    expect({ stream, versions: events.map((e) => e.version) }).toEqual({ stream, versions: events.map((_, i) => i + 1) });
    const dedupes = events.map((e) => e.dedupe).filter((d) => d !== undefined);
    expect(new Set(dedupes).size).toBe(dedupes.length);
  }
}

describe('failover on loopback: three node processes (DESIGN "Sharding")', () => {
  let stores: ClusterStores;
  let kv: Awaited<ReturnType<Kvm['open']>>;
  let apiKey = '';
  let n1: Proc, n2: Proc, n3: Proc;
  const loads: Load[] = [];

  beforeAll(async () => {
    [n1, n2, n3] = await Promise.all([startNode('n1'), startNode('n2'), startNode('n3')]);
    stores = await clusterTestStores(new ManualClock(), { namespace, ephemeral: false });
    kv = await new Kvm(stores.nats).open(`${namespace}_shards`);
    for (let t = 0; (await ownedBy(kv, ['n1', 'n2', 'n3'])) < DEFAULT_SHARDS; t++) {
      if (t > 200) throw new Error('shards never fully owned');
      await sleep(100);
    }
    const reg = await call(n1.port, 'POST', '/v1/registrations', {}, { organisation_name: 'Failover Works', name: 'Ada Obi', email: `failover.${process.pid}@example.ng`, password: 'violet-harmattan-7-kettle' });
    if (reg.status !== 200) throw new Error(`registration failed: ${reg.status}`);
    apiKey = reg.body.api_key.key;
  }, 120_000);

  afterAll(async () => {
    await stores?.close();
  });

  it('kill -9 mid-load: 2xx writes kept, retried writes applied once, shards re-owned within 5 s, one writer per version', async () => {
    const load = drive(apiKey, 'kill');
    loads.push(load);
    await sleep(2000);
    n3.up = false;
    n3.child.kill('SIGKILL');
    const killedAt = performance.now();
    let reowned = Infinity;
    while (performance.now() - killedAt < 10_000) {
      if ((await ownedBy(kv, ['n1', 'n2'])) === DEFAULT_SHARDS) {
        reowned = performance.now() - killedAt;
        break;
      }
      await sleep(50);
    }
    await sleep(1500);
    await load.stop();
    expect(reowned).toBeLessThan(5_000);
    // A retry of a key the dead node had claimed waits for its membership to lapse (about 3.5 s)
    // and its shard's new owner, not for the claim's 60 s lease.
    expect(load.longest()).toBeLessThan(10_000);
    expect(load.acked.size).toBeGreaterThan(50);
    expect(load.retried.size).toBeGreaterThan(0);
    await expectTotals(n1.port, apiKey, loads);
    await expectOneWriterPerVersion(stores);
  }, 180_000);

  it('SIGTERM under the same load: the node hands over and exits 0 with no client-visible error', async () => {
    const load = drive(apiKey, 'term');
    loads.push(load);
    await sleep(1500);
    n2.up = false;
    n2.child.kill('SIGTERM');
    const code = await n2.exited;
    await sleep(1000);
    await load.stop();
    expect(code).toBe(0);
    expect(load.visible).toEqual([]);
    expect(await ownedBy(kv, ['n1'])).toBe(DEFAULT_SHARDS);
    await expectTotals(n1.port, apiKey, loads);
    await expectOneWriterPerVersion(stores);
  }, 120_000);
});
