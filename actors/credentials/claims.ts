/**
 * Competence claim operations the routes call that need the claim alone (spec 2.5 CompetenceClaim,
 * 3 "Competence claim decay", 4.4). Making, re-attesting and superseding a claim check the policy
 * pack and other records and are CredentialsService's (service.ts); the claim's rules are claim.ts.
 */
import type { Caller, Platform } from '../../kernel/index.ts';
import { Claim } from './claim.ts';

/** A person lapses a claim before its expiry; it stays, shown lapsed and downgraded (claim.lapsed, spec 6). */
export async function lapseClaim(platform: Platform, caller: Caller, id: string, body: { reason: string }): Promise<unknown> {
  return platform.system.ask(Claim, id, 'lapse', body, caller);
}
