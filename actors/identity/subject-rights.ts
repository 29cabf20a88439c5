/**
 * What the subject is owed (NDPA in reference 1.7; spec 4.3 disclosures, subject requests, access
 * grants): every act that shares a decision rests on an active consent token of the subject for
 * the purpose (422 consent_token_missing otherwise); access and portability requests are answered
 * with what identity holds, masked; erasure removes personal data and keeps the decision records.
 */
import { ApiError, type Caller, fieldError, type Platform } from '../../kernel/index.ts';
import { AccessGrant } from './access-grant.ts';
import { BlocklistEntry } from './blocklist-entry.ts';
import { ConsentToken, type ConsentState, consentActive } from './consent-token.ts';
import { Disclosure, type DisclosureState } from './disclosure.ts';
import { passportIdOf } from './ids.ts';
import { isLive, Passport, type PassportState } from './passport.ts';
import { ACTIVE_POLICY, type SubjectRequestKind } from './policy.ts';
import type { IdentityService } from './service.ts';
import { SubjectRequest } from './subject-request.ts';
import { Verification, type VerificationState } from './verification.ts';
import { readToken } from './verify.ts';

const DAY = 86_400_000;

/** The consent token a sharing act rests on: this organisation's, active, for this subject and purpose. */
async function sharingConsent(platform: Platform, caller: Caller, tokenId: string | undefined, subject: string, purpose: string): Promise<ConsentState> {
  const t = tokenId === undefined ? undefined : await readToken(platform, caller.org, tokenId);
  if (!t || !consentActive(t, platform.clock.now()) || t.subject_ref !== subject || t.purpose !== purpose) {
    throw new ApiError('consent_token_missing', `No active consent token of subject ${subject} for purpose ${purpose}: nothing is disclosed without one (spec rule 7).`);
  }
  return t;
}

async function passportOf(platform: Platform, org: string, subject: string): Promise<PassportState | undefined> {
  return platform.system.state<PassportState>(Passport, passportIdOf(org, subject), org).catch(() => undefined);
}

function expiry(now: number, expiresAt: string | undefined, defaultDays: number, field: string): number {
  if (expiresAt === undefined) return now + defaultDays * DAY;
  const t = Date.parse(expiresAt);
  if (Number.isNaN(t) || t <= now) throw fieldError(`/${field}`, 'not_in_future', `${field} must be a date-time in the future.`);
  return t;
}

export async function disclose(platform: Platform, caller: Caller, id: string, body: { subject_ref: string; consent_token_id?: string; recipient: string; purpose: string; expires_at?: string }, dedupeId: string | undefined): Promise<unknown> {
  const token = await sharingConsent(platform, caller, body.consent_token_id, body.subject_ref, body.purpose);
  const now = platform.clock.now();
  const ends = Math.min(expiry(now, body.expires_at, ACTIVE_POLICY.pack.disclosures.default_lifetime_days, 'expires_at'), token.expires_at);
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
      const d = await system.state<DisclosureState>(Disclosure, id, caller.org);
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

export async function grantAccess(platform: Platform, caller: Caller, id: string, body: { subject_ref: string; consent_token_id: string; grantee: string; purpose: string; expires_at?: string }, dedupeId: string | undefined): Promise<unknown> {
  const token = await sharingConsent(platform, caller, body.consent_token_id, body.subject_ref, body.purpose);
  const now = platform.clock.now();
  const ends = Math.min(expiry(now, body.expires_at, ACTIVE_POLICY.pack.disclosures.default_lifetime_days, 'expires_at'), token.expires_at);
  return platform.system.ask(AccessGrant, id, 'grant', { subject_ref: body.subject_ref, grantee: body.grantee, purpose: body.purpose, consent_token_id: token.id, expires_at: ends, livemode: caller.livemode }, { ...caller, dedupeId });
}

export function revokeAccessGrant(platform: Platform, caller: Caller, id: string, dedupeId: string | undefined): Promise<unknown> {
  return platform.system.ask(AccessGrant, id, 'revoke', {}, { ...caller, dedupeId });
}

/** What identity holds about a subject, masked (access and portability). */
async function subjectCopy(svc: IdentityService, platform: Platform, org: string, subject: string): Promise<unknown> {
  const { system } = platform;
  const key = `subject:${passportIdOf(org, subject)}`;
  const consents: unknown[] = [];
  for await (const ids of system.eachIds(ConsentToken, org, key)) for (const id of ids) consents.push(await system.get(ConsentToken, id, org));
  const verifications: unknown[] = [];
  for await (const ids of system.eachIds(Verification, org, key)) {
    for (const id of ids) {
      const v = await system.state<VerificationState>(Verification, id, org);
      const vault = await svc.vault.get(org, id);
      verifications.push({ id, outcome: v.outcome, assurance_reached: v.assurance_reached, checks: (Verification.view(v) as { checks: unknown }).checks, identifiers_shown: vault?.masked ?? {}, created_at: new Date(v.created_at).toISOString() });
    }
  }
  const p = await passportOf(platform, org, subject);
  const blocklisted = (await system.listIds(BlocklistEntry, org, `active_subject:${passportIdOf(org, subject)}`, { limit: 1, order: 'asc' })).ids.length > 0;
  return { subject_ref: subject, consent_tokens: consents, verifications, passport: p?.issued ? Passport.view(p) : null, blocklisted };
}

export async function openSubjectRequest(svc: IdentityService, platform: Platform, caller: Caller, id: string, body: { subject_ref: string; kind: SubjectRequestKind; detail?: string }, dedupeId: string | undefined): Promise<unknown> {
  const { system } = platform;
  const pack = ACTIVE_POLICY.pack;
  const now = platform.clock.now();
  await system.ask(SubjectRequest, id, 'open', { subject_ref: body.subject_ref, kind: body.kind, detail: body.detail ?? null, due_at: now + pack.subject_requests.due_days[body.kind] * DAY, policy_version: pack.version, livemode: caller.livemode }, { ...caller, dedupeId });
  const opts = { org: caller.org, requestId: caller.requestId, principal: caller.principal, dedupeId: dedupeId && `${dedupeId}:carry_out` };
  if (body.kind === 'access' || body.kind === 'portability') {
    await system.ask(SubjectRequest, id, 'fulfil', { response: await subjectCopy(svc, platform, caller.org, body.subject_ref) }, opts);
  } else if (body.kind === 'erasure') {
    let erased = 0;
    for await (const ids of system.eachIds(Verification, caller.org, `subject:${passportIdOf(caller.org, body.subject_ref)}`)) {
      for (const v of ids) if (await svc.vault.erase(caller.org, v)) erased++;
    }
    await system.ask(SubjectRequest, id, 'erase', { verifications: erased }, opts);
  }
  return system.get(SubjectRequest, id, caller.org);
}

/** Rectification, objection and restriction are left for a person, who completes or refuses them with the reason. */
export function completeSubjectRequest(platform: Platform, caller: Caller, id: string, body: { outcome: 'completed' | 'refused'; reason: string }, dedupeId: string | undefined): Promise<unknown> {
  return platform.system.ask(SubjectRequest, id, 'complete', body, { ...caller, dedupeId });
}
