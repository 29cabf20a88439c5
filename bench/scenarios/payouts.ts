/**
 * Payouts bench (spec 2.11, 8): a 100,000-line instruction from an executed payroll run on the
 * sandbox rails, embedded stores, one process. Each payee's bank account is on its pay profile
 * (imported), so payroll signs it into the run's instruction and executing the run submits it to
 * payouts by reaction (docs/gaps.md#payouts). 2% of payees are refused by the instant rail (code 91:
 * failover to the batch rail), 0.5% time out (code 97: unknown; half later settle, half later fail
 * and fail over after the status query). Rail latency is simulated (PAYOUTS_SANDBOX_LATENCY_MS per
 * rail call) and the policy's waiting times are scaled (PAYOUTS_TIME_SCALE) so the status queries
 * fall inside the run.
 *
 * Rounds (PAYOUTS_BENCH_ROUNDS, default 2; every round adds 100,000 payout actors to the same heap, so later rounds also measure a larger heap): round 1 pays the run's own instruction; each later
 * round pays a copy of its lines re-signed with payroll's key under another instruction_ref (a new
 * instruction for the same run, so no payroll run of 100,000 payees is computed per round).
 *
 * Figures: time from execute to every payout final (target <= 10 s): the slowest round,
 * beside the first, with the spread of the rounds (each round's wall time, this process's CPU
 * seconds in it, its dispatch alone and its failover p95 are printed: on a shared machine the CPU
 * seconds say what the payouts cost, the wall time what the load left of it); failover latency
 * from a refusal to the next rail's accepted answer, p95 over every round (target <= 1 s) beside
 * the spec's 15 s; payees paid twice on the rails' own books (target 0); how many time-outs and
 * status queries happened. PAYOUTS_BENCH_LINES overrides the line count.
 *
 * Profiles: BENCH_CPU_PROF=<dir> writes <dir>/payouts-round-<n>.cpuprofile of each round's execute
 * -> final (open in Chrome DevTools); PAYOUTS_BENCH_PROFILE=<file> one profile of every round.
 */
import { createPrivateKey, sign } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { absolute, round, versus, type BenchResult } from '../report.ts';
import { SystemClock } from '../../runtime/index.ts';
import { createPlatform, derivedId, stopPlatform, type Caller } from '../../kernel/index.ts';
import { createMemoryStores } from '../../stores/index.ts';
import { area as ledger } from '../../actors/ledger/index.ts';
import { area as identity, passportIdOf, PASSPORT_KIND } from '../../actors/identity/index.ts';
import { approveRun, area as payroll, calculateRun, createRun, executeRun, MAX_IMPORT_ROWS, payoutInstructionFor, payrollSigningKey, Run, runImport } from '../../actors/payroll/index.ts';
import { area as payoutsArea, fundingAccountIdOf, INSTRUCTION_PREFIX, nuban, payouts, type InstructionState, INSTRUCTION_KIND } from '../../actors/payouts/index.ts';

const N = Number(process.env.PAYOUTS_BENCH_LINES ?? 100_000);
const ROUNDS = Math.max(1, Number(process.env.PAYOUTS_BENCH_ROUNDS ?? 2));
const LATENCY_MS = Number(process.env.PAYOUTS_BENCH_LATENCY_MS ?? 2);
// 60 s answer time-out and status-query delay -> 300 ms; 120 s sandbox resolution -> 600 ms. (At 0.001 the
// 60 ms answer time-out fired under load before the rail's 2 ms answer was recorded: thousands of spurious unknowns.)
const SCALE = Number(process.env.PAYOUTS_BENCH_SCALE ?? 0.005);

/** The sandbox behaviour of payee i: 2% refused by the instant rail, 0.25% time out then settle, 0.25% time out then fail. */
const tagOf = (i: number) => (i % 50 === 7 ? '91' : i % 400 === 13 ? '93' : i % 400 === 213 ? '94' : '10');

function row(i: number) {
  const m = (amount: number) => ({ amount, currency: 'NGN' });
  return {
    payee_ref: `emp-${String(i).padStart(6, '0')}`,
    monthly_basic: m(20_000_000 + ((i * 7_919) % 50_000_000)), monthly_housing: m(5_000_000), monthly_transport: m(2_000_000), monthly_other_allowances: m(0),
    annual_rent_paid: m(0), annual_life_assurance_premium: m(0), annual_mortgage_interest: m(0),
    state_of_residence: 'NG-LA', nhf_contributing: false, nhia_enrolled: false, pension_administrator: 'pfa_stanbic', bank_identifier: String(1_000_000_000 + i), starts_on: '2025-01-01', ends_on: null,
    bank_account: { bank_code: '058', account_number: nuban('058', `${String(i).padStart(7, '0')}${tagOf(i)}`) },
  };
}

