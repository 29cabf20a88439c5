/**
 * Engagements bench (spec 2.6, 4.5). One run measures, against a server in this process (every
 * area, the real gateway) on the local stores `npm start` runs on and then on memory stores, with
 * the load generator in a child process (pinned with taskset -c 1 where available):
 *
 *   1. POST /v1/bench/noops, a fresh Idempotency-Key each: the gateway's no-op idempotent POST  (baseline for 2)
 *   2. POST .../instruments/{id}/execute: instrument executions with sealing, each a different
 *      instrument already assented by both parties with live passports
 *      (target >= 0.3x of 1 on the local stores, >= 0.25x on memory stores)
 *   3. GET /v1/api_keys: an authenticated GET through the full pipeline            (baseline for 4)
 *   4. POST /v1/rail/instruments/verify: recompute a seal and its chain links from the store  (target >= 0.5x of 3)
 *   5. engagementStanding(platform).isCurrent in process, memory stores           (target >= 5,000,000/s)
 *
 * The four HTTP runs alternate over BENCH_ROUNDS rounds (default 3); each figure is the median of
 * its rounds and the note lists every round's ratio to its baseline in the same round. Executions
 * are also shown per server CPU-second, informative (process.cpuUsage of this process, the server, over the run
 * and the settling of the feed work it left: reactions, audit entries, public events), which other
 * processes on a shared machine do not move; each round's ratios are printed as the round ends.
 * BENCH_CPU_PROF=<dir> writes a .cpuprofile of the server over each round's execution run.
 */
import { rmSync } from 'node:fs';
import { loadPinning, runLoad, type LoadSpec, type Req } from '../http-load.ts';
import { profiled, timedCpu } from '../profile.ts';
import { apiCaller } from '../api-call.ts';
import { absolute, compared, round, type BenchResult } from '../report.ts';
import { NOOP_PATH, noopArea } from '../../support/noop-area.ts';
import { tempDir } from '../../support/stores.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const EXECUTIONS_PER_ROUND = Number(process.env.BENCH_EXECUTIONS ?? 1500);

// ---------------------------------------------------------------------------------------------
// Server and scenario (this process)

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

type Family = 'local' | 'memory';
type Server = Awaited<ReturnType<typeof startServer>>;
interface Rows {
  noop: number[];
  exec: number[];
  get: number[];
  verify: number[];
  noopCpu: number[];
  execCpu: number[];
}

/** Every area on `family`'s stores with the real gateway, an organisation registered through it, and 40 subjects with live passports. */
async function startServer(family: Family) {
  const { areas } = await import('../../actors/index.ts');
  const { startGateway } = await import('../../gateway/index.ts');
  const { SystemClock } = await import('../../runtime/index.ts');
  const { createPlatform } = await import('../../kernel/index.ts');
  const { createLocalStores, createMemoryStores } = await import('../../stores/index.ts');
  const clock = new SystemClock();
  const now = () => clock.now();
  const dir = family === 'local' ? tempDir('wf-bench-engagements-') : undefined;
  const stores = dir ? createLocalStores({ dir, now }) : createMemoryStores({ now });
  const platform = await createPlatform({ areas: [...areas, noopArea], stores, clock, config: {} });
  const gw = await startGateway(platform, { host: '127.0.0.1', port: 0 });
  const base = `http://127.0.0.1:${gw.port}`;
  const call = apiCaller(base);
  const reg = await call('POST', '/v1/registrations', { organisation_name: 'Bench Engagements Ltd', name: 'Bench Owner', email: `rail${process.pid}@example.ng`, password: 'bench-violet-kettle-77' });
  const key: string = reg.api_key.key;
  const org: string = reg.organisation.id;

  // Live passports of the parties (sandbox NIN 70123456789 resolves at dal_2).
  const subjects = Array.from({ length: 40 }, (_, i) => `bench_subject_${i}`);
  for (const s of subjects) {
    const t = await call('POST', '/v1/identity/consent_tokens', { subject_ref: s, purpose: 'employment_verification', checks: ['government_identifier', 'name_match', 'date_of_birth_match'], wording_version: 'v1' }, key);
    await call('POST', '/v1/identity/verifications', { subject_ref: s, consent_token_id: t.id, claims: { full_name: 'Bench Worker', date_of_birth: '1990-01-01', government_identifier: '70123456789' } }, key);
  }
  return { platform, gw, call, key, org, subjects, dir };
}

