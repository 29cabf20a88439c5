/**
 * What a source's answer says about the claims (spec 3 "Identity verification", rules 6 and 8;
 * reference 1.4, 1.5): the results one answer gives (the source's own check, and the name and
 * date-of-birth matches it allows), and how a source's record is compared with what was claimed.
 * Pure: used when a verification runs and when a late answer is collected (verifications.ts).
 */
import type { SourceResult } from './evidence.ts';
import { compareNames, type Digester, type NameMatch, nameTokens } from './personal-data.ts';
import { ACTIVE_POLICY, type CheckKind } from './policy.ts';
import type { IdentitySource, SourceAnswer } from './providers/index.ts';
import type { VaultEntry } from './vault.ts';

/** What a subject claims, each in clear: used while the request is in hand, then dropped. */
export interface Claims {
  full_name?: string;
  date_of_birth?: string;
  phone?: string;
  government_identifier?: string;
  bank_identifier?: string;
  /** An organisation's verification (docs/gaps.md#identity "Organisation passports"). */
  business_registration_number?: string;
  business_name?: string;
  directors?: string[];
}

/**
 * How a source's record is compared with the claims: in clear while the request is in hand (nothing
 * kept), or over the keyed digests kept in the vault when a late answer arrives (collectAnswers).
 */
export interface ClaimMatcher {
  name(recordName: string): NameMatch | null;
  dateOfBirth(recordDate: string): boolean | null;
}

export function clearMatcher(claims: Claims): ClaimMatcher {
  return new ClearMatcher(claims);
}

/** A class rather than an object of closures: made once per verification, its methods shared. */
class ClearMatcher implements ClaimMatcher {
  private readonly claimed: string[] | null;

  constructor(private readonly claims: Claims) {
    this.claimed = claims.full_name ? nameTokens(claims.full_name, ACTIVE_POLICY.pack) : null;
  }

  name(n: string): NameMatch | null {
    const pack = ACTIVE_POLICY.pack;
    return this.claimed ? compareNames(this.claimed, nameTokens(n, pack), pack) : null;
  }

  dateOfBirth(d: string): boolean | null {
    return this.claims.date_of_birth ? d === this.claims.date_of_birth : null;
  }
}

export function digestMatcher(claims: VaultEntry['claims'], digests: Digester): ClaimMatcher {
  const pack = ACTIVE_POLICY.pack;
  return {
    name: (n) => (claims.name ? compareNames(claims.name, digests.tokens('name', nameTokens(n, pack)), pack) : null),
    dateOfBirth: (d) => (claims.date_of_birth ? digests.digest('date_of_birth', d) === claims.date_of_birth : null),
  };
}

/** One result of a source's answer (a module function: a closure per request is named by tsx each time). */
function result(source: string, check: CheckKind, status: SourceResult['status'], finding: string, now: number, reference: string | null = null, readyAt: number | null = null, answeredAt: number | null = now): SourceResult {
  return { reference, ready_at: readyAt, answered_at: answeredAt, source, check, status, finding };
}

const MATCH_CHECKS = ['name_match', 'date_of_birth_match'] as const;

/** The results one answer gives: the source's own check, and name and date-of-birth matches it allows. */
export function resultsOf(source: IdentitySource, check: CheckKind, answer: SourceAnswer, wanted: readonly CheckKind[], match: ClaimMatcher, now: number): SourceResult[] {
  const dependents: CheckKind[] = [];
  if (check !== 'contactability') for (const c of MATCH_CHECKS) if (wanted.includes(c)) dependents.push(c);
  const out: SourceResult[] = [];
  switch (answer.status) {
    case 'silent':
      out.push(result(source.id, check, 'silent', 'silent', now, null, null, null));
      for (const c of dependents) out.push(result(source.id, c, 'silent', 'silent', now, null, null, null));
      return out;
    case 'deferred':
      out.push(result(source.id, check, 'deferred', 'awaiting_answer', now, answer.reference, answer.ready_at, null));
      for (const c of dependents) out.push(result(source.id, c, 'deferred', 'awaiting_answer', now, answer.reference, answer.ready_at, null));
      return out;
    case 'not_found':
      out.push(result(source.id, check, 'failed', check === 'contactability' ? 'unreachable' : 'not_found', now));
      for (const c of dependents) out.push(result(source.id, c, 'failed', 'no_record', now));
      return out;
    case 'found': {
      out.push(result(source.id, check, 'passed', check === 'contactability' ? 'reachable' : 'found', now));
      const by = answer.fields ? source.id : 'identity_match';
      for (const c of dependents) {
        if (c === 'name_match') {
          const m = answer.fields ? answer.fields.name : answer.record ? match.name(answer.record.full_name) : null;
          const pass = m === 'exact' || m === 'match';
          out.push(result(by, c, pass ? 'passed' : 'failed', pass ? (m as string) : m === null ? 'no_record' : `name_${m}`, now));
        } else {
          const dob = answer.fields ? answer.fields.date_of_birth : answer.record?.date_of_birth ? match.dateOfBirth(answer.record.date_of_birth) : null;
          out.push(result(by, c, dob ? 'passed' : 'failed', dob ? 'match' : dob === null ? 'no_record' : 'date_of_birth_mismatch', now));
        }
      }
      return out;
    }
  }
}
