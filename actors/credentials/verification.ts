/**
 * Credential verification (credentials). Spec 1 rules 7 and 8, 2.5 CredentialVerification,
 * 3 (Credential verification), 4.4. Outcomes: pending (an issuer portal or an assisted path running
 * to its published service level), verified (the issuer confirmed), unverified (nobody answered;
 * names the source; never a pass), contradicted (the issuer said otherwise; a finding about the
 * person). The issuer is queried (and charged) before the record is made, in service.ts, only under
 * an active consent token; this file holds the rules of what the answer means.
 *
 * outcome     command          condition                                         event(s)                                    next
 * ----------  ---------------  ------------------------------------------------  ------------------------------------------  ------------
 * (none)      create           evidence reused (cached)                          created, verified                           verified
 * (none)      create           answer now: confirmed                             created, verified [, licence_confirmed...]  verified
 * (none)      create           answer now: contrary                              created, contradicted                       contradicted
 * (none)      create           answer now: silence                               created, unverified (source named)          unverified
 * (none)      create           answer later, or a person answers                 created                                     pending
 * pending     due (reminder)   the portal's answer is due                        as the answer: verified | contradicted      ...
 * pending     due (reminder)   service_level_due passed, no answer               unverified (source named)                   unverified
 * pending     due (reminder)   neither                                           -                                           pending
 * pending     verify           a person records the issuer's confirmation        verified [, licence_confirmed...]           verified
 * unverified  verify           the issuer answered late                          verified [, licence_confirmed...]           verified
 * pending     contradict       detail                                            contradicted                                contradicted
 * unverified  contradict       detail                                            contradicted                                contradicted
 * pending     mark_unverified  -                                                 unverified (source named)                   unverified
 * otherwise   verify | contradict | mark_unverified                              409 conflict
 *
 * A verified credential issues a claim (claim_id; the claim actor reacts to the verified event) and,
 * when its kind is a statutory licence, one licence_confirmed event per occupation it licenses (the
 * licence actor reacts). A cached verification names the claim of the evidence it reused.
 */
import { createHash } from 'node:crypto';
import { defineActor, type IndexEntry, iso, sortKeyTime, type TimerWish } from '../../runtime/index.ts';
import { ApiError, assertNever, type MoneyValue, recordView } from '../../kernel/index.ts';
import type { IssueClaim } from './claim.ts';
import { addMonths, dateOf } from './dates.ts';
import { claimIdOfVerification, VERIFICATION_PREFIX } from './ids.ts';
import type { Method } from './policy.ts';
import type { IssuerAnswer } from './providers/issuers.ts';

export const OUTCOMES = ['pending', 'verified', 'unverified', 'contradicted'] as const;
export type Outcome = (typeof OUTCOMES)[number];
/** Whether the subject held a live passport when the credential was verified (the identity gate). */
export const IDENTITY_ASSURANCES = ['attested', 'verified'] as const;
export type IdentityAssurance = (typeof IDENTITY_ASSURANCES)[number];

/** What a verified credential issues, less what the answer fixes (evidence date, verification). */
export type ClaimSeed = Omit<IssueClaim, 'evidence_date' | 'verification_id' | 'supersedes' | 'livemode' | 'mocked'>;

export interface LicenceSeed {
  occupation_codes: string[];
  validity_months: number;
}

export interface CreateVerification {
  subject_ref: string;
  issuer_id: string;
  issuer_name: string;
  method: Method;
  credential_kind: string;
  credential_reference: string | null;
  consent_token_id: string;
  identity_assurance: IdentityAssurance;
  passport_id: string | null;
  livemode: boolean;
  mocked: boolean;
  charge: MoneyValue;
  /** Evidence reused inside the issuer's validity period. */
  cached_from: { verification_id: string; evidence_date: string; claim_id: string | null } | null;
  /** The issuer's answer and when it arrives (now, later, or never: null). */
  answer: IssuerAnswer | null;
  answer_at: number | null;
  /** ms after which silence is unverified (issuer_portal, assisted_manual); null for register_api. */
  service_level_due_at: number | null;
  claim: ClaimSeed;
  licence: LicenceSeed | null;
}

/** The record: what create carried (less the reused evidence, named by id), and what the answer decided. */
export interface VerificationState extends Omit<CreateVerification, 'cached_from' | 'claim'> {
  id: string;
  org: string;
  outcome: Outcome;
  evidence_date: string | null;
  unresolved_source: string | null;
  contradiction_detail: string | null;
  claim_id: string | null;
  cached: boolean;
  cached_from: string | null;
  claim: ClaimSeed | null;
  decided_by: string | null;
  decided_at: number | null;
  created_at: number;
}

interface Facts {
  subject_ref: string;
  decided_by: string;
}

export interface LicenceConfirmed {
  type: 'credential_verification.licence_confirmed';
  verification_id: string;
  subject_ref: string;
  occupation_code: string;
  issuer_id: string;
  issuer_name: string;
  licence_kind: string;
  valid_from: string;
  expires_at: string;
  livemode: boolean;
  mocked: boolean;
}