const FACTS = { control: 'engaging_party', integration: 'integral', economic_dependence: 'single_party', tools: 'engaging_party', delegation: 'not_permitted', payment_form: 'wage_or_salary', duration: 'open_ended' };

/** `n` instruments awaiting execution, 16 prepared at a time: each opened, drafted, papered, assented by both parties; the execute requests. */
async function prepare(s: Server, n: number): Promise<Req[]> {
  const { call, key, subjects } = s;
  const employer = subjects[0];
  async function ready(i: number): Promise<Req> {
    const worker = subjects[1 + (i % (subjects.length - 1))];
    const e = await call('POST', '/v1/rail/engagements', { engaging_party_ref: employer, worker_ref: worker, starts_on: '2026-01-01', ends_on: null, facts: FACTS }, key);
    const ins = await call('POST', `/v1/rail/engagements/${e.id}/instruments`, { template_code: 'ng_contract_of_employment' }, key);
    await call('POST', `/v1/rail/engagements/${e.id}/paper`, { instrument_id: ins.id }, key);
    await call('POST', `/v1/rail/engagements/${e.id}/instruments/${ins.id}/assents`, { party: 'engaging_party', subject_ref: employer }, key);
    await call('POST', `/v1/rail/engagements/${e.id}/instruments/${ins.id}/assents`, { party: 'worker', subject_ref: worker }, key);
    return { method: 'POST', path: `/v1/rail/engagements/${e.id}/instruments/${ins.id}/execute`, uniqueKey: true };
  }
  const out: Req[] = new Array(n);
  let next = 0;
  await Promise.all(Array.from({ length: 16 }, async () => {
    while (next < n) {
      const i = next++;
      out[i] = await ready(i);
    }
  }));
  return out;
}

/** The verify request for the seal of the last instrument `list` executes, checked once to answer valid. */
async function verifyRequestFor(s: Server, list: Req[]): Promise<Req> {
  const last = list[list.length - 1].path.split('/');
  const instrument = await s.call('GET', `/v1/rail/instruments/${last[last.length - 2]}`, undefined, s.key);
  const v = await s.call('POST', '/v1/rail/instruments/verify', { hash: instrument.seal.hash }, s.key);
  if (!v.valid || !v.chain_intact) throw new Error(`verify of a fresh seal answered ${JSON.stringify(v)}`);
  return { method: 'POST', path: '/v1/rail/instruments/verify', body: JSON.stringify({ hash: instrument.seal.hash }) };
}

/** The four HTTP runs, alternating over ROUNDS rounds; a note a round. */
async function httpRounds(s: Server): Promise<{ rows: Rows; notes: string[] }> {
  const { platform, gw, key } = s;
  const noop: Req = { method: 'POST', path: NOOP_PATH, body: JSON.stringify({ name: 'bench' }), uniqueKey: true };
  const getKeys: Req = { method: 'GET', path: '/v1/api_keys' };
  const spec = (r: Partial<LoadSpec>): LoadSpec => ({ port: gw.port, key, seconds: SECONDS, connections: CONNECTIONS, ...r });

  const rows: Rows = { noop: [], exec: [], get: [], verify: [], noopCpu: [], execCpu: [] };
  const notes: string[] = [];
  let verifyReq: Req | undefined;
  for (let round_ = 0; round_ < ROUNDS; round_++) {
    process.stderr.write(`  round ${round_ + 1}/${ROUNDS}: preparing ${EXECUTIONS_PER_ROUND} instruments awaiting execution\n`);
    const list = await prepare(s, EXECUTIONS_PER_ROUND);
    await platform.system.settle();
    // each run starts quiet: the event feed (audit entries, public events, reactions) of the run before is drained
    const { out: n, cpu: nCpu } = await timedCpu(async () => {
      const r = await runLoad(spec({ repeat: noop }));
      await platform.system.settle();
      return r;
    });
    const { out: x, cpu: xCpu } = await profiled(`executions-${platform.stores.durable ? 'local' : 'memory'}-round-${round_ + 1}`, () =>
      timedCpu(async () => {
        const r = await runLoad(spec({ list }));
        await platform.system.settle();
        return r;
      }),
    );
    if (x.non2xx) throw new Error(`executions refused: ${x.non2xx}; ${x.sample}`);
    verifyReq ??= await verifyRequestFor(s, list);
    const g = await runLoad(spec({ repeat: getKeys }));
    await platform.system.settle();
    const v = await runLoad(spec({ repeat: verifyReq }));
    for (const r of [n, g, v]) if (r.non2xx) throw new Error(`bench requests refused: ${r.non2xx}; ${r.sample}`);
    rows.noop.push(n.rps);
    rows.exec.push(x.rps);
    rows.get.push(g.rps);
    rows.verify.push(v.rps);
    rows.noopCpu.push(n.requests / nCpu);
    rows.execCpu.push(x.requests / xCpu);
    notes.push(`round ${round_ + 1}: execute ${round(x.rps / n.rps, 3)}x (per CPU-s ${round(rows.execCpu.at(-1)! / rows.noopCpu.at(-1)!, 3)}x), verify ${round(v.rps / g.rps, 3)}x`);
    process.stderr.write(`  ${notes.at(-1)}; execute ${Math.round(x.rps)} req/s, ${Math.round(rows.execCpu.at(-1)!)} req/CPU-s; no-op ${Math.round(n.rps)} req/s, ${Math.round(rows.noopCpu.at(-1)!)} req/CPU-s\n`);
  }
  return { rows, notes };
}

