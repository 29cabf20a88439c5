/**
 * Remittance intake bench (spec 2.10, 3 "Remittance instruction set"): from an executed
 * 100,000-payee payroll run (built as bench/scenarios/payroll.ts builds it, on the embedded stores in
 * one process) to an accepted instruction set with its validation report: the set made by reaction
 * to the run's execution, every line validated against the authority and calendar data and the
 * run's totals, accepted, and its lines committed as obligations. Target: <= 5 s embedded.
 *
 * BENCH_ROUNDS rounds (default 3), one run a round (periods 2026-01, 2026-02, ...): the figure is
 * the median of the rounds and the note lists every round. Beside it, in the same run: the cost per
 * instruction-set line and per payee of the run, next to the payroll engine's per-payslip cost
 * (the bare engine loop over the same round's payees and pack).
 * REMITTANCE_BENCH_PAYEES overrides the payee count for a quick run.
 */
import { absolute, compared, round, type BenchResult } from '../report.ts';
import { importPayees, payeeRow } from '../payees.ts';
import { ManualClock } from '../../runtime/index.ts';
import { createPlatform, stopPlatform, type Caller } from '../../kernel/index.ts';
import { createMemoryStores } from '../../stores/index.ts';
import { approveRun, area as payroll, calculateRun, computePayslip, createRun, executeRun, findPack, loadPayslips, Run, runState } from '../../actors/payroll/index.ts';
import { area as remittance, authorities, INSTRUCTION_SET_KIND, runSetIdOf, type IngestedInstructionSetView } from '../../actors/remittance/index.ts';

const N = Number(process.env.REMITTANCE_BENCH_PAYEES ?? 100_000);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
const STATES = authorities('state_irs').map((a) => a.code);
const PFAS = authorities('pension_administrator').map((a) => a.code);

const row = (i: number) => payeeRow(i, STATES, PFAS);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const spread = (xs: number[], digits = 2) => `rounds ${xs.map((x) => round(x, digits)).join(', ')}`;

export default async function remittanceBench(): Promise<BenchResult[]> {
  const clock = new ManualClock('2026-01-28T09:00:00Z');
  const stores = createMemoryStores({ now: () => clock.now() });
  const platform = await createPlatform({ areas: [payroll, remittance], stores, clock });
  const org = 'org_bench_remittance';
  const maker: Caller = { org, livemode: false, principal: 'bench_maker' };
  const checker: Caller = { org, livemode: false, principal: 'bench_checker' };
  const results: BenchResult[] = [];
  const intakeS: number[] = [];
  const perLineUs: number[] = [];
  const perPayeeUs: number[] = [];
  const enginePerSlipUs: number[] = [];
  let lines = 0;
  let reportEntries = 0;
  try {
    let t = performance.now();
    await importPayees(platform, maker, N, row);
    await platform.system.settle();
    results.push(absolute('import (set-up: pay profiles + roster entries)', round((performance.now() - t) / 1000, 2), 's', undefined, false, `${N.toLocaleString('en-US')} payees over ${STATES.length} States and ${PFAS.length} PFAs`));

    for (let r = 0; r < ROUNDS; r++) {
      const period = `2026-${String(r + 1).padStart(2, '0')}`;
      process.stderr.write(`  round ${r + 1}/${ROUNDS}: payroll run ${period} (${N.toLocaleString('en-US')} payees)\n`);
      const run = (await createRun(platform, maker, { period, run_type: 'regular', pay_date: `${period}-27` })) as { id: string };
      await calculateRun(platform, maker, run.id);
      await platform.system.ask(Run, run.id, 'submit', {}, maker);
      await approveRun(platform, checker, run.id);
      await platform.system.settle();

      // The payroll engine's per-payslip cost in this round: the bare loop over the run's payees and pack.
      const s = await runState(platform, maker, run.id);
      const pack = findPack(s.rule_pack.version)!;
      const slips = await loadPayslips(platform.system, s);
      t = performance.now();
      for (const p of slips) computePayslip(pack, s.period, p.payee, s.employer!, p.ytd_before);
      enginePerSlipUs.push(((performance.now() - t) * 1000) / slips.length);

      await executeRun(platform, maker, run.id);
      // From here: the executed run to an accepted set with its validation report, its lines committed.
      t = performance.now();
      await platform.system.settle();
      const setId = runSetIdOf(org, run.id);
      const pending = (await platform.system.get(INSTRUCTION_SET_KIND, setId, org)) as IngestedInstructionSetView;
      if (pending.status !== 'pending_acceptance') throw new Error(`bench: set ${setId} is ${pending.status}`);
      if (pending.validation_report.error_count !== 0) throw new Error(`bench: set has ${pending.validation_report.error_count} failing lines`);
      const accepted = (await platform.system.ask(INSTRUCTION_SET_KIND, setId, 'accept', {}, maker)) as IngestedInstructionSetView;
      await platform.system.settle();
      const done = (await platform.system.get(INSTRUCTION_SET_KIND, setId, org)) as IngestedInstructionSetView;
      const secs = (performance.now() - t) / 1000;
      if (accepted.status !== 'accepted' || !done.obligations_recorded) throw new Error('bench: the set was not accepted and committed');
      const i = done.instructions;
      const total = [...i.paye, ...i.pension, ...i.levies].reduce((a, x) => a + x.amount.amount, 0);
      if (total !== s.totals.total_deductions + s.totals.employer_contributions || total !== i.totals.total.amount) throw new Error('bench: the set does not reconcile with the run');
      if (i.paye.length !== STATES.length) throw new Error(`bench: ${i.paye.length} PAYE lines for ${STATES.length} States`);
      lines = i.paye.length + i.pension.length + i.levies.length;
      reportEntries = done.validation_report.entry_count;
      intakeS.push(secs);
      perLineUs.push((secs * 1e6) / lines);
      perPayeeUs.push((secs * 1e6) / N);
    }

    const engine = median(enginePerSlipUs);
    results.push(absolute('executed run -> accepted instruction set with validation report (embedded)', round(median(intakeS), 3), 's', 5, false,
      `${spread(intakeS, 3)}; ${lines} lines (${STATES.length} PAYE, ${PFAS.length} pension, 4 levies), report of ${reportEntries} entries; obligations committed; median of ${ROUNDS}`));
    results.push(compared('cost per instruction-set line', round(median(perLineUs), 1), '\u00b5s', 'payroll engine per payslip', round(engine, 2), undefined, `${spread(perLineUs, 1)}; engine ${spread(enginePerSlipUs, 2)}`));
    results.push(compared('cost per payee of the run (intake / payees)', round(median(perPayeeUs), 3), '\u00b5s', 'payroll engine per payslip', round(engine, 2), undefined, `${spread(perPayeeUs, 3)}`));
    results.push(absolute('load', round((await import('node:os')).loadavg()[0], 2), '1-min load average', undefined, false, `${(await import('node:os')).cpus().length} cores, shared`));
  } finally {
    await stopPlatform(platform);
  }
  return results;
}
