/**
 * Credential verification operations (spec 2.5, 3, 4.4): check the request against the policy pack
 * (the issuer, the kinds it issues), check consent (spec 1 rule 7: no consent, no query) before any
 * issuer is asked, reuse evidence inside the issuer's validity period (spec 2.5 cached, no second
 * charge), query the issuer through its provider, then commit through the verification actor
 * (verification.ts). A verified verification's claim and licences are asked at once with derived
 * ids, so a retried request lands on the same records; the reactions to the verified event repeat
 * them harmlessly and cover an answer that arrives later by reminder. A person records the issuer's
 * answer by verify, contradict or mark_unverified.
 */
import { type Caller, createdId, createDedupe, errorEntry, type Platform, type ValidationEntry } from '../../kernel/index.ts';
import { identityGate } from '../identity/index.ts';
import { existing, refuseIf, requireConsent } from './checks.ts';
import { Claim, type IssueClaim } from './claim.ts';
import { decayTerms } from './claims.ts';
import { addDays, addMonths, dateMs, dateOf } from './dates.ts';
import { licenceIdOf, VERIFICATION_PREFIX } from './ids.ts';
import { Licence } from './licence.ts';
import type { EvidenceClass, IssuerEntry } from './policy.ts';
import { credentialsService } from './service.ts';
import { type ClaimSeed, type CreateVerification, evidenceKey, type LicenceConfirmed, Verification, type VerificationState } from './verification.ts';

export interface CreateVerificationBody {
  subject_ref: string;
  issuer_id: string;
  credential_kind: string;
  consent_token_id?: string;
  credential_reference?: string;
}

/** What the verification's record holds whether the issuer is asked or evidence is reused. */
type Base = Omit<CreateVerification, 'mocked' | 'charge' | 'cached_from' | 'answer' | 'answer_at' | 'service_level_due_at'>;

const sys = { principal: 'system', lane: 'system' as const, noReply: true };

/** The claim a verified credential of this kind issues, less what the answer fixes. */
function claimSeed(platform: Platform, credentialKind: string, evidenceClass: EvidenceClass): ClaimSeed {
  const { policy } = credentialsService(platform);
  const k = policy.pack.credential_kinds[credentialKind];
  return { subject_ref: '', claim_code: k.claim_code, level: k.level, evidence_class: evidenceClass, issuing_method: null, ...decayTerms(policy, evidenceClass) };
}

/** The issuer, when it issues this kind; otherwise a 400 naming the field. */
function issuerFor(platform: Platform, body: CreateVerificationBody): IssuerEntry {
  const issuer = credentialsService(platform).policy.issuers.get(body.issuer_id);
  const entries: ValidationEntry[] = [];
  if (!issuer) entries.push(errorEntry('/issuer_id', 'unknown_issuer', `No issuer ${body.issuer_id.slice(0, 80)}; GET /v1/credentials/issuers lists them.`));
  else if (!issuer.credential_kinds.includes(body.credential_kind))
    entries.push(errorEntry('/credential_kind', 'credential_kind_not_issued', `${issuer.name} does not issue ${body.credential_kind.slice(0, 80)}; it issues ${issuer.credential_kinds.join(', ')}.`));
  refuseIf(entries, 1);
  return issuer!;
}

export async function createVerification(platform: Platform, caller: Caller, body: CreateVerificationBody): Promise<unknown> {
  const { system } = platform;
  const { policy } = credentialsService(platform);
  const iss = issuerFor(platform, body);
  const id = createdId(caller, VERIFICATION_PREFIX);
  if (await existing<VerificationState>(platform, Verification, id, caller.org)) return system.get(Verification, id, caller.org);

  // Rule 7: consent before anything is queried.
  const token = await requireConsent(platform, caller.org, body.subject_ref, body.consent_token_id, policy.pack.consent.verification_purposes, 'a credential verification');
  const passport = identityGate(platform).livePassport(caller.org, body.subject_ref);
  const now = platform.clock.now();
  const reference = body.credential_reference ?? null;
  const base: Base = {
    subject_ref: body.subject_ref, issuer_id: iss.id, issuer_name: iss.name, method: iss.method, credential_kind: body.credential_kind, credential_reference: reference,
    consent_token_id: token.id, identity_assurance: passport ? 'verified' : 'attested', passport_id: passport, livemode: caller.livemode,
    claim: { ...claimSeed(platform, body.credential_kind, 'e4_verified_with_issuer'), subject_ref: body.subject_ref, issuing_method: iss.method }, licence: policy.pack.credential_kinds[body.credential_kind].licence ?? null,
  };

  // Spec 2.5 cached: evidence inside the issuer's validity period is reused, with no second charge.
  const reused = await reusableEvidence(platform, caller.org, body.subject_ref, iss, body.credential_kind, reference, now);
  const cmd: CreateVerification = reused
    ? { ...base, mocked: reused.mocked, charge: { amount: 0, currency: iss.fee.currency }, cached_from: { verification_id: reused.id, evidence_date: reused.evidence_date!, claim_id: reused.claim_id }, answer: null, answer_at: null, service_level_due_at: null }
    : await query(platform, iss, body, reference, now, base);
  const view = await system.ask(Verification, id, 'create', cmd, { ...caller, dedupeId: createDedupe(caller) });
  if (view.outcome === 'verified' && !reused) await followOn(platform, caller.org, id);
  return view;
}

