/**
 * The payout instruction operations the routes call that are no step of their own (spec 2.11,
 * 4.10): the reads of what an instruction recorded (its route plan, its latest funding check) and
 * failing one that has not been executed. Submitting, funding, planning and resolving are
 * submission.ts, funding.ts, route-plans.ts and resolution.ts.
 */
import { ApiError, type Caller, type Platform } from '../../kernel/index.ts';
import { fundingCheckView, type InstructionState, PayoutInstruction } from './instruction.ts';
import { RoutePlan } from './route-plan.ts';

const instructionState = (platform: Platform, org: string, id: string) => platform.system.state<InstructionState>(PayoutInstruction, id, org);

/** GET .../instructions/{instruction_id}/route_plan: 404 until planned. */
export async function routePlanOf(platform: Platform, org: string, id: string): Promise<unknown> {
  const s = await instructionState(platform, org, id);
  if (!s.route_plan_id) throw new ApiError('not_found', `Payout instruction ${s.id} has no route plan yet (route_plan_id is null).`);
  return platform.system.get(RoutePlan, s.route_plan_id, org);
}

/** GET .../instructions/{instruction_id}/funding_check: 404 before the first check. */
export async function latestFundingCheck(platform: Platform, org: string, id: string): Promise<unknown> {
  const s = await instructionState(platform, org, id);
  if (!s.funding_check) throw new ApiError('not_found', `Payout instruction ${s.id} has no funding check yet.`);
  return fundingCheckView(s, s.funding_check);
}

/** POST .../instructions/{instruction_id}/fail: refused once executing, since a payout sent is never assumed failed. */
export function failInstruction(platform: Platform, caller: Caller & { dedupeId?: string }, id: string, body: { reason: string }): Promise<unknown> {
  return platform.system.ask(PayoutInstruction, id, 'fail', body, caller);
}
