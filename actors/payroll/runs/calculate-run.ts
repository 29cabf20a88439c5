/** Calculating a run (spec 2.9, 4.8): every payee's payslip with the pinned pack, written in batches, then the run records them. */
import { conflict, type Caller, type Platform } from '../../../kernel/index.ts';
import { totalsOf } from '../payslips/record.ts';
import { correctedPayslips, writeBatches } from '../payslips/storage.ts';
import { computeAll } from './compute-payslips.ts';
import { recoveryFindings } from './findings.ts';
import { employerInputs, employerSettings, gatherRun } from './gather.ts';
import { pinnedPack, runState } from './run-state.ts';
import { Run, type NewFinding, type RunSettings } from './run.ts';
import { ngn } from '../naira.ts';

export async function calculateRun(p: Platform, c: Caller, runId: string): Promise<unknown> {
  const s = await runState(p, c, runId);
  if (s.status !== 'draft' && s.status !== 'simulated') throw conflict(`Run ${s.id} is ${s.status}; only a draft or simulated run can be calculated.`);
  const pack = pinnedPack(s);
  const corrected = await correctedPayslips(p.system, s);
  const gathered = await gatherRun(p.system, s, corrected);
  const configured = await employerSettings(p.system, c.org);
  const employer = employerInputs(configured, gathered.payees.length);
  const settings: RunSettings = {
    headcount: configured.headcount, headcount_used: employer.headcount, turnover_50m_or_more: configured.turnover_50m_or_more,
    state: configured.state, maker_checker_threshold: configured.maker_checker_threshold, assumed: !configured.configured,
  };
  const { records, findings } = computeAll(pack, s.period, employer, gathered.payees, gathered.ytd, (rs) => [...gathered.findings, ...recoveryFindings(rs, corrected), ...assumedSettings(settings)]);
  const batches = await writeBatches(p.system, runId, records, c);
  return p.system.ask(Run, runId, 'calculate', { employer, settings, totals: totalsOf(records), batches, findings }, c);
}

/** A run on settings nobody gave says so, naming the values assumed (docs/gaps.md#payroll). */
export function assumedSettings(s: RunSettings): NewFinding[] {
  if (!s.assumed) return [];
  const threshold = ngn(s.maker_checker_threshold);
  return [{
    severity: 'p1', code: 'employer_settings_assumed', payee_ref: null, n: null,
    detail: `The organisation's payroll settings were never given (PATCH /v1/payroll/employer_settings); this run assumed headcount ${s.headcount_used} (the payees counted), turnover_50m_or_more false, state null and a maker-checker threshold of ${threshold.amount} kobo (every run needs a second person).`,
  }];
}
