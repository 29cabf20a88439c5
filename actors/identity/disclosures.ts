/**
 * The disclosure operations (spec 4.3 disclosures; rule 6: decisions, never raw personal data;
 * rule 7): disclosing identity's decision about a subject to a recipient rests on an active consent
 * token of the subject for the purpose (422 consent_token_missing otherwise) and records the
 * decision as it stands; revoking one; and the reconciliation of active disclosures against their
 * tokens and passports.
 */
import type { Caller, Platform } from '../../kernel/index.ts';
import { consentActive } from './consent-token.ts';
import { readToken, sharingConsent, type SharingRequest } from './consent-tokens.ts';
import { Disclosure } from './disclosure.ts';
import { isLive } from './passport.ts';
import { passportOf } from './passports.ts';

export async function disclose(platform: Platform, caller: Caller, id: string, body: SharingRequest & { recipient: string }, dedupeId: string | undefined): Promise<unknown> {
  const { token, ends } = await sharingConsent(platform, caller, body);
  const p = await passportOf(platform, caller.org, body.subject_ref);
  const disclosed = { passport_id: p?.issued ? p.id : null, passport_live: p ? isLive(p) : false, assurance_level: p?.issued ? p.assurance : null };
  return platform.system.ask(Disclosure, id, 'make', { subject_ref: body.subject_ref, consent_token_id: token.id, recipient: body.recipient, purpose: body.purpose, disclosed, expires_at: ends, livemode: caller.livemode }, { ...caller, dedupeId });
}

export function revokeDisclosure(platform: Platform, caller: Caller, id: string, body: { reason?: string }, dedupeId: string | undefined): Promise<unknown> {
  return platform.system.ask(Disclosure, id, 'revoke', body, { ...caller, dedupeId });
}

/** Active disclosures that no longer rest on an active consent token, or whose passport changed since. */
export async function reconcileDisclosures(platform: Platform, caller: Caller): Promise<unknown> {
  const { system } = platform;
  const out: unknown[] = [];
  let checked = 0;
  for await (const ids of system.eachIds(Disclosure, caller.org, 'status:active')) {
    for (const id of ids) {
      checked++;
      const d = await system.state(Disclosure, id, caller.org);
      const t = await readToken(platform, caller.org, d.consent_token_id);
      const p = await passportOf(platform, caller.org, d.subject_ref);
      const issues: string[] = [];
      if (!t || !consentActive(t, platform.clock.now())) issues.push('consent_not_active');
      if ((p ? isLive(p) : false) !== d.disclosed.passport_live) issues.push('passport_changed');
      if (issues.length) out.push({ disclosure_id: id, subject_ref: d.subject_ref, recipient: d.recipient, issues, action: issues.includes('consent_not_active') ? 'revoke' : 'notify_recipient' });
    }
  }
  return { object: 'disclosure_reconciliation', livemode: caller.livemode, mocked: false, checked_count: checked, mismatch_count: out.length, mismatches: out, reconciled_at: new Date(platform.clock.now()).toISOString() };
}
