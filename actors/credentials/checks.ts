/**
 * What the credentials operations check alike before they ask an actor (spec 4.4, 7): a record
 * that may not exist yet (an Idempotency-Key create executed again, a named claim or wallet), a
 * refusal naming every failing field at once, and the consent a query or a disclosure rests on
 * (spec 1 rule 7). Not one actor's operations: each operations file (verifications.ts, claims.ts,
 * wallets.ts, disclosures.ts, appeals.ts, ...) uses them.
 */
import { ApiError, type Platform, type ValidationEntry, validationError } from '../../kernel/index.ts';
import { consentToken, type ConsentFacts } from '../identity/index.ts';

/** A 400 naming every failing field, when there is one. */
export function refuseIf(entries: ValidationEntry[], count = 1): void {
  if (entries.length) throw validationError(entries, count);
}

/** The state of a record, or undefined when it does not exist (a record of another organisation refuses). */
export async function existing<S>(platform: Platform, def: Parameters<Platform['system']['state']>[0], id: string, org: string): Promise<S | undefined> {
  try {
    return await platform.system.state<S>(def, id, org);
  } catch (e) {
    if (e instanceof ApiError && e.code === 'not_found') return undefined;
    throw e;
  }
}

/**
 * Spec 1 rule 7, 7 (422 consent_token_missing): an active consent token of this organisation and
 * subject, for a purpose the pack lists as covering this use. CheckKind names no credential check,
 * so the purpose is what binds it (docs/gaps.md#credentials).
 */
export async function requireConsent(platform: Platform, org: string, subjectRef: string, tokenId: string | undefined, purposes: readonly string[], what: string): Promise<ConsentFacts> {
  const missing = (why: string) => new ApiError('consent_token_missing', `No verifiable consent token for ${what}: ${why}. It cannot be attested away.`);
  if (tokenId === undefined) throw missing('consent_token_id is required');
  const t = await consentToken(platform, org, tokenId);
  if (!t) throw missing(`no consent token ${tokenId.slice(0, 80)} in this organisation`);
  if (t.status !== 'active') throw missing(`consent token ${t.id} is ${t.status}`);
  if (t.subject_ref !== subjectRef) throw missing(`consent token ${t.id} was given by another subject`);
  if (!purposes.includes(t.purpose)) throw missing(`consent token ${t.id} is for ${t.purpose}, which covers no ${what} (purposes that do: ${purposes.join(', ')})`);
  return t;
}
