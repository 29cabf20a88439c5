/**
 * The leg operations the routes call (spec 3 "Remittance instruction set", 4.9): a leg is read
 * under its remittance, so another remittance's leg is not found there; a retry pays a failed leg
 * again and never twice (leg.ts).
 */
import { ApiError, type Caller, listPage, type ListEnvelope, type Platform } from '../../../kernel/index.ts';
import { Leg, type LegState } from './leg.ts';
import { Remittance } from './remittance.ts';

/** A leg named under its remittance: another remittance's leg is not found here. */
async function legOf(p: Platform, org: string, remittanceId: string, legId: string): Promise<LegState> {
  const s = await p.system.state<LegState>(Leg, legId, org);
  if (s.remittance_id !== remittanceId) throw new ApiError('not_found', `Remittance ${remittanceId} has no leg ${s.id}.`);
  return s;
}

/** GET .../legs: the remittance is read first, so an unknown remittance answers not_found, not an empty list. */
export async function listLegs(p: Platform, org: string, remittanceId: string, query: { status?: string; limit?: number; starting_after?: string }): Promise<ListEnvelope<unknown>> {
  const s = await p.system.state<{ id: string }>(Remittance, remittanceId, org);
  return listPage(p.system, Leg, org, query.status ? `remittance:${s.id}:status:${query.status}` : `remittance:${s.id}`, query, 'asc');
}

export async function getLeg(p: Platform, org: string, remittanceId: string, legId: string): Promise<unknown> {
  return Leg.view(await legOf(p, org, remittanceId, legId));
}

export async function retryLeg(p: Platform, c: Caller & { dedupeId?: string }, remittanceId: string, legId: string): Promise<unknown> {
  return p.system.ask(Leg, (await legOf(p, c.org, remittanceId, legId)).id, 'retry', {}, c);
}
