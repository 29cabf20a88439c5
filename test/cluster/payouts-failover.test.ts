/**
 * Payouts failover on loopback (spec 2.11, 3 "Individual payout", 8; DESIGN "Sharding"): three node
 * processes on shared NATS and Redis, a 10,000-line payroll instruction executed, and kill -9 of the
 * node that owns the instruction (the one dispatching it) mid-way. After failover every payee is
 * paid exactly once on the sandbox rails' own books, which live in the shared key-value store and
 * indexes (actors/payouts/providers/sandbox.ts), read here directly, not through any node; and our
 * payouts agree with them: the settlement's reconciliation finds no exception.
 * Processes and leases run on wall time; the waits below are bounded by deadlines.
 */
import { Kvm } from '@nats-io/kv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../runtime/index.ts';
import { shardOf } from '../../runtime/cluster/index.ts';
import { jsonCall, type JsonReply } from '../../support/node-http.ts';
import { NodeProcesses } from '../../support/chaos/node-processes.ts';
import type { ClusterStores } from '../../stores/index.ts';
import { clusterTestStores, testNamespace } from '../../support/stores.ts';
import { INSTRUCTION_KIND, nuban, PAYOUTS_POLICY, sandboxRails } from '../../actors/payouts/index.ts';

const namespace = testNamespace('payouts_failover');
const LINES = Number(process.env.PAYOUTS_FAILOVER_LINES ?? 10_000);
/** The policy's waiting times x 0.01: answer time-out 0.6 s, status queries from 0.6 s, not-located window 18 s, tally 0.3 s. */
const TIME_SCALE = '0.01';

/** PAYOUTS_FAILOVER_LOG_DIR=<dir>: each node's output in <dir>/<node>.log (diagnosis). */
const nodes = new NodeProcesses(namespace, 'support/chaos/payouts-node-main.ts', { nodeArgs: ['--max-semi-space-size=64'], env: { PAYOUTS_TIME_SCALE: TIME_SCALE, PAYOUTS_SANDBOX_LATENCY_MS: '1' }, logDir: process.env.PAYOUTS_FAILOVER_LOG_DIR });
const procs = nodes.procs;
const startNode = (id: string) => nodes.start(id);

afterAll(() => nodes.stopAll(), 60_000);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let seq = 0;

/**
 * A request to a live node, retried on another with the same Idempotency-Key (a load balancer's
 * behaviour) while it answers 5xx, for up to three minutes (a busy machine slows a node; a count of
 * attempts ran out while one was starved).
 */
async function call(method: string, path: string, apiKey: string, body?: unknown): Promise<JsonReply> {
  const ik = method === 'POST' ? `pf-${process.pid}-${++seq}` : undefined;
  const deadline = performance.now() + 180_000;
  for (let attempt = 0; ; attempt++) {
    const live = procs.filter((p) => p.up);
    const p = live[attempt % live.length];
    const last = performance.now() > deadline;
    try {
      const r = await jsonCall(p.port, method, path, { 'service-api-key': apiKey, ...(ik ? { 'idempotency-key': ik } : {}) }, body, { agent: false, timeoutMs: 120_000 });
      if (r.status < 500 || last) return r;
      if (attempt % 10 === 0) console.warn(`[payouts failover] ${method} ${path} on ${p.id}: ${r.status} ${JSON.stringify(r.body).slice(0, 300)}; retried`);
    } catch (e) {
      if (last) throw e;
      if (attempt % 10 === 0) console.warn(`[payouts failover] ${method} ${path} on ${p.id}: ${(e as Error).message}; retried`);
    }
    await sleep(Math.min(2_000, 250 * (attempt + 1)));
  }
}

async function until<T>(what: string, f: () => Promise<T | undefined>, limitMs: number, progress?: () => string): Promise<T> {
  const t = performance.now();
  let told = t;
  for (;;) {
    const v = await f();
    if (v !== undefined) return v;
    if (performance.now() - t > limitMs) throw new Error(`${what}: not within ${limitMs / 1000} s${progress ? ` (${progress()})` : ''}`);
    if (progress && performance.now() - told > 15_000) {
      told = performance.now();
      console.log(`[payouts failover] waiting ${((told - t) / 1000).toFixed(0)} s for ${what}: ${progress()}`);
    }
    await sleep(200);
  }
}

/** Payee i's account: 2% refused by the instant rail (serial ending 91: failover to the batch rail), the rest settle. */
const accountOf = (i: number) => ({ bank_code: '058', account_number: nuban('058', `${String(i).padStart(7, '0')}${i % 50 === 7 ? '91' : '10'}`) });
const m = (amount: number) => ({ amount, currency: 'NGN' });
const payeeRow = (i: number) => ({
  payee_ref: `p${i}`, monthly_basic: m(30_000_000 + (i % 97) * 10_000), monthly_housing: m(5_000_000), monthly_transport: m(2_000_000), monthly_other_allowances: m(0),
  state_of_residence: 'NG-LA', nhf_contributing: false, pension_administrator: 'pfa_a', bank_identifier: `b${i}`, starts_on: '2025-01-01', ends_on: null,
  bank_account: accountOf(i),
});

