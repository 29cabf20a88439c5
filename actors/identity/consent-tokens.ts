/**
 * The consent token operations the routes call (spec 2.4 ConsentToken, 3 "Consent token", 4.3).
 * The identity policy pack bounds a token's lifetime: expires_at defaults to the pack's lifetime
 * and may lie no further away than its maximum.
 */
import { type Caller, fieldError, type Platform } from '../../kernel/index.ts';
import { ConsentToken, type CreateConsent } from './consent-token.ts';
import { ACTIVE_POLICY, type CheckKind } from './policy.ts';

const DAY = 86_400_000;

export interface ConsentBody {
  subject_ref: string;
  purpose: string;
  checks: CheckKind[];
  wording_version: string;
  collected_channel?: CreateConsent['collected_channel'];
  expires_at?: string;
}

function consentCommand(platform: Platform, caller: Caller, body: ConsentBody): CreateConsent {
  const now = platform.clock.now();
  const pack = ACTIVE_POLICY.pack.consent;
  let expires = now + pack.default_lifetime_days * DAY;
  if (body.expires_at !== undefined) {
    expires = Date.parse(body.expires_at);
    if (expires <= now) throw fieldError('/expires_at', 'not_in_future', 'expires_at is in the past: a consent token must expire in the future.');
    if (expires > now + pack.max_lifetime_days * DAY) throw fieldError('/expires_at', 'out_of_range', `expires_at is more than ${pack.max_lifetime_days} days away (identity policy ${ACTIVE_POLICY.pack.version}).`);
  }
  return {
    subject_ref: body.subject_ref,
    purpose: body.purpose,
    checks: body.checks,
    wording_version: body.wording_version,
    collected_channel: body.collected_channel ?? 'api',
    collected_at: now,
    expires_at: expires,
    livemode: caller.livemode,
  };
}

export function createConsentToken(platform: Platform, caller: Caller, id: string, body: ConsentBody, dedupeId: string | undefined): Promise<unknown> {
  return platform.system.ask(ConsentToken, id, 'create', consentCommand(platform, caller, body), { ...caller, dedupeId });
}

/** Withdrawal (spec 3 "Consent token"): the token authorises nothing afterwards. */
export function revokeConsentToken(platform: Platform, caller: Caller, id: string, dedupeId: string | undefined): Promise<unknown> {
  return platform.system.ask(ConsentToken, id, 'revoke', {}, { ...caller, dedupeId });
}
