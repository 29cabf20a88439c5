/**
 * Competence claim operations (spec 2.5 CompetenceClaim, 3 "Competence claim decay", 4.4): making
 * a claim (checked against the frameworks and the policy pack's decay; e4 comes only from a
 * verification), superseding the claim it replaces, and a person lapsing one. The claim's rules are
 * claim.ts; a re-attestation's new claim is made in reattestations.ts with the same checks.
 */
import { ApiError, type Caller, createdId, createDedupe, errorEntry, fieldError, type Platform, type ValidationEntry } from '../../kernel/index.ts';
import { existing, refuseIf } from './checks.ts';
import { Claim, type ClaimState, type IssueClaim } from './claim.ts';
import { addMonths, dateMs, dateOf } from './dates.ts';
import { CLAIM_PREFIX } from './ids.ts';
import type { ActivePolicy, EvidenceClass, Method } from './policy.ts';
import { credentialsService } from './service.ts';

export interface CreateClaimBody {
  subject_ref: string;
  claim_code: string;
  level: number;
  evidence_class: EvidenceClass;
  evidence_date: string;
  issuing_method?: Method;
  supersedes?: string;
}

/** The framework version and decay a claim of this evidence class is issued under (the policy pack). */
export function decayTerms(policy: ActivePolicy, evidenceClass: EvidenceClass): Pick<IssueClaim, 'framework_version' | 'decay_function' | 'lifetime_months' | 'ageing_fraction' | 'stale_fraction'> {
  const d = policy.pack.decay;
  return { framework_version: policy.frameworks.pack.version, decay_function: d.function, lifetime_months: d.lifetime_months[evidenceClass], ageing_fraction: d.ageing_at, stale_fraction: d.stale_at };
}

/** Checks a claim's code, evidence class and date; the entries name every failing field. */
export function claimEntries(policy: ActivePolicy, now: number, body: { claim_code?: string; evidence_date: string }, evidenceClass: EvidenceClass): ValidationEntry[] {
  const entries: ValidationEntry[] = [];
  if (body.claim_code !== undefined && !policy.claimCodes.has(body.claim_code)) entries.push(errorEntry('/claim_code', 'unknown_claim_code', `${body.claim_code.slice(0, 80)} is not a claim code of any framework; GET /v1/credentials/frameworks lists them.`));
  if (evidenceClass === 'e4_verified_with_issuer')
    entries.push(errorEntry('/evidence_class', 'evidence_class_reserved', 'e4_verified_with_issuer is issued only by a verified credential verification (POST /v1/credentials/verifications).'));
  const ms = dateMs(body.evidence_date);
  if (Number.isNaN(ms)) entries.push(errorEntry('/evidence_date', 'invalid_date', 'evidence_date must be a date (YYYY-MM-DD).'));
  else if (ms > now) entries.push(errorEntry('/evidence_date', 'in_future', 'evidence_date cannot be after today.'));
  else {
    const months = policy.pack.decay.lifetime_months[evidenceClass];
    if (months !== undefined) {
      const expires = dateMs(addMonths(body.evidence_date, months));
      if (expires <= now) entries.push(errorEntry('/evidence_date', 'evidence_expired', `Evidence of ${body.evidence_date} at ${evidenceClass} lapsed on ${dateOf(expires)}; a claim cannot be made already lapsed.`));
    }
  }
  return entries;
}

export async function createClaim(platform: Platform, caller: Caller, body: CreateClaimBody): Promise<unknown> {
  const { system } = platform;
  const { policy } = credentialsService(platform);
  refuseIf(claimEntries(policy, platform.clock.now(), body, body.evidence_class));
  const id = createdId(caller, CLAIM_PREFIX);
  if (body.supersedes !== undefined) await checkSupersedable(platform, body.supersedes, body.subject_ref, body.claim_code, caller.org, id);
  const cmd: IssueClaim = {
    subject_ref: body.subject_ref, claim_code: body.claim_code, level: body.level, evidence_class: body.evidence_class, evidence_date: body.evidence_date, issuing_method: body.issuing_method ?? null,
    ...decayTerms(policy, body.evidence_class), verification_id: null, supersedes: body.supersedes ?? null, livemode: caller.livemode, mocked: false,
  };
  const view = await system.ask(Claim, id, 'issue', cmd, { ...caller, dedupeId: createDedupe(caller) });
  if (body.supersedes !== undefined) await system.ask(Claim, body.supersedes, 'supersede', { by: id }, { ...caller, dedupeId: `supersede:${id}` });
  return body.supersedes !== undefined ? system.get(Claim, id, caller.org) : view;
}

/** A claim supersedes only a claim of the same subject and code that nothing superseded yet (spec 2.5). */
async function checkSupersedable(platform: Platform, oldId: string, subjectRef: string, code: string, org: string, by: string): Promise<ClaimState> {
  if (!oldId.startsWith(CLAIM_PREFIX)) throw fieldError('/supersedes', 'invalid_id', 'supersedes must name a competence claim (proof_academic_claim_...).');
  const old = await existing<ClaimState>(platform, Claim, oldId, org);
  if (!old) throw fieldError('/supersedes', 'unknown_claim', `No competence claim ${oldId.slice(0, 80)}.`);
  const entries: ValidationEntry[] = [];
  if (old.subject_ref !== subjectRef) entries.push(errorEntry('/supersedes', 'other_subject', `Claim ${old.id} is another subject's.`));
  if (old.claim_code !== code) entries.push(errorEntry('/supersedes', 'other_claim_code', `Claim ${old.id} is for ${old.claim_code}, not ${code}.`));
  refuseIf(entries);
  if (old.superseded_by !== null && old.superseded_by !== by) throw new ApiError('conflict', `Claim ${old.id} is already superseded by ${old.superseded_by}.`);
  return old;
}

/** A person lapses a claim before its expiry; it stays, shown lapsed and downgraded (claim.lapsed, spec 6). */
export async function lapseClaim(platform: Platform, caller: Caller, id: string, body: { reason: string }): Promise<unknown> {
  return platform.system.ask(Claim, id, 'lapse', body, caller);
}
