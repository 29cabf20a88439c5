/**
 * Simulating a run (spec 2.9, 4.8 POST .../simulate) with a draft rule pack or the pinned one:
 * nothing is written; the totals and a per-payee difference against the pinned pack.
 */
import { ApiError, conflict, type Caller, fieldError, type Platform } from '../../../kernel/index.ts';
import { computePayslip, findPack, type PayslipComputation, type RulePack } from '../engine/index.ts';
import { payslipId } from '../payroll-ids.ts';
import { differences, optionsOf, sameAmounts, totalsOf, type PayslipRecord, type RunTotalsData } from '../payslips/record.ts';
import { correctedPayslips, loadPayslips } from '../payslips/storage.ts';
import { computeAll } from './compute-payslips.ts';
import { employerInputs, employerSettings, gatherRun } from './gather.ts';
import { pinnedPack, runState } from './run-state.ts';
import { totalsView, type RunState } from './run.ts';

export async function simulateRun(p: Platform, c: Caller, runId: string, draftVersion: string | undefined): Promise<unknown> {
  const s = await runState(p, c, runId);
  if (s.status === 'cancelled') throw conflict(`Run ${s.id} is cancelled; it cannot be simulated.`);
  const pinned = pinnedPack(s);
  let pack = pinned;
  if (draftVersion !== undefined) {
    const found = findPack(draftVersion);
    if (!found) throw fieldError('/draft_rule_pack_version', 'unknown_rule_pack', `No rule pack with version ${draftVersion}.`);
    pack = found;
  }
  // Baseline: the recorded payslips when the run is calculated, else a computation now (pinned pack).
  let baseline: PayslipRecord[];
  let employer = s.employer;
  if (s.status === 'draft') {
    const gathered = await gatherRun(p.system, s, await correctedPayslips(p.system, s));
    employer = employerInputs(await employerSettings(p.system, c.org), gathered.payees.length);
    const pinnedRun = computeAll(pinned, s.period, employer, gathered.payees, gathered.ytd);
    baseline = pinnedRun.records;
    if (pack === pinned) return simulation(s, pack, totalsOf(baseline), [], 0);
  } else baseline = await loadPayslips(p.system, s);
  // Nothing is retained per payee but the totals and the first DIFF_LIMIT differences, so a
  // 100,000-payee simulation stays in the young generation of the heap.
  const totals = { gross: 0, net: 0, total_deductions: 0, employer_contributions: 0, payslip_count: 0 };
  const diffs: Array<{ payslip_id: string | null; payee_ref: string; differences: ReturnType<typeof differences> }> = [];
  let differing = 0;
  let refusedPayees = 0;
  for (const r of baseline) {
    let comp: PayslipComputation;
    try {
      comp = computePayslip(pack, s.period, r.payee, employer!, r.ytd_before, optionsOf(r));
    } catch (e) {
      if (e instanceof ApiError) {
        refusedPayees++;
        continue;
      }
      throw e;
    }
    totals.gross += comp.gross;
    totals.net += comp.net;
    totals.total_deductions += comp.total_deductions;
    totals.employer_contributions += comp.employer_contributions;
    totals.payslip_count++;
    if (pack !== pinned && !sameAmounts(r, comp)) {
      differing++;
      if (diffs.length < DIFF_LIMIT) diffs.push({ payslip_id: s.status === 'draft' ? null : payslipId(s.id, r.n), payee_ref: r.payee_ref, differences: differences(r, comp) });
    }
  }
  return simulation(s, pack, totals, diffs, differing, refusedPayees);
}

const DIFF_LIMIT = 100;

function simulation(s: RunState, pack: RulePack, totals: RunTotalsData, diffs: Array<{ payslip_id: string | null; payee_ref: string; differences: unknown[] }>, differing: number, refused = 0) {
  return {
    object: 'run_simulation' as const,
    run_id: s.id,
    totals: totalsView(totals),
    wrote_records: false as const,
    rule_pack: pack.ref,
    pinned_rule_pack: s.rule_pack,
    livemode: s.livemode,
    mocked: false,
    payees_refused: refused,
    difference_count: differing,
    differences: diffs,
  };
}