/**
 * On by default in the cluster project; PAYOUTS_FAILOVER_TEST=0 skips it (a machine without the
 * time for its three node processes). It was opt-in for a while: in one whole-suite run dispatch
 * stopped after the kill (3,507 of 10,000 dispatched, the machine idle) and did not resume within
 * 600 s. Two faults of the runtime a kill leaves behind were then fixed (effects after a takeover in
 * runtime/system.ts; a reminder pass spinning on a dead node's claims, which held back every later
 * reminder such as an instruction's tally, in runtime/scheduler.ts), and it has passed every run
 * since, alone and inside the whole suite. It once ran 8 to 11 minutes and did not finish inside
 * the whole suite: the nodes' 3 s shard leases lapsed whenever a node was starved of CPU (the lease
 * churn then failed or delayed the asks in flight), and every payout carried a 0.6 s answer
 * reminder that fired under load before the rail's answer was recorded, sending thousands of
 * payouts through unknown and a status query. The nodes now hold 10 s leases
 * (support/chaos/payouts-node-main.ts) and the answer time-out is watched per instruction
 * (actors/payouts/payout.ts header).
 */
const enabled = process.env.PAYOUTS_FAILOVER_TEST !== '0';

describe.runIf(enabled)('payouts failover on loopback: three node processes (spec 8, DESIGN "Sharding")', () => {
  let stores: ClusterStores;
  let apiKey = '';
  let org = '';

  beforeAll(async () => {
    await Promise.all([startNode('n1'), startNode('n2'), startNode('n3')]);
    stores = await clusterTestStores(new ManualClock(), { namespace, ephemeral: false });
    const reg = await call('POST', '/v1/registrations', '', { organisation_name: 'Payouts Failover', name: 'Ada Obi', email: `payouts.failover.${process.pid}@example.ng`, password: 'violet-harmattan-7-kettle' });
    if (reg.status !== 200) throw new Error(`registration failed: ${reg.status} ${JSON.stringify(reg.body)}`);
    apiKey = reg.body.api_key.key;
    org = reg.body.organisation.id;
  }, 120_000);

  afterAll(async () => {
    await stores?.close();
  });

  /**
   * LINES payees imported (250 rows a request: an import whose forwarded creates time out on a
   * loaded machine answers 503 after creating some rows, and its retry is then refused
   * duplicate_payee_ref, the payroll import not being resumable, so each request is kept small;
   * four imports at a time, each waiting mostly on round trips between the nodes and the stores),
   * their passports issued, and a run calculated, submitted, approved and executed. Answers its id.
   */
  async function executedRun(began: number): Promise<string> {
    const starts = Array.from({ length: Math.ceil(LINES / 250) }, (_, k) => k * 250);
    const importer = async () => {
      for (let from = starts.shift(); from !== undefined; from = starts.shift()) {
        const rows = Array.from({ length: Math.min(250, LINES - from) }, (_, k) => payeeRow(from + k));
        const r = await call('POST', '/v1/payroll/imports', apiKey, { format: 'json', rows, employer: { headcount: LINES, turnover_50m_or_more: true, maker_checker_threshold: m(1e15) } });
        expect(r.status, JSON.stringify(r.body).slice(0, 500)).toBe(201);
        expect(r.body.status, JSON.stringify(r.body.validation).slice(0, 500)).toBe('completed');
      }
    };
    await Promise.all([importer(), importer(), importer(), importer()]);
    const stamp = (what: string) => console.log(`[payouts failover] ${what} at ${((performance.now() - began) / 1000).toFixed(1)} s`);
    stamp('payees imported');
    await Promise.all(Array.from({ length: Math.ceil(LINES / 1_000) }, async (_, n) => {
      const from = n * 1_000;
      const r = await call('POST', '/v1/test_payouts/passports', apiKey, { payee_refs: Array.from({ length: Math.min(1_000, LINES - from) }, (_, k) => `p${from + k}`) });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
    }));
    stamp('passports issued');
    const created = await call('POST', '/v1/payroll/runs', apiKey, { period: '2026-01', run_type: 'regular' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const runId = created.body.id as string;
    for (const step of ['calculate', 'submit', 'approve', 'execute']) {
      const r = await call('POST', `/v1/payroll/runs/${runId}/${step}`, apiKey, {});
      expect(r.status, `${step}: ${JSON.stringify(r.body).slice(0, 500)}`).toBe(200);
      stamp(`run ${step}`);
    }
    return runId;
  }

  /** Every rail's statement of the organisation, read from the shared store: credits per payout, payouts the instant rail refused, and the rails that paid serial 91. */
  async function railBooks() {
    const credits = new Map<string, number>();
    const refusedOnInstant = new Set<string>();
    const serial91Credits: string[] = [];
    const rails = sandboxRails(PAYOUTS_POLICY.pack.rails, stores.kv, stores.indexes, { resolveAfterMs: 1, latencyMs: 0 });
    for (const rail of rails) {
      for (let after: string | undefined; ; ) {
        const page = await rail.statement(org, { after, limit: 1_000 }, Date.now());
        for (const e of page.entries) {
          if (e.status === 'settled') {
            credits.set(e.payout_id, (credits.get(e.payout_id) ?? 0) + 1);
            if (e.account_number.slice(7, 9) === '91') serial91Credits.push(rail.id);
          } else if (rail.id === 'route_multi_rail_rail_nip') refusedOnInstant.add(e.payout_id);
        }
        if (!page.hasMore || page.entries.length === 0) break;
        after = page.entries[page.entries.length - 1].reference;
      }
    }
    return { credits, refusedOnInstant, serial91Credits };
  }

  it('kill -9 of the node dispatching a 10,000-line instruction: after failover the rails\u2019 own books pay every payee exactly once and our payouts agree', async () => {
    const began = performance.now();
    const runId = await executedRun(began);
    const setupS = (performance.now() - began) / 1000;
    console.log(`[payouts failover] set-up ${setupS.toFixed(1)} s`);

    // Executing the run submitted and planned its signed instruction (accounts inside the signed bytes) by
    // reaction; unfunded, it waits for funds, and the deposit executes it (docs/gaps.md#payouts "Paid by reaction").
    const instr = await until('the run\u2019s instruction', async () => {
      const i = (await call('GET', `/v1/payouts/instructions?run_id=${runId}`, apiKey)).body.data?.[0];
      return i?.status === 'funding_pending' ? i : undefined;
    }, 60_000);
    expect(instr).toMatchObject({ status: 'funding_pending', line_count: LINES, next_action: { code: 'fund_account' } });

    // The node owning the instruction dispatches it; it is killed once a part of the lines is dispatched.
    const kv = await new Kvm(stores.nats).open(`${namespace}_shards`);
    const lease = await kv.get(`s.${shardOf(INSTRUCTION_KIND, instr.id)}`);
    const ownerId = lease!.json<{ node: string }>().node;
    const owner = procs.find((p) => p.id === ownerId)!;
    const executedAt = performance.now();
    const ex = await call('POST', '/v1/payouts/funding_account/deposits', apiKey, { amount: instr.total });
    expect(ex.status, JSON.stringify(ex.body)).toBe(200);
    let seen: { progress: Record<string, unknown> } | undefined;
    const shown = () => JSON.stringify(seen?.progress ?? {});
    const atKill = await until('a third of the lines dispatched', async () => {
      const b = (seen = (await call('GET', `/v1/payouts/instructions/${instr.id}`, apiKey)).body);
      return b.progress.dispatched >= LINES / 3 ? b : undefined;
    }, 300_000, shown);
    owner.up = false;
    owner.child.kill('SIGKILL');
    const killedAt = performance.now();
    expect(atKill.status).toBe('executing');
    const done = await until('every payout final', async () => {
      const b = (seen = (await call('GET', `/v1/payouts/instructions/${instr.id}`, apiKey)).body);
      return b.status !== 'executing' ? b : undefined;
    }, 600_000, shown);
    const doneAt = performance.now();
    const finalS = (doneAt - executedAt) / 1000;
    expect(done).toMatchObject({ status: 'settled', progress: { settled: LINES, failed: 0, held: 0 } });

    // The rails' own books, read from the shared store (not through a node): one credit per payout.
    const { credits, refusedOnInstant, serial91Credits } = await railBooks();
    expect(credits.size).toBe(LINES);
    expect([...credits.values()].filter((n) => n !== 1)).toEqual([]);
    // Serial 91 is refused by the instant rail: each of those payees was paid on a fallback rail, most
    // after a refusal on the instant rail (one whose first send died with the killed node, before
    // reaching the rail, failed over after its status query instead).
    const serial91 = Array.from({ length: LINES }, (_, i) => i).filter((i) => i % 50 === 7).length;
    expect(serial91Credits).toHaveLength(serial91);
    expect(serial91Credits.filter((r) => r === 'route_multi_rail_rail_nip')).toEqual([]);
    expect(refusedOnInstant.size).toBeGreaterThanOrEqual(Math.floor(serial91 * 0.9));

    // Our payouts agree: the settlement's reconciliation against each rail's statement finds nothing.
    const settlement = await call('POST', '/v1/payouts/settlements', apiKey, { instruction_id: instr.id });
    expect(settlement.status, JSON.stringify(settlement.body).slice(0, 500)).toBe(201);
    expect(settlement.body).toMatchObject({ settled_count: LINES, exception_count: 0 });
    await until('the run\u2019s outcome', async () => ((await call('GET', `/v1/payroll/runs/${runId}`, apiKey)).body.status === 'completed' ? true : undefined), 60_000);
    console.log(`[payouts failover] ${LINES} lines: set-up ${setupS.toFixed(1)} s; execute -> final ${finalS.toFixed(1)} s; killed ${ownerId} at ${atKill.progress.dispatched} dispatched (${((killedAt - executedAt) / 1000).toFixed(1)} s after execute); final ${((doneAt - killedAt) / 1000).toFixed(1)} s after the kill`);
  }, 1_500_000);
});
