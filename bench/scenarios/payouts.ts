/**
 * Payouts bench (spec 2.11, 8): a 100,000-line instruction from an executed payroll run on the
 * sandbox rails, embedded stores, one process. 2% of payees are refused by the instant rail (code 91:
 * failover to the batch rail), 0.5% time out (half later settle, half later fail and fail over after
 * the status query). Rail latency is simulated (PAYOUTS_SANDBOX_LATENCY_MS per rail call) and the
 * policy's waiting times are scaled (PAYOUTS_TIME_SCALE) so the status queries fall inside the run.
 *
 * Figures: time from execute to every payout final (target <= 10 s), beside the same instruction's
 * dispatch alone; failover latency from a refusal to the next rail's accepted answer, p95 (target
 * <= 1 s) beside the spec's 15 s (ratio printed) with p50 and max as the spread; payees paid twice
 * on the rails' own books (target 0). PAYOUTS_BENCH_LINES overrides the line count.
 */
import { createPrivateKey, sign } from 'node:crypto';
import { absolute, round, versus, type BenchResult } from '../report.ts';
import { SystemClock } from '../../runtime/index.ts';
import { createPlatform, stopPlatform, type Caller } from '../../kernel/index.ts';
import { createMemoryStores } from '../../stores/index.ts';
import { area as ledger } from '../../actors/ledger/index.ts';
import { area as identity, passportIdOf, PASSPORT_KIND } from '../../actors/identity/index.ts';
import { approveRun, area as payroll, calculateRun, createRun, executeRun, MAX_IMPORT_ROWS, payoutInstructionFor, Run, runImport, signingKey } from '../../actors/payroll/index.ts';
import { area as payoutsArea, nuban, payouts, type InstructionState, INSTRUCTION_KIND } from '../../actors/payouts/index.ts';

const N = Number(process.env.PAYOUTS_BENCH_LINES ?? 100_000);
const LATENCY_MS = Number(process.env.PAYOUTS_BENCH_LATENCY_MS ?? 2);
const SCALE = 0.001; // 60 s status-query delay -> 60 ms; 120 s sandbox resolution -> 120 ms

function row(i: number) {
  const m = (amount: number) => ({ amount, currency: 'NGN' });
  return {
    payee_ref: `emp-${String(i).padStart(6, '0')}`,
    monthly_basic: m(20_000_000 + ((i * 7_919) % 50_000_000)), monthly_housing: m(5_000_000), monthly_transport: m(2_000_000), monthly_other_allowances: m(0),
    annual_rent_paid: m(0), annual_life_assurance_premium: m(0), annual_mortgage_interest: m(0),
    state_of_residence: 'NG-LA', nhf_contributing: false, nhia_enrolled: false, pension_administrator: 'pfa_stanbic', bank_identifier: String(1_000_000_000 + i), starts_on: '2025-01-01', ends_on: null,
  };
}

/** The sandbox behaviour of line i: 2% refused by the instant rail, 0.25% time out then settle, 0.25% time out then fail. */
const tagOf = (i: number) => (i % 50 === 7 ? '91' : i % 400 === 13 ? '93' : i % 400 === 213 ? '94' : '10');
const pct = (xs: number[], p: number) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] : 0);