export type VerificationEvent =
  | ({ type: 'credential_verification.created' } & CreateVerification)
  | ({ type: 'credential_verification.verified'; evidence_date: string; claim_id: string | null; claim: IssueClaim | null } & Facts)
  | LicenceConfirmed
  | ({ type: 'credential_verification.unverified'; unresolved_source: string } & Facts)
  | ({ type: 'credential_verification.contradicted'; contradiction_detail: string } & Facts);

/** The end of the service level: the whole of the service_level_due date (UTC). */
export const serviceLevelDate = (dueAt: number): string => dateOf(dueAt - 1);

function verified(s: VerificationState, evidenceDate: string, by: string): VerificationEvent[] {
  const claimId = claimIdOfVerification(s.id);
  const claim: IssueClaim | null = s.claim
    ? { ...s.claim, evidence_date: evidenceDate, verification_id: s.id, supersedes: null, livemode: s.livemode, mocked: s.mocked }
    : null;
  const out: VerificationEvent[] = [{ type: 'credential_verification.verified', subject_ref: s.subject_ref, decided_by: by, evidence_date: evidenceDate, claim_id: claim ? claimId : null, claim }];
  if (s.licence) {
    const expires = addMonths(evidenceDate, s.licence.validity_months);
    for (const occupation of s.licence.occupation_codes)
      out.push({
        type: 'credential_verification.licence_confirmed', verification_id: s.id, subject_ref: s.subject_ref, occupation_code: occupation, issuer_id: s.issuer_id,
        issuer_name: s.issuer_name, licence_kind: s.credential_kind, valid_from: evidenceDate, expires_at: expires, livemode: s.livemode, mocked: s.mocked,
      });
  }
  return out;
}

function answered(s: VerificationState, a: IssuerAnswer): VerificationEvent[] {
  switch (a.kind) {
    case 'confirmed':
      return verified(s, a.evidence_date, 'issuer');
    case 'contrary':
      return [{ type: 'credential_verification.contradicted', subject_ref: s.subject_ref, decided_by: 'issuer', contradiction_detail: a.detail }];
    case 'silent':
      return [{ type: 'credential_verification.unverified', subject_ref: s.subject_ref, decided_by: 'issuer', unresolved_source: s.issuer_id }];
    default:
      return assertNever(a);
  }
}

const refuse = (s: VerificationState, op: string, allowed: string) =>
  new ApiError('conflict', `Credential verification ${s.id} is ${s.outcome}; ${op} applies only to a ${allowed} verification.`);

