/** Cancelling a run that has not started executing (spec 4.8; body and answer docs/gaps.md#payroll). */
import type { Caller, Platform } from '../../../kernel/index.ts';
import { Run } from './run.ts';

export function cancelRun(p: Platform, c: Caller, runId: string, reason: string | null): Promise<unknown> {
  return p.system.ask(Run, runId, 'cancel', { reason }, c);
}
