/**
 * Payroll bench (spec 2.9): a 100,000-payee run simulated and executed, on the embedded stores in
 * one process (one core: the run is one actor, so the work is serial by design).
 *
 * Figures: import set-up time (not a target); calculation; simulation against the draft pack with
 * full traces (target >= 50,000 payslips/s), beside the bare engine loop measured in the same run;
 * execute including the ledger posting (reaction settled), the instruction set and the signed
 * payout instruction (target <= 10 s); peak memory (RSS, sampled).
 * PAYROLL_BENCH_PAYEES overrides the payee count for a quick run.
 */
import { absolute, compared, round, type BenchResult } from '../report.ts';
import { importPayees, payeeRow } from '../payees.ts';
import { ManualClock } from '../../runtime/index.ts';
import { createPlatform, stopPlatform, type Caller } from '../../kernel/index.ts';
import { createMemoryStores } from '../../stores/index.ts';
import { area as ledger, balancesByCode } from '../../actors/ledger/index.ts';
import {
  approveRun, area as payroll, calculateRun, computePayslip, createRun, executeRun, findPack, loadPayslips, MAX_IMPORT_ROWS, Run, runState, simulateRun,
} from '../../actors/payroll/index.ts';

const N = Number(process.env.PAYROLL_BENCH_PAYEES ?? 100_000);
const STATES = ['NG-LA', 'NG-FC', 'NG-OG', 'NG-RI', 'NG-KD', 'NG-KN', 'NG-OY', 'NG-EN'];
const PFAS = ['pfa_stanbic', 'pfa_arm', 'pfa_leadway', 'pfa_premium', 'pfa_fidelity'];

const row = (i: number) => payeeRow(i, STATES, PFAS);

export default async function payrollBench(): Promise<BenchResult[]> {
  let peak = process.memoryUsage().rss;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  const clock = new ManualClock('2026-01-28T09:00:00Z');
  const stores = createMemoryStores({ now: () => clock.now() });
  const platform = await createPlatform({ areas: [ledger, payroll], stores, clock });
  const org = 'org_bench_payroll';
  const maker: Caller = { org, livemode: false, principal: 'bench_maker' };
  const checker: Caller = { org, livemode: false, principal: 'bench_checker' };
  const results: BenchResult[] = [];
  try {
    let t = performance.now();
    await importPayees(platform, maker, N, row);
    const importS = (performance.now() - t) / 1000;
    await platform.system.settle(); // let the reaction dispatcher pass the import's events first
    results.push(absolute('import (set-up: pay profiles + roster entries)', round(importS, 2), 's', undefined, false, `${N.toLocaleString('en-US')} payees in imports of ${MAX_IMPORT_ROWS}`));

    const run = (await createRun(platform, maker, { period: '2026-01', run_type: 'regular' })) as { id: string };
    t = performance.now();
    await calculateRun(platform, maker, run.id);
    const calcS = (performance.now() - t) / 1000;
    results.push(absolute('calculate (gather, engine, record)', round(N / calcS, 0), 'payslips/s', undefined, true, `${round(calcS, 2)} s`));

    // Baseline: the bare engine loop over the same inputs, same pack.
    const s = await runState(platform, maker, run.id);
    const draft = findPack('2026.09.1')!;
    t = performance.now();
    for (const r of await loadPayslips(platform.system, s)) computePayslip(draft, s.period, r.payee, s.employer!, r.ytd_before);
    const engineRate = N / ((performance.now() - t) / 1000);

    t = performance.now();
    const sim = (await simulateRun(platform, maker, run.id, '2026.09.1')) as { wrote_records: boolean; difference_count: number };
    const simS = (performance.now() - t) / 1000;
    results.push(compared('simulate 100k (draft pack, full traces, per-payee diff)', round(N / simS, 0), 'payslips/s', 'bare engine loop', round(engineRate, 0), undefined, `${round(simS, 2)} s; ${sim.difference_count} payees differ`));
    results.push(absolute('simulate throughput target', round(N / simS, 0), 'payslips/s', 50_000, true));

    await platform.system.ask(Run, run.id, 'submit', {}, maker);
    await approveRun(platform, checker, run.id);
    await platform.system.settle();
    t = performance.now();
    await executeRun(platform, maker, run.id);
    await platform.system.settle(); // the ledger posting is a reaction: count it in
    const execS = (performance.now() - t) / 1000;
    results.push(absolute('execute (payslips final, posting settled, instruction set, signed payout)', round(execS, 2), 's', 10, false));

    const after = await runState(platform, maker, run.id);
    const balances = await balancesByCode(platform.system, org);
    let sum = 0;
    for (const v of balances.values()) sum += v;
    if (sum !== 0 || balances.get('expense.salaries') !== after.totals.gross) throw new Error('bench: ledger does not reconcile with the run');
    if (after.instruction_set!.total !== after.totals.total_deductions + after.totals.employer_contributions) throw new Error('bench: instruction set does not reconcile');
    peak = Math.max(peak, process.memoryUsage().rss);
    results.push(absolute('peak memory (RSS)', round(peak / 2 ** 20, 0), 'MiB', undefined, false, `heap now ${round(process.memoryUsage().heapUsed / 2 ** 20, 0)} MiB`));
  } finally {
    clearInterval(sampler);
    await stopPlatform(platform);
  }
  return results;
}
