/** Resolving a finding of a run with a reason (spec 2.9, 4.8): an open p0 finding blocks approval. */
import type { Caller, Platform } from '../../../kernel/index.ts';
import { Run } from './run.ts';

export function resolveFinding(p: Platform, c: Caller, runId: string, findingId: string, reason: string): Promise<unknown> {
  return p.system.ask(Run, runId, 'resolve_finding', { finding_id: findingId, reason }, c);
}
