/**
 * An organisation's verification (spec 2.4: a passport is what every module checks is live before
 * acting, and spec 3 Engagement makes the engaging party need one; docs/gaps.md#identity
 * "Organisation passports"). It runs as a person's does (consent token of the organisation's
 * subject_ref, sources asked once, the evidence rule), with business claims in place of a person's:
 * the corporate registry number (asked of the corporate registry source, providers/), the
 * registered name (matched against the registry's record) and the directors, each a person
 * verified as persons are, whose passports must be live at the pack's director level. These are
 * the claim checks and the directors' results; verifications.ts runs them.
 */
import { errorEntry, type Platform, type ValidationEntry } from '../../kernel/index.ts';
import type { SourceResult } from './evidence.ts';
import { passportOf } from './passports.ts';
import { type IdentityPolicy, levelRank } from './policy.ts';
import { identityService } from './service.ts';
import type { Claims } from './source-answers.ts';

/**
 * How a subject without a live passport gets one, for refusals and next actions of other modules
 * that need it (spec 3 Engagement: both parties need a live passport).
 */
export const HOW_TO_GET_A_PASSPORT =
  'A person gets one by POST /v1/identity/verifications with their NIN under their own consent token; ' +
  'an organisation by the same call with claims business_registration_number, business_name and directors (each a person with a live passport), ' +
  'under a consent token of the organisation for purpose business_verification with checks corporate_registry, name_match and directors_identity ' +
  '(docs/gaps.md#identity "Organisation passports").';

/** CAC registration numbers: RC (company), BN (business name), IT (incorporated trustees), or the digits alone. */
const REGISTRATION = /^(RC|BN|IT)?[0-9]{1,8}$/;
const PERSON_CLAIMS = ['full_name', 'date_of_birth', 'phone', 'government_identifier', 'bank_identifier'] as const;

export const isOrganisationClaims = (c: Claims): boolean => c.business_registration_number !== undefined;

/** The registration number as the registry reads it (upper case, no space, dash or slash), or undefined when it is not one. */
export function registrationNumber(raw: string): string | undefined {
  const v = raw.toUpperCase().replace(/[\s/-]/g, '');
  return REGISTRATION.test(v) ? v : undefined;
}

/** What is wrong with an organisation's claims, every field named; business claims without a registration number too. */
export function organisationClaimsRefused(c: Claims, pack: IdentityPolicy): ValidationEntry[] {
  const bad: ValidationEntry[] = [];
  if (!isOrganisationClaims(c)) {
    for (const f of ['business_name', 'directors'] as const) {
      if (c[f] !== undefined) bad.push(errorEntry(`/claims/${f}`, 'requires_business_registration_number', `${f} is a claim of an organisation's verification, which needs business_registration_number.`));
    }
    return bad;
  }
  for (const f of PERSON_CLAIMS) {
    if (c[f] !== undefined) bad.push(errorEntry(`/claims/${f}`, 'not_an_organisation_claim', `${f} is a person's claim; an organisation is verified by its registration number, name and directors, each director verified as a person.`));
  }
  if (c.business_name === undefined) bad.push(errorEntry('/claims/business_name', 'required', 'business_name is required with business_registration_number: the registry\u2019s record is matched against it.'));
  const most = pack.organisations?.max_directors;
  if (most !== undefined && (c.directors?.length ?? 0) > most) bad.push(errorEntry('/claims/directors', 'too_many_directors', `directors names at most ${most} directors (identity policy ${pack.version}).`));
  if (!c.directors?.length) bad.push(errorEntry('/claims/directors', 'required', 'directors is required with business_registration_number: at least one director, verified as a person (a live passport).'));
  return bad;
}

/**
 * One result per director: passed when their passport is live at the pack's director level.
 * Read at the moment of the verification, from the gate and the passport; every director must pass
 * for directors_identity to hold (evidence.ts passedChecks).
 */
export async function directorResults(platform: Platform, org: string, directors: readonly string[], pack: IdentityPolicy, now: number): Promise<SourceResult[]> {
  const minimum = pack.organisations?.director_minimum_assurance ?? pack.verification.passport_minimum_assurance;
  const gate = identityService(platform).gate;
  const out: SourceResult[] = [];
  for (const ref of directors) {
    const live = gate.livePassport(org, ref) !== null;
    const level = live ? ((await passportOf(platform, org, ref))?.assurance ?? null) : null;
    const enough = level !== null && levelRank(level) >= levelRank(minimum);
    const finding = !live ? 'director_passport_not_live' : enough ? 'director_verified' : 'director_assurance_below_minimum';
    out.push({ source: `director:${ref}`, check: 'directors_identity', status: enough ? 'passed' : 'failed', finding, reference: null, ready_at: null, answered_at: now });
  }
  return out;
}
