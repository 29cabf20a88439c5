/**
 * The leg operations (spec 3 "Remittance instruction set", 4.9): a leg is read under its
 * remittance, so another remittance's leg is not found there; a retry pays a failed leg again and
 * never twice (leg.ts). Paying a leg's attempt is the remit service's step (service.ts).
 */
import { ApiError, type Caller, derivedId, isApiError, listPage, type ListEnvelope, type Platform } from '../../../kernel/index.ts';
import { payouts } from '../../payouts/index.ts';
import { ROUTE_PLAN_PREFIX } from './ids.ts';
import { signedLegInstruction } from './leg-instruction.ts';
import { Leg, type LegState } from './leg.ts';
import { Remittance } from './remittance.ts';

/** A leg named under its remittance: another remittance's leg is not found here. */
async function legOf(p: Platform, org: string, remittanceId: string, legId: string): Promise<LegState> {
  const s = await p.system.state(Leg, legId, org);
  if (s.remittance_id !== remittanceId) throw new ApiError('not_found', `Remittance ${remittanceId} has no leg ${s.id}.`);
  return s;
}

/** GET .../legs: the remittance is read first, so an unknown remittance answers not_found, not an empty list. */
export async function listLegs(p: Platform, org: string, remittanceId: string, query: { status?: string; limit?: number; starting_after?: string }): Promise<ListEnvelope<unknown>> {
  const s = await p.system.state(Remittance, remittanceId, org);
  return listPage(p.system, Leg, org, query.status ? `remittance:${s.id}:status:${query.status}` : `remittance:${s.id}`, query, 'asc');
}

export async function getLeg(p: Platform, org: string, remittanceId: string, legId: string): Promise<unknown> {
  return Leg.view(await legOf(p, org, remittanceId, legId));
}

export async function retryLeg(p: Platform, c: Caller & { dedupeId?: string }, remittanceId: string, legId: string): Promise<unknown> {
  return p.system.ask(Leg, (await legOf(p, c.org, remittanceId, legId)).id, 'retry', {}, c);
}

/**
 * Pays the leg's current attempt through the payouts module (spec 1 rule 10, 2.11): signs the
 * attempt's instruction with remittance's key and submits, plans and executes it; the leg hears
 * the outcome by reaction to payouts' instruction events (leg.ts), not from here.
 */
export async function payLeg(p: Platform, org: string, legId: string): Promise<void> {
  const { system } = p;
  const leg = await system.state(Leg, legId, org);
  const attempt = leg.attempts[leg.attempts.length - 1];
  if (leg.status !== 'pending' || !attempt) return;
  const caller: Caller = { org, livemode: leg.livemode, principal: 'system' };
  const svc = payouts(p);
  // Neither command carries a dedupe id: each is guarded by the leg's status and attempt, and a resumed attempt may need both again.
  const fail = (reason: string, final: boolean) => system.ask(Leg, legId, 'attempt_failed', { attempt: attempt.n, reason, final }, caller);
  const env = await signedLegInstruction(p, leg, attempt.n);
  const view = (await svc.submit(caller, env, attempt.instruction_id, `remit_leg:${attempt.instruction_id}`)) as { status: string; quarantine_reason: string | null; route_plan_id: string | null; failure_reason?: string | null };
  if (view.status === 'quarantined') return void (await fail(`The payouts module quarantined instruction ${attempt.instruction_id} (${view.quarantine_reason}).`, true));
  if (view.status === 'failed') return void (await fail(view.failure_reason ?? `Instruction ${attempt.instruction_id} failed.`, true));
  if (view.status === 'settled' || view.status === 'partially_settled' || view.status === 'executing') {
    // Already under way or done: its final event reaches the leg by reaction.
    await system.ask(Leg, legId, 'payment_started', { attempt: attempt.n }, caller);
    return;
  }
  try {
    if (!view.route_plan_id) await svc.makePlan(caller, attempt.instruction_id, {}, derivedId(ROUTE_PLAN_PREFIX, [attempt.instruction_id, 'plan']));
    // Held for a shortfall before: a fresh funding check moves it back to planned when the account now suffices.
    if (view.status === 'funding_pending') await svc.fundingCheck(caller, attempt.instruction_id);
    await svc.execute(caller, attempt.instruction_id);
  } catch (e) {
    // Not executed (a funding shortfall, no rail for the account): the instruction is not final, so a retry resumes it.
    if (isApiError(e) && e.status < 500) return void (await fail(e.message, false));
    throw e;
  }
  await system.ask(Leg, legId, 'payment_started', { attempt: attempt.n }, caller);
}
