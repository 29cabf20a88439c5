/**
 * The consent token operations (spec 2.4 ConsentToken, 3 "Consent token", rule 7, 4.3): making and
 * withdrawing a token (the routes), and reading one as the acts that rest on it do (a verification,
 * a disclosure, an access grant, and other modules through the face). The identity policy pack
 * bounds a token's lifetime: expires_at defaults to the pack's lifetime and may lie no further
 * away than its maximum.
 */
import { ApiError, type Caller, fieldError, type Platform } from '../../kernel/index.ts';
import { ConsentToken, type ConsentState, type ConsentStatus, consentActive, type CreateConsent } from './consent-token.ts';
import { CONSENT_PREFIX } from './ids.ts';
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

/** The token of this organisation, or undefined (none, or another organisation's: its existence is not ours to reveal). */
export async function readToken(platform: Platform, org: string, id: string): Promise<ConsentState | undefined> {
  if (typeof id !== 'string' || !id.startsWith(CONSENT_PREFIX)) return undefined;
  try {
    return await platform.system.state(ConsentToken, id, org);
  } catch (e) {
    if (e instanceof ApiError && (e.code === 'not_found' || e.code === 'organisation_mismatch')) return undefined;
    throw e;
  }
}

/** A consent token as other modules may check it (spec 2.4 ConsentToken; rule 7). */
export interface ConsentFacts {
  id: string;
  subject_ref: string;
  purpose: string;
  checks: string[];
  status: ConsentStatus;
  expires_at: string;
}

/** The token if it exists in org (undefined otherwise); a token past expires_at reads expired even before its reminder ran. */
export async function consentToken(platform: Platform, org: string, tokenId: string): Promise<ConsentFacts | undefined> {
  const t = await readToken(platform, org, tokenId);
  if (!t) return undefined;
  const status = t.status === 'active' && !consentActive(t, platform.clock.now()) ? 'expired' : t.status;
  return { id: t.id, subject_ref: t.subject_ref, purpose: t.purpose, checks: [...t.checks], status, expires_at: new Date(t.expires_at).toISOString() };
}

/** What a sharing act (a disclosure, an access grant) asks of the consent it rests on. */
export interface SharingRequest {
  subject_ref: string;
  consent_token_id?: string;
  purpose: string;
  expires_at?: string;
}

/**
 * The consent token a sharing act rests on (spec rule 7; 4.3 disclosures, access grants): this
 * organisation's, active, for this subject and purpose; and when the act ends: its expires_at (in
 * the future) or the pack's default lifetime, never after the token's own expiry.
 */
export async function sharingConsent(platform: Platform, caller: Caller, body: SharingRequest): Promise<{ token: ConsentState; ends: number }> {
  const t = body.consent_token_id === undefined ? undefined : await readToken(platform, caller.org, body.consent_token_id);
  const now = platform.clock.now();
  if (!t || !consentActive(t, now) || t.subject_ref !== body.subject_ref || t.purpose !== body.purpose) {
    throw new ApiError('consent_token_missing', `No active consent token of subject ${body.subject_ref} for purpose ${body.purpose}: nothing is disclosed without one (spec rule 7).`);
  }
  let ends = now + ACTIVE_POLICY.pack.disclosures.default_lifetime_days * DAY;
  if (body.expires_at !== undefined) {
    ends = Date.parse(body.expires_at);
    if (Number.isNaN(ends) || ends <= now) throw fieldError('/expires_at', 'not_in_future', 'expires_at must be a date-time in the future.');
  }
  return { token: t, ends: Math.min(ends, t.expires_at) };
}