export const Verification = defineActor({
  kind: 'credentials_verification',
  prefix: VERIFICATION_PREFIX,
  creates: ['create'],
  initial: (id: string, org: string): VerificationState => ({
    id,
    org,
    livemode: false,
    mocked: false,
    outcome: 'pending',
    subject_ref: '',
    passport_id: null,
    identity_assurance: 'attested',
    issuer_id: '',
    issuer_name: '',
    method: 'register_api',
    credential_kind: '',
    credential_reference: null,
    consent_token_id: '',
    evidence_date: null,
    unresolved_source: null,
    contradiction_detail: null,
    service_level_due_at: null,
    claim_id: null,
    cached: false,
    cached_from: null,
    charge: { amount: 0, currency: 'NGN' },
    answer: null,
    answer_at: null,
    claim: null,
    licence: null,
    decided_by: null,
    decided_at: null,
    created_at: 0,
  }),
  decide: {
    create(s: VerificationState, cmd: CreateVerification, ctx): VerificationEvent[] {
      if (ctx.version > 0) return [];
      const created: VerificationEvent = { type: 'credential_verification.created', ...cmd };
      if (cmd.cached_from)
        return [created, { type: 'credential_verification.verified', subject_ref: cmd.subject_ref, decided_by: 'cache', evidence_date: cmd.cached_from.evidence_date, claim_id: cmd.cached_from.claim_id, claim: null }];
      if (cmd.answer && cmd.answer_at !== null && cmd.answer_at <= ctx.now) {
        const after: VerificationState = { ...s, ...cmd, cached_from: null, id: ctx.id };
        return [created, ...answered(after, cmd.answer)];
      }
      return [created];
    },
    due(s: VerificationState, _cmd: unknown, ctx): VerificationEvent[] {
      if (s.outcome !== 'pending') return [];
      if (s.answer && s.answer_at !== null && ctx.now >= s.answer_at) return answered(s, s.answer);
      if (s.service_level_due_at !== null && ctx.now >= s.service_level_due_at)
        return [{ type: 'credential_verification.unverified', subject_ref: s.subject_ref, decided_by: 'service_level', unresolved_source: s.issuer_id }];
      return [];
    },
    verify(s: VerificationState, cmd: { evidence_date?: string }, ctx): VerificationEvent[] {
      if (s.outcome !== 'pending' && s.outcome !== 'unverified') throw refuse(s, 'verify', 'pending or unverified');
      return verified(s, cmd.evidence_date ?? dateOf(ctx.now), ctx.principal ?? 'unknown');
    },
    contradict(s: VerificationState, cmd: { contradiction_detail: string }, ctx): VerificationEvent[] {
      if (s.outcome !== 'pending' && s.outcome !== 'unverified') throw refuse(s, 'contradict', 'pending or unverified');
      return [{ type: 'credential_verification.contradicted', subject_ref: s.subject_ref, decided_by: ctx.principal ?? 'unknown', contradiction_detail: cmd.contradiction_detail }];
    },
    mark_unverified(s: VerificationState, cmd: { unresolved_source?: string }, ctx): VerificationEvent[] {
      if (s.outcome !== 'pending') throw refuse(s, 'mark_unverified', 'pending');
      return [{ type: 'credential_verification.unverified', subject_ref: s.subject_ref, decided_by: ctx.principal ?? 'unknown', unresolved_source: cmd.unresolved_source ?? s.issuer_id }];
    },
  },
  evolve(s: VerificationState, e: VerificationEvent, meta): VerificationState {
    switch (e.type) {
      case 'credential_verification.created':
        return {
          ...s,
          livemode: e.livemode,
          mocked: e.mocked,
          outcome: 'pending',
          subject_ref: e.subject_ref,
          passport_id: e.passport_id,
          identity_assurance: e.identity_assurance,
          issuer_id: e.issuer_id,
          issuer_name: e.issuer_name,
          method: e.method,
          credential_kind: e.credential_kind,
          credential_reference: e.credential_reference,
          consent_token_id: e.consent_token_id,
          service_level_due_at: e.service_level_due_at,
          cached: e.cached_from !== null,
          cached_from: e.cached_from?.verification_id ?? null,
          charge: e.charge,
          answer: e.answer,
          answer_at: e.answer_at,
          claim: e.claim,
          licence: e.licence,
          created_at: meta.at,
        };
      case 'credential_verification.verified':
        return { ...s, outcome: 'verified', evidence_date: e.evidence_date, claim_id: e.claim_id, unresolved_source: null, decided_by: e.decided_by, decided_at: meta.at };
      case 'credential_verification.licence_confirmed':
        return s;
      case 'credential_verification.unverified':
        return { ...s, outcome: 'unverified', unresolved_source: e.unresolved_source, decided_by: e.decided_by, decided_at: meta.at };
      case 'credential_verification.contradicted':
        return { ...s, outcome: 'contradicted', contradiction_detail: e.contradiction_detail, unresolved_source: null, decided_by: e.decided_by, decided_at: meta.at };
      default:
        return assertNever(e);
    }
  },
  view: (s: VerificationState) => (recordView('credential_verification', s.id, s.livemode, s.mocked, {
    outcome: s.outcome,
    subject_ref: s.subject_ref,
    ...(s.identity_assurance === 'verified' ? { passport_id: s.passport_id } : {}),
    identity_assurance: s.identity_assurance,
    issuer_id: s.issuer_id,
    issuer_name: s.issuer_name,
    method: s.method,
    credential_kind: s.credential_kind,
    credential_reference: s.credential_reference,
    consent_token_id: s.consent_token_id,
    evidence_date: s.evidence_date,
    unresolved_source: s.unresolved_source,
    contradiction_detail: s.contradiction_detail,
    service_level_due: s.outcome === 'pending' && s.service_level_due_at !== null ? serviceLevelDate(s.service_level_due_at) : null,
    claim_id: s.claim_id,
    cached: s.cached,
    cached_from: s.cached_from,
    charge: s.charge,
    decided_by: s.decided_by,
    decided_at: s.decided_at === null ? null : iso(s.decided_at),
    created_at: iso(s.created_at),
  })),
  timers(s: VerificationState): TimerWish[] {
    if (s.outcome !== 'pending') return [];
    const at = s.answer && s.answer_at !== null ? s.answer_at : s.service_level_due_at;
    return at === null ? [] : [{ name: 'due', dueAt: at, command: 'due' }];
  },
  indexes(s: VerificationState): IndexEntry[] {
    const k = sortKeyTime(s.created_at);
    const out: IndexEntry[] = [
      { list: 'all', sortKey: k },
      { list: `outcome:${s.outcome}`, sortKey: k },
      { list: `subject:${s.subject_ref}`, sortKey: k },
      { list: `subject:${s.subject_ref}:outcome:${s.outcome}`, sortKey: k },
    ];
    // Evidence a later verification may reuse (spec 2.5 cached): first-hand, verified evidence only.
    if (s.outcome === 'verified' && !s.cached) out.push({ list: `evidence:${evidenceKey(s.subject_ref, s.issuer_id, s.credential_kind, s.credential_reference)}`, sortKey: k });
    return out;
  },
});

/** The list that holds the verified evidence of one subject, issuer, credential kind and reference. */
export function evidenceKey(subjectRef: string, issuerId: string, kind: string, reference: string | null): string {
  return createHash('sha256').update(JSON.stringify([subjectRef, issuerId, kind, reference])).digest('hex').slice(0, 32);
}
