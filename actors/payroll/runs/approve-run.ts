/**
 * Approving a run (spec 3 Payroll run, 8): the organisation's maker-checker threshold and the
 * person behind the approving credential go with the command; maker-checker compares people, not
 * credentials (a second key made by the preparer is still the preparer).
 */
import type { Caller, Platform } from '../../../kernel/index.ts';
import { personBehind } from '../../accounts/index.ts';
import { employerSettings } from './gather.ts';
import { runState } from './run-state.ts';
import { Run } from './run.ts';

export async function approveRun(p: Platform, c: Caller, runId: string): Promise<unknown> {
  await runState(p, c, runId);
  const settings = await employerSettings(p.system, c.org);
  return p.system.ask(Run, runId, 'approve', { threshold: settings.maker_checker_threshold, person: await personBehind(p, c) }, c);
}

/** Submitting a run: the caller becomes its preparer, and the person behind the caller's credential is recorded. */
export async function submitRun(p: Platform, c: Caller, runId: string): Promise<unknown> {
  await runState(p, c, runId);
  return p.system.ask(Run, runId, 'submit', { person: await personBehind(p, c) }, c);
}