/** Standing reads in process, five rounds: half the lookups name a worker with a current engagement. */
async function standingReads(s: Server): Promise<number[]> {
  const { engagementStanding } = await import('../../actors/engagements/index.ts');
  const { call, key, org } = s;
  const workers = s.subjects.slice(1);
  for (const w of workers.slice(0, 10)) {
    const list = (await call('GET', '/v1/rail/engagements?status=executed&limit=100', undefined, key)).data as Array<{ id: string; worker_ref: string }>;
    const e = list.find((x) => x.worker_ref === w);
    if (e) await call('POST', `/v1/rail/engagements/${e.id}/activate`, undefined, key);
  }
  const standing = engagementStanding(s.platform);
  const refs = Array.from({ length: 1024 }, (_, i) => (i % 2 === 0 ? workers[i % 10] : `unknown_worker_${i}`));
  const reads: number[] = [];
  let hits = 0;
  for (let r = 0; r < 5; r++) {
    const N = 20_000_000;
    const t0 = performance.now();
    for (let i = 0; i < N; i++) if (standing.isCurrent(org, refs[i & 1023])) hits++;
    reads.push(N / ((performance.now() - t0) / 1000));
  }
  if (hits === 0) throw new Error('standing reads found no current engagement');
  return reads;
}

export default async function engagementsBench(): Promise<BenchResult[]> {
  const { stopPlatform } = await import('../../kernel/index.ts');
  const spread = (xs: number[]) => `rounds ${xs.map((x) => Math.round(x)).join(', ')}`;
  const pin = loadPinning();
  const out: BenchResult[] = [];
  let reads: number[] = [];
  for (const [family, target, label] of [['local', 0.3, ', local stores'], ['memory', 0.25, '']] as const) {
    process.stderr.write(`  ${family} stores\n`);
    const s = await startServer(family);
    const { rows, notes } = await httpRounds(s);
    if (family === 'memory') reads = await standingReads(s);
    await s.gw.close(0);
    await stopPlatform(s.platform);
    if (s.dir) rmSync(s.dir, { recursive: true, force: true });
    out.push(
      compared(`instrument executions with sealing${label}`, round(median(rows.exec)), 'req/s', 'no-op idempotent POST', round(median(rows.noop)), target, `${family} stores; ${spread(rows.exec)} vs ${spread(rows.noop)}; ${notes.map((x) => x.split(',')[0]).join('; ')}; ${CONNECTIONS} connections, ${pin}`),
      compared(`instrument executions with sealing per server CPU-second (informative)${label}`, round(median(rows.execCpu)), 'req/CPU-s', 'no-op idempotent POST', round(median(rows.noopCpu)), undefined, `${spread(rows.execCpu)} vs ${spread(rows.noopCpu)} (the run and the feed work it left)`),
      compared(`POST /v1/rail/instruments/verify${label}`, round(median(rows.verify)), 'req/s', 'authenticated GET /v1/api_keys', round(median(rows.get)), 0.5, `${family} stores; ${spread(rows.verify)} vs ${spread(rows.get)}; ${notes.map((x) => x.split(', ')[1]).join('; ')}`),
    );
  }
  out.push(absolute('standing reads in process (isCurrent)', Math.round(median(reads)), 'reads/s', 5_000_000, true, spread(reads)));
  return out;
}
