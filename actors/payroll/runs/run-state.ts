/** A run as the payroll operations read it (spec 4.8), and the rule pack it pinned (spec 9). */
import { ApiError, idOf, type Caller, type Platform } from '../../../kernel/index.ts';
import { resolvePack, type RulePack } from '../engine/index.ts';
import { RUN_PREFIX } from '../payroll-ids.ts';
import { Run, type RunState } from './run.ts';

export async function runState(p: Platform, c: Caller, runId: string): Promise<RunState> {
  return p.system.state<RunState>(Run, idOf(runId, RUN_PREFIX, 'payroll run'), c.org);
}

export function pinnedPack(s: RunState): RulePack {
  const pack = resolvePack(s.rule_pack);
  if (!pack) throw new ApiError('unavailable', `The pinned rule pack ${s.rule_pack.version} (${s.rule_pack.content_hash}) is not available on this node; retry (another node may have it).`, { retryable: true });
  return pack;
}
