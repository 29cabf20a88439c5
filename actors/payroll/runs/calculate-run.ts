/** Calculating a run (spec 2.9, 4.8): every payee's payslip with the pinned pack, written in batches, then the run records them. */
import { conflict, type Caller, type Platform } from '../../../kernel/index.ts';
import { totalsOf } from '../payslips/record.ts';
import { correctedPayslips, writeBatches } from '../payslips/storage.ts';
import { computeAll } from './compute-payslips.ts';
import { recoveryFindings, runFindings } from './findings.ts';
import { employerInputs, employerSettings, gatherPayees, paidInPeriod, payeeScope, yearToDate } from './gather.ts';
import { pinnedPack, runState } from './run-state.ts';
import { Run } from './run.ts';

export async function calculateRun(p: Platform, c: Caller, runId: string): Promise<unknown> {
  const s = await runState(p, c, runId);
  if (s.status !== 'draft' && s.status !== 'simulated') throw conflict(`Run ${s.id} is ${s.status}; only a draft or simulated run can be calculated.`);
  const pack = pinnedPack(s);
  const corrected = await correctedPayslips(p.system, s);
  const payees = await gatherPayees(p.system, c.org, s.period, payeeScope(s, corrected));
  const employer = employerInputs(await employerSettings(p.system, c.org), payees.length);
  const ytd = await yearToDate(p.system, c.org, s.period);
  const paid = await paidInPeriod(p.system, c.org, s.period, [s.id, ...(s.corrects_run_id ? [s.corrects_run_id] : [])]);
  const { records, findings } = computeAll(pack, s.period, employer, payees, ytd, (rs) => [...runFindings(s.run_type, rs, paid), ...recoveryFindings(rs, corrected)]);
  const batches = await writeBatches(p.system, runId, records, c);
  return p.system.ask(Run, runId, 'calculate', { employer, totals: totalsOf(records), batches, findings }, c);
}