/** The issuer asked through its provider: its answer, when it arrives, and when silence becomes unverified. */
async function query(platform: Platform, iss: IssuerEntry, body: CreateVerificationBody, reference: string | null, now: number, base: Base): Promise<CreateVerification> {
  const r = await credentialsService(platform).issuers.query({ issuer: iss, subject_ref: body.subject_ref, credential_kind: body.credential_kind, credential_reference: reference, now });
  const due = iss.method === 'register_api' ? null : dateMs(dateOf(addDays(now, iss.service_level_days))) + 86_400_000;
  return { ...base, mocked: r.mocked, charge: r.charge, cached_from: null, answer: r.answer, answer_at: r.answer_at, service_level_due_at: due };
}

/** The latest first-hand verified evidence of this subject, issuer, kind and reference, if still inside the validity period. */
async function reusableEvidence(platform: Platform, org: string, subjectRef: string, iss: IssuerEntry, kind: string, reference: string | null, now: number): Promise<VerificationState | undefined> {
  const { system } = platform;
  const page = await system.listIds(Verification, org, `evidence:${evidenceKey(subjectRef, iss.id, kind, reference)}`, { limit: 1, order: 'desc' });
  const last = page.ids[0];
  if (!last) return undefined;
  const s = await system.state(Verification, last, org);
  if (s.outcome !== 'verified' || !s.evidence_date) return undefined;
  return now < addDays(dateMs(s.evidence_date), iss.evidence_valid_days) ? s : undefined;
}

/** The claim and licences of a verified verification, asked at once (the reactions repeat them harmlessly). */
async function followOn(platform: Platform, org: string, verificationId: string): Promise<void> {
  const { system } = platform;
  const s = await system.state(Verification, verificationId, org);
  if (s.outcome !== 'verified' || s.cached || !s.claim_id || !s.claim || !s.evidence_date) return;
  const claim: IssueClaim = { ...s.claim, evidence_date: s.evidence_date, verification_id: s.id, supersedes: null, livemode: s.livemode, mocked: s.mocked };
  const opts = { org, ...sys, dedupeId: `verified:${s.id}` };
  await system.ask(Claim, s.claim_id, 'issue', claim, opts);
  if (s.licence) {
    for (const occupation of s.licence.occupation_codes) {
      await system.ask(Licence, licenceIdOf(org, s.subject_ref, occupation, s.issuer_id), 'record', licenceFacts(s, occupation), opts);
    }
  }
}

function licenceFacts(s: VerificationState, occupation: string): Omit<LicenceConfirmed, 'type'> {
  return {
    verification_id: s.id, subject_ref: s.subject_ref, occupation_code: occupation, issuer_id: s.issuer_id, issuer_name: s.issuer_name, licence_kind: s.credential_kind,
    valid_from: s.evidence_date!, expires_at: addMonths(s.evidence_date!, s.licence!.validity_months), livemode: s.livemode, mocked: s.mocked,
  };
}

/** A person records the issuer's answer: verify (with its evidence date, not after today), contradict or mark_unverified. */
export async function decideVerification(platform: Platform, caller: Caller, id: string, op: 'verify' | 'contradict' | 'mark_unverified', body: Record<string, unknown>): Promise<unknown> {
  if (op === 'verify' && typeof body.evidence_date === 'string') {
    const ms = dateMs(body.evidence_date);
    refuseIf(Number.isNaN(ms) ? [errorEntry('/evidence_date', 'invalid_date', 'evidence_date must be a date (YYYY-MM-DD).')] : ms > platform.clock.now() ? [errorEntry('/evidence_date', 'in_future', 'evidence_date cannot be after today.')] : []);
  }
  const view = await platform.system.ask(Verification, id, op, body, caller);
  if (view.outcome === 'verified') await followOn(platform, caller.org, id);
  return view;
}
