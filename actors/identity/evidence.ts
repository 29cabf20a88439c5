/**
 * What the sources said, and what it adds up to (spec 2.4 assurance levels, 3 "Identity
 * verification"; reference 1.4 mapping). A pure rule over source results, used by the
 * verification actor when it is created, when a late answer arrives and when a person decides.
 *
 * - a silent source makes the verification unresolved and is named (rule 8);
 * - a source still to answer keeps it pending (awaiting_source);
 * - a record that contradicts the claims (name partial or no match, date of birth differs) goes to
 *   a person (pending, review_required): a partial match is a review matter (reference 1.5);
 * - evidence below the pack's passport minimum goes to a person too;
 * - otherwise it resolves at the highest level the evidence reaches, which may be below the target.
 * "Not found" fails its check and is never unresolved (reference 1.4).
 */
import { type AssuranceLevel, type CheckKind, type IdentityPolicy, levelRank, levelReached, passportMinimum } from './policy.ts';

export type ResultStatus = 'passed' | 'failed' | 'silent' | 'deferred';

export interface SourceResult {
  /** Source id (sandbox_nimc_nin ...), or identity_match for our own name and date-of-birth comparison. */
  source: string;
  check: CheckKind;
  status: ResultStatus;
  /** What was found, in a word: match, exact, not_found, name_partial, name_no_match, date_of_birth_mismatch, unreachable, silent, awaiting_answer. */
  finding: string;
  /** A deferred answer's reference at its source. */
  reference: string | null;
  ready_at: number | null;
  answered_at: number | null;
}

export const CONTRADICTIONS: ReadonlySet<string> = new Set(['name_partial', 'name_no_match', 'date_of_birth_mismatch']);

export type Evaluation =
  | { outcome: 'unresolved'; source: string }
  | { outcome: 'pending'; reason: 'awaiting_source'; findings: string[] }
  | { outcome: 'pending'; reason: 'review_required'; findings: string[]; reached: AssuranceLevel }
  | { outcome: 'resolved'; reached: AssuranceLevel; findings: string[] };

/**
 * The checks the results establish: one passed result does, except for directors_identity, which
 * every director named must pass (docs/gaps.md#identity "Organisation passports").
 */
export function passedChecks(results: readonly SourceResult[]): Set<CheckKind> {
  const passed = new Set(results.filter((r) => r.status === 'passed').map((r) => r.check));
  if (results.some((r) => r.check === 'directors_identity' && r.status !== 'passed')) passed.delete('directors_identity');
  return passed;
}

/** Whether the results are an organisation's: its registry was asked. */
export const isOrganisation = (results: readonly SourceResult[]): boolean => results.some((r) => r.check === 'corporate_registry');

/** The level the results reach, by the person's or the organisation's table. */
export function reachedBy(results: readonly SourceResult[], pack: IdentityPolicy): AssuranceLevel {
  return levelReached(passedChecks(results), pack, isOrganisation(results));
}

export function evaluate(results: readonly SourceResult[], pack: IdentityPolicy): Evaluation {
  const silent = results.find((r) => r.status === 'silent');
  if (silent) return { outcome: 'unresolved', source: silent.source };
  const findings = results.filter((r) => r.status === 'failed').map((r) => r.finding);
  if (results.some((r) => r.status === 'deferred')) return { outcome: 'pending', reason: 'awaiting_source', findings };
  const reached = reachedBy(results, pack);
  if (findings.some((f) => CONTRADICTIONS.has(f))) return { outcome: 'pending', reason: 'review_required', findings, reached };
  if (levelRank(reached) < levelRank(passportMinimum(pack, isOrganisation(results)))) {
    return { outcome: 'pending', reason: 'review_required', findings: [...findings, 'assurance_below_passport_minimum'], reached };
  }
  return { outcome: 'resolved', reached, findings };
}
