/**
 * An identity source behind one interface (spec rule 8; reference 1.2-1.4): a government
 * identifier registry (NIN), a bank identifier registry (BVN), a contactability check (phone).
 * What a source says is mapped to four answers (reference 1.4):
 * - found: the source holds a record, either returned (name and date of birth as the source has
 *   them, kept only long enough to compare) or compared by the source itself against the claims
 *   it was sent (reference 1.5: providers answer per field); for contactability, the channel was
 *   proved;
 * - not_found: an answer that fails the check; never unresolved;
 * - silent: the source did not answer (service unavailable, timeout): the verification is
 *   unresolved and names the source;
 * - deferred: the source will answer later under `reference`; the answer is collected then.
 */
import type { CheckKind } from '../policy.ts';

export interface SourceQuery {
  /** The identifier in clear (NIN, vNIN, BVN or E.164 phone); the source sees it, we never keep it. */
  identifier: string;
  /** What the caller claims, for sources that match fields themselves (reference 1.2). */
  full_name?: string;
  date_of_birth?: string;
}

export interface SourceRecord {
  full_name: string;
  date_of_birth: string | null;
}

/** Field results a provider computed itself against the claims it was sent (VerifyMe fieldMatches, Youverify validations). */
export interface SourceFieldMatches {
  name: 'exact' | 'match' | 'partial' | 'no_match' | null;
  date_of_birth: boolean | null;
}

export type SourceAnswer =
  /** record: what the source holds, compared by us; fields: the source's own comparison; neither for contactability. */
  | { status: 'found'; record?: SourceRecord; fields?: SourceFieldMatches }
  | { status: 'not_found' }
  | { status: 'silent'; detail: string }
  | { status: 'deferred'; reference: string; ready_at: number };

export type SourceState = 'available' | 'degraded' | 'unavailable';

export interface IdentitySource {
  /** Stable id named in unresolved_source and the evidence bundle, e.g. sandbox_nimc_nin. */
  readonly id: string;
  readonly name: string;
  readonly check: CheckKind;
  /** True when answers are stand-ins (sandbox): the verification is marked mocked. */
  readonly mocked: boolean;
  /** Documented test values (sandbox), shown by GET /v1/identity/sources. */
  readonly testValues: readonly { value: string; answer: string }[];
  state(): SourceState;
  query(q: SourceQuery, now: number): Promise<SourceAnswer>;
  /** The answer of a deferred query: deferred again while not ready; silent when the source forgot it. */
  collect(reference: string, now: number): Promise<SourceAnswer>;
}
