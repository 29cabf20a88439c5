/** Approving a run (spec 3 Payroll run, 8): the organisation's maker-checker threshold goes with the command. */
import type { Caller, Platform } from '../../../kernel/index.ts';
import { employerSettings } from './gather.ts';
import { runState } from './run-state.ts';
import { Run } from './run.ts';

export async function approveRun(p: Platform, c: Caller, runId: string): Promise<unknown> {
  await runState(p, c, runId);
  const settings = await employerSettings(p.system, c.org);
  return p.system.ask(Run, runId, 'approve', { threshold: settings.maker_checker_threshold }, c);
}
