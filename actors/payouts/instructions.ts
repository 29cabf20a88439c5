/**
 * The payout instruction operations the routes call (spec 2.11, 4.10): submitting a signed
 * instruction (intake.ts judges it; the envelope is kept as evidence whether quarantined or not and
 * the verdict goes to the instruction actor), the reads of what an instruction recorded (its route
 * plan, its latest funding check), and failing one that has not been executed. Planning, funding
 * and resolving are route-plans.ts, funding.ts and resolution.ts.
 */
import { ApiError, type Caller, isApiError, keyValue, type Platform } from '../../kernel/index.ts';
import type { SignedPayoutInstruction } from '../payroll/index.ts';
import { documentKey, judge } from './intake.ts';
import { fundingCheckView, PayoutInstruction } from './instruction.ts';
import { RoutePlan } from './route-plan.ts';
import { payoutsService } from './service.ts';

const instructionState = (platform: Platform, org: string, id: string) => platform.system.state(PayoutInstruction, id, org);

/**
 * POST /v1/payouts/instructions, and the run link and remittance legs submitting theirs. The same
 * id again answers the instruction already made (Idempotency-Key, a reaction repeated).
 */
export async function submitInstruction(platform: Platform, caller: Caller, env: SignedPayoutInstruction, id: string, dedupeId: string | undefined): Promise<unknown> {
  const { system } = platform;
  try {
    return await system.get(PayoutInstruction, id, caller.org);
  } catch (e) {
    if (!isApiError(e) || e.code !== 'not_found') throw e;
  }
  const svc = payoutsService(platform);
  const { submission, document } = await judge(platform, caller.org, caller.livemode, env, id);
  await keyValue(platform).set(documentKey(id), env); // kept as evidence, quarantined or not
  if (document && submission.quarantine_reason === null) svc.documents.remember(id, document);
  return system.ask(PayoutInstruction, id, 'submit', { ...submission, tally_interval_ms: svc.timing.tallyInterval }, { ...caller, dedupeId });
}

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