export default async function payoutsBench(): Promise<BenchResult[]> {
  const clock = new SystemClock();
  const stores = createMemoryStores({ now: () => clock.now() });
  const platform = await createPlatform({ areas: [ledger, identity, payroll, payoutsArea], stores, clock, config: { PAYOUTS_TIME_SCALE: String(SCALE), PAYOUTS_SANDBOX_LATENCY_MS: String(LATENCY_MS) } });
  const org = 'org_bench_payouts';
  const maker: Caller = { org, livemode: false, principal: 'bench_maker' };
  const checker: Caller = { org, livemode: false, principal: 'bench_checker' };
  const results: BenchResult[] = [];
  try {
    let t = performance.now();
    for (let from = 0; from < N; from += MAX_IMPORT_ROWS) {
      await runImport(platform.system, maker, { format: 'json', rows: Array.from({ length: Math.min(MAX_IMPORT_ROWS, N - from) }, (_, i) => row(from + i)), employer: { headcount: N, turnover_50m_or_more: true, maker_checker_threshold: 0 } });
    }
    await platform.system.settle();
    const run = (await createRun(platform, maker, { period: '2026-01', run_type: 'regular' })) as { id: string };
    await calculateRun(platform, maker, run.id);
    await platform.system.ask(Run, run.id, 'submit', {}, maker);
    await approveRun(platform, checker, run.id);
    await executeRun(platform, maker, run.id);
    await platform.system.settle();
    for (let i = 0; i < N; i += 1000) {
      await Promise.all(Array.from({ length: Math.min(1000, N - i) }, (_, k) => {
        const ref = `emp-${String(i + k).padStart(6, '0')}`;
        return platform.system.ask(PASSPORT_KIND, passportIdOf(org, ref), 'issue', { subject_ref: ref, verification_id: `anchor_pro_verification_b${i + k}`, assurance: 'dal_2', consent_token_id: null, livemode: false, mocked: true }, { org, principal: 'system' });
      }));
    }
    // Payroll's document with each payee's account, signed with payroll's key (docs/gaps.md#payouts).
    const own = (await payoutInstructionFor(platform.system, org, run.id))!;
    const doc = JSON.parse(own.document) as { total: number; lines: Array<Record<string, unknown> & { payee_ref: string }> };
    doc.lines = doc.lines.map((l) => {
      const i = Number(l.payee_ref.slice(4));
      return { ...l, bank_code: '058', account_number: nuban('058', `${String(i).padStart(7, '0')}${tagOf(i)}`) };
    });
    const document = JSON.stringify(doc);
    const key = await signingKey(stores.kv, org, 'test');
    const env = { object: 'signed_payout_instruction' as const, algorithm: 'ed25519' as const, key_id: key.key_id, document, signature: sign(null, Buffer.from(document), createPrivateKey(key.private_pem)).toString('base64') };
    const svc = payouts(platform);
    const setupS = (performance.now() - t) / 1000;
    results.push(absolute('set-up (100k payroll run executed, passports, signed instruction)', round(setupS, 1), 's', undefined, false, `${N.toLocaleString('en-US')} lines`));

    t = performance.now();
    const instr = (await svc.submit(maker, env, 'route_multi_rail_payout_bench0000000000001', 'bench')) as { id: string; status: string };
    if (instr.status !== 'received') throw new Error(`bench: instruction ${instr.status}`);
    const intakeS = (performance.now() - t) / 1000;
    await platform.system.ask('payout_funding_account', (await import('../../actors/payouts/index.ts')).fundingAccountIdOf(org, false), 'deposit', { amount: doc.total, livemode: false, reference: 'bench' }, maker);
    await svc.makePlan(maker, instr.id, {}, 'route_multi_rail_route_plan_bench000000000001');

    t = performance.now();
    let dispatchedAt = 0;
    await svc.execute(maker, instr.id);
    let s: InstructionState;
    for (;;) {
      s = await platform.system.state<InstructionState>(INSTRUCTION_KIND, instr.id, org);
      if (!dispatchedAt && s.dispatched >= N) dispatchedAt = performance.now() - t;
      if (s.status !== 'executing') break;
      if (performance.now() - t > 120_000) throw new Error(`bench: not final after 120 s (${s.settled_count + s.failed_count + s.held_count}/${N})`);
      await new Promise((r) => setTimeout(r, 20));
    }
    const finalS = (performance.now() - t) / 1000;
    results.push(versus('execute -> every payout final (embedded)', round(finalS, 2), 's', 'dispatch alone (one payout actor per line, first attempt sent)', round(dispatchedAt / 1000, 2), 10, `${s.status}: ${s.settled_count} settled, ${s.failed_count} failed, ${s.held_count} held; intake of the signed 100k-line document ${round(intakeS, 2)} s`));
    results[results.length - 1].pass = finalS <= 10;

    const f = svc.failovers;
    const p95 = pct(f, 95);
    results.push(versus('failover latency p95 (refusal -> next rail accepted)', round(p95, 1), 'ms', 'spec 8 limit (15 s)', 15_000, 1_000, `p50 ${round(pct(f, 50), 1)} ms, max ${round(Math.max(0, ...f), 1)} ms over ${f.length} failovers; ratio to 15 s = ${round(p95 / 15_000, 5)}`));
    results[results.length - 1].pass = p95 <= 1_000;

    // The rails' own books: every settled transfer, per payout.
    const credits = new Map<string, number>();
    for (const rail of svc.rails) {
      let after: string | undefined;
      for (;;) {
        const page = await rail.statement(org, { after, limit: 1000 }, clock.now());
        for (const e of page.entries) if (e.status === 'settled') credits.set(e.payout_id, (credits.get(e.payout_id) ?? 0) + 1);
        if (!page.hasMore || !page.entries.length) break;
        after = page.entries[page.entries.length - 1].reference;
      }
    }
    const twice = [...credits.values()].filter((n) => n > 1).length;
    results.push(absolute('payees paid twice (rails\u2019 own books)', twice, 'payees', 0, false, `${credits.size} payees credited; ours settled ${s.settled_count}`));
    if (credits.size !== s.settled_count) throw new Error(`bench: books credit ${credits.size} payees, we settled ${s.settled_count}`);
  } finally {
    await stopPlatform(platform);
  }
  return results;
}