async function waitFor<T>(what: string, f: () => Promise<T | undefined>, limitMs = 300_000): Promise<T> {
  const t = performance.now();
  for (;;) {
    const v = await f().catch(() => undefined);
    if (v !== undefined) return v;
    if (performance.now() - t > limitMs) throw new Error(`bench: ${what} not done after ${limitMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A CPU profile from now until the returned function writes it to `file` (open in Chrome DevTools). */
async function startProfile(): Promise<(file: string) => Promise<void>> {
  const { Session } = await import('node:inspector/promises');
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return async (file) => {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(file, JSON.stringify(profile));
    session.disconnect();
  };
}

const pct = (xs: number[], p: number) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] : 0);

/** The bench's platform and what every step reads from it. */
interface Bench {
  platform: Awaited<ReturnType<typeof createPlatform>>;
  stores: ReturnType<typeof createMemoryStores>;
  svc: ReturnType<typeof payouts>;
  clock: SystemClock;
  org: string;
  maker: Caller;
  checker: Caller;
}

/** Payees with accounts imported, their passports, and a payroll run calculated and approved. */
async function setUp(b: Bench): Promise<{ id: string }> {
  const { platform, org, maker, checker } = b;
  for (let from = 0; from < N; from += MAX_IMPORT_ROWS) {
    await runImport(platform, maker, { format: 'json', rows: Array.from({ length: Math.min(MAX_IMPORT_ROWS, N - from) }, (_, i) => row(from + i)), employer: { headcount: N, turnover_50m_or_more: true, maker_checker_threshold: 0 } });
  }
  for (let i = 0; i < N; i += 1000) {
    await Promise.all(Array.from({ length: Math.min(1000, N - i) }, (_, k) => {
      const ref = `emp-${String(i + k).padStart(6, '0')}`;
      return platform.system.ask(PASSPORT_KIND, passportIdOf(org, ref), 'issue', { subject_ref: ref, verification_id: `anchor_pro_verification_b${i + k}`, assurance: 'dal_2', consent_token_id: null, livemode: false, mocked: true }, { org, principal: 'system' });
    }));
  }
  await platform.system.settle();
  const run = (await createRun(platform, maker, { period: '2026-01', run_type: 'regular' })) as { id: string };
  await calculateRun(platform, maker, run.id);
  await platform.system.ask(Run, run.id, 'submit', {}, maker);
  await approveRun(platform, checker, run.id);
  return run;
}

/** The instruction ids of the later rounds: the run's lines re-signed under another instruction_ref (a new instruction each). */
async function resignedInstructions(b: Bench, runId: string): Promise<string[]> {
  const { platform, stores, svc, org, maker } = b;
  const own = (await payoutInstructionFor(platform.system, org, runId))!;
  const key = await payrollSigningKey(stores.kv, org, 'test');
  const ids: string[] = [];
  for (let r = 2; r <= ROUNDS; r++) {
    const doc = JSON.parse(own.document) as { instruction_ref: string };
    doc.instruction_ref = `${doc.instruction_ref}:bench-round-${r}`;
    const document = JSON.stringify(doc);
    const env = { object: 'signed_payout_instruction' as const, algorithm: 'ed25519' as const, key_id: key.key_id, document, signature: sign(null, Buffer.from(document), createPrivateKey(key.private_pem)).toString('base64') };
    const id = `route_multi_rail_payout_bench${String(r).padStart(12, '0')}`;
    const got = (await svc.submit(maker, env, id, `bench-${r}`)) as { status: string; quarantine_reason: string | null };
    if (got.status !== 'received') throw new Error(`bench: round ${r} instruction ${got.status} (${got.quarantine_reason})`);
    ids.push(id);
  }
  return ids;
}

/** One round's figures: execute to every payout final, this process's CPU in it, the dispatch alone (all in seconds), its note, and the instruction as it ended. */
interface Round {
  final: number;
  cpu: number;
  dispatch: number;
  note: string;
  state: InstructionState;
}

/**
 * Round k + 1: funds and plans instruction `id`, then executes it (the run's own instruction by
 * the deposit, through the run link; a re-signed one by execute) and polls until it is final.
 */
async function payRound(b: Bench, k: number, id: string, byReaction: boolean, total: number, profileDir: string | undefined): Promise<Round> {
  const { platform, stores, svc, org, maker } = b;
  const deposit = () => platform.system.ask('payout_funding_account', fundingAccountIdOf(org, false), 'deposit', { amount: total, livemode: false, reference: `bench-${k + 1}` }, maker);
  if (!byReaction) await deposit();
  if ((await platform.system.state<InstructionState>(INSTRUCTION_KIND, id, org)).route_plan_id === null) await svc.makePlan(maker, id, {}, `route_multi_rail_route_plan_bench${String(k + 1).padStart(12, '0')}`);
  const before = { ...svc.answers };
  const failoversBefore = svc.failovers.length;
  const roundProfile = profileDir ? await startProfile() : undefined;
  const cpu0 = process.cpuUsage();
  const t = performance.now();
  let dispatchedAt = 0;
  let s: InstructionState;
  if (byReaction) await deposit();
  else await svc.execute(maker, id);
  for (;;) {
    s = await platform.system.state<InstructionState>(INSTRUCTION_KIND, id, org);
    if (!dispatchedAt && s.dispatched >= N) dispatchedAt = performance.now() - t;
    if (s.status !== 'executing' && !(byReaction && s.status !== 'settled' && s.status !== 'partially_settled' && s.status !== 'failed')) break;
    if (performance.now() - t > 300_000) throw new Error(`bench: not final after 300 s (${s.settled_count + s.failed_count + s.held_count}/${N})`);
    await new Promise((r) => setTimeout(r, 10));
  }
  const finalMs = performance.now() - t;
  const c = process.cpuUsage(cpu0);
  if (roundProfile) await roundProfile(join(profileDir!, `payouts-round-${k + 1}.cpuprofile`));
  const cpu = (c.user + c.system) / 1e6;
  const a = svc.answers;
  const reports = (await stores.journal.read(`${INSTRUCTION_KIND}.${id}`, 0)).filter((e) => e.type === 'instruction.outcomes_recorded').length;
  const note = `round ${k + 1}: ${round(finalMs / 1000, 2)} s, ${round(cpu, 2)} CPU s (dispatch ${round((dispatchedAt || finalMs) / 1000, 2)} s; ${s.status}, ${s.settled_count} settled, ${s.failed_count} failed, ${s.held_count} held; rail answers ${a.settled - before.settled} settled, ${a.refused - before.refused} refused, ${a.timeout - before.timeout} timed out, ${a.pending - before.pending} pending; ${a.status_queries - before.status_queries} status queries; failover p95 ${round(pct(svc.failovers.slice(failoversBefore), 95), 1)} ms; ${reports} outcome reports to the instruction)`;
  return { final: finalMs / 1000, cpu, dispatch: (dispatchedAt || finalMs) / 1000, note, state: s };
}

/** The rails' own books: how many settled transfers each payout has. */
async function railCredits(b: Bench): Promise<Map<string, number>> {
  const credits = new Map<string, number>();
  for (const rail of b.svc.rails) {
    let after: string | undefined;
    for (;;) {
      const page = await rail.statement(b.org, { after, limit: 1000 }, b.clock.now());
      for (const e of page.entries) if (e.status === 'settled') credits.set(e.payout_id, (credits.get(e.payout_id) ?? 0) + 1);
      if (!page.hasMore || !page.entries.length) break;
      after = page.entries[page.entries.length - 1].reference;
    }
  }
  return credits;
}

/** The rows of the rounds: the slowest round to final beside the first, the time-outs, and the failover latency. */
function roundRows(b: Bench, rounds: Round[]): BenchResult[] {
  const { svc } = b;
  const finals = rounds.map((r) => r.final);
  // The slowest round is the figure (later rounds run with the earlier rounds' payouts in the heap).
  const slowest = Math.max(...finals);
  const fastest = Math.min(...finals);
  const spread = `${finals.length} rounds ${finals.map((x) => round(x, 2)).join(' / ')} s: min ${round(fastest, 2)}, max ${round(slowest, 2)}, spread ${round(slowest - fastest, 2)} s (${round((100 * (slowest - fastest)) / fastest, 0)}% of the fastest); CPU ${rounds.map((r) => round(r.cpu, 2)).join(' / ')} s; dispatch alone ${rounds.map((r) => round(r.dispatch, 2)).join(' / ')} s`;
  const final = versus('execute -> every payout final (embedded, slowest round)', round(slowest, 2), 's', 'first round', round(finals[0], 2), 10, spread);
  final.pass = slowest <= 10;
  const timeouts = svc.answers.timeout;
  const timeoutRow = absolute('rail time-outs (unknown, resolved by status query)', timeouts, 'payouts', undefined, false, `${svc.answers.status_queries} status queries over ${ROUNDS} round(s); expected ${Math.round(N * 0.005)} per round`);
  if (timeouts < ROUNDS * Math.floor(N / 400) * 2) throw new Error(`bench: only ${timeouts} time-outs happened; the sandbox accounts 93/94 should time out`);
  const f = svc.failovers;
  const p95 = pct(f, 95);
  const failover = versus('failover latency p95 (refusal -> next rail accepted)', round(p95, 1), 'ms', 'spec 8 limit (15 s)', 15_000, 1_000, `p50 ${round(pct(f, 50), 1)} ms, max ${round(Math.max(0, ...f), 1)} ms over ${f.length} failovers; ratio to 15 s = ${round(p95 / 15_000, 5)}`);
  failover.pass = p95 <= 1_000;
  return [final, timeoutRow, failover];
}

export default async function payoutsBench(): Promise<BenchResult[]> {
  const clock = new SystemClock();
  const stores = createMemoryStores({ now: () => clock.now() });
  const platform = await createPlatform({ areas: [ledger, identity, payroll, payoutsArea], stores, clock, config: { PAYOUTS_TIME_SCALE: String(SCALE), PAYOUTS_SANDBOX_LATENCY_MS: String(LATENCY_MS) } });
  const org = 'org_bench_payouts';
  const maker: Caller = { org, livemode: false, principal: 'bench_maker' };
  const checker: Caller = { org, livemode: false, principal: 'bench_checker' };
  const results: BenchResult[] = [];
  const b: Bench = { platform, stores, svc: payouts(platform), clock, org, maker, checker };
  try {
    let t = performance.now();
    const run = await setUp(b);
    const setupS = (performance.now() - t) / 1000;
    results.push(absolute('set-up (payees with accounts imported, passports, payroll run calculated and approved)', round(setupS, 1), 's', undefined, false, `${N.toLocaleString('en-US')} lines`));

    // Executing the run submits its signed instruction (accounts inside the signed bytes) by reaction.
    t = performance.now();
    await executeRun(platform, maker, run.id);
    const linkedId = derivedId(INSTRUCTION_PREFIX, [org, 'run_link', run.id]);
    const first = await waitFor('the run link\u2019s submission', async () => {
      // The link submits and plans it; unfunded, it then waits in funding_pending.
      const s = await platform.system.state<InstructionState>(INSTRUCTION_KIND, linkedId, org).catch(() => undefined);
      return s && s.status !== 'received' ? s : undefined;
    });
    const linkS = (performance.now() - t) / 1000;
    // The run link plans it at once and executes it when funds arrive (docs/gaps.md#payouts "Paid by reaction").
    if (first.status !== 'funding_pending' && first.status !== 'planned') throw new Error(`bench: the run's instruction is ${first.status} (${first.quarantine_reason})`);
    results.push(absolute('run executed -> its instruction received by payouts (reaction, signature and line checks)', round(linkS, 2), 's', undefined, false, `${first.line_count.toLocaleString('en-US')} lines, ${first.total} kobo`));

    const ids = [linkedId, ...(await resignedInstructions(b, run.id))];
    const rounds: Round[] = [];
    const profiler = process.env.PAYOUTS_BENCH_PROFILE ? await startProfile() : undefined;
    const profileDir = process.env.BENCH_CPU_PROF;
    if (profileDir) mkdirSync(profileDir, { recursive: true });
    for (const [k, id] of ids.entries()) rounds.push(await payRound(b, k, id, id === linkedId, first.total, profiler ? undefined : profileDir));
    if (profiler) await profiler(process.env.PAYOUTS_BENCH_PROFILE!);
    for (const r of rounds) console.log(`  payouts ${r.note}`);
    results.push(...roundRows(b, rounds));

    const credits = await railCredits(b);
    const twice = [...credits.values()].filter((n) => n > 1).length;
    results.push(absolute('payees paid twice (rails\u2019 own books)', twice, 'payees', 0, false, `${credits.size} payouts credited over ${ROUNDS} round(s); ours settled ${rounds.at(-1)!.state.settled_count} in the last`));
    await platform.system.settle();
    const runNow = await platform.system.state<{ status: string }>(Run, run.id, org);
    results.push(absolute('payroll run after its instruction (payroll.run.completed by reaction)', runNow.status === 'completed' ? 1 : 0, 'completed', 1, false, runNow.status));
  } finally {
    await stopPlatform(platform);
  }
  return results;
}
