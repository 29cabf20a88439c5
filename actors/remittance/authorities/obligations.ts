/**
 * Operations on obligations (spec 4.9): recording the lines of an accepted instruction set (the
 * only way a set commits anything, spec 3), a manual obligation line (POST obligations), and a
 * remitted obligation when a leg's receipt is vaulted (the remit part calls obligationRemitted).
 */
import { ApiError, type Caller, type Platform } from '../../../kernel/index.ts';
import { authorityById, type Levy } from './authorities.ts';
import { Obligation, obligationIdOf, obligationView, type AddLine, type ObligationView } from './obligation.ts';

const SYSTEM = 'system';

/** Adds a line to the obligation of (authority, levy, period), creating it; a line already on it is not added twice. */
export async function addObligationLine(platform: Platform, caller: Caller, line: AddLine, dedupeId?: string): Promise<ObligationView> {
  const id = obligationIdOf(caller.org, line.authority_id, line.levy, line.period);
  return await platform.system.ask(Obligation, id, 'add_line', line, { org: caller.org, requestId: caller.requestId, principal: caller.principal ?? SYSTEM, dedupeId });
}

/** Moves the obligation of (authority, levy, period) to remitted (a leg's receipt was vaulted). */
export async function obligationRemitted(platform: Platform, caller: Caller, f: { authority_id: string; levy: Levy; period: string; leg_id: string; receipt_id: string }): Promise<ObligationView> {
  if (!authorityById(f.authority_id)) throw new ApiError('not_found', `No remittance authority with id ${f.authority_id}.`);
  const id = obligationIdOf(caller.org, f.authority_id, f.levy, f.period);
  return await platform.system.ask(Obligation, id, 'remit', { leg_id: f.leg_id, receipt_id: f.receipt_id }, { org: caller.org, requestId: caller.requestId, principal: caller.principal ?? SYSTEM, dedupeId: `remit:${f.receipt_id}` });
}

/** Every obligation of the caller's organisation and realm for a period (reconciliation, audit export). */
export async function obligationsFor(platform: Platform, caller: Caller, period: string): Promise<ObligationView[]> {
  const out: ObligationView[] = [];
  for await (const ids of platform.system.eachIds(Obligation, caller.org, `period:${period}`, 'asc')) {
    const states = await Promise.all(ids.map((id) => platform.system.state(Obligation, id, caller.org)));
    for (const s of states) if (s.livemode === caller.livemode) out.push(obligationView(s));
  }
  return out;
}
