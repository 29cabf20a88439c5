/**
 * Explained ranking (spec 2.8 ranking, 4.7 GET .../ranking): eligibility gates first, then a score
 * from the versioned weight set. Pure: the dispatch service gathers the facts (the supply map's
 * nearest workers, the identity gate, engagement standing, credential eligibility, reliability and
 * presence) and this file decides. Gates, in order, each naming itself when it excludes:
 *   passport_not_live        the identity module's gate (spec 2.4)
 *   engagement_not_current   no engagement executed and current with this organisation (spec 3)
 *   licence_missing / licence_expired / claim_missing / claim_lapsed / level_too_low
 *                            the credentials module's eligibility for the occupation and claims
 * Availability, presence reporting and integrity-flag suspension are gates of the supply map
 * itself: a worker outside it is never a candidate (GET /v1/allocation/supply/{worker_id} says why).
 * Every factor is in [0, 1]; the score is their weighted sum (weights sum to 1).
 */
import type { Factor, WeightSet } from './weights.ts';

export interface CredentialFacts {
  eligible: boolean;
  reasons: { code: string; detail: string }[];
  claims: readonly { code: string; freshness: number; evidence_class: string | null }[];
}

export interface CandidateFacts {
  worker_id: string;
  distance_metres: number;
  passport_live: boolean;
  engagement_current: boolean;
  /** null when the work order requires no occupation or claim (nothing to check). */
  credentials: CredentialFacts | null;
  completed: number;
  failed: number;
  /** Seconds since the worker's latest accepted reading. */
  presence_age_seconds: number;
}

export interface RankedCandidate {
  worker_id: string;
  rank: number;
  score: number;
  distance_metres: number;
  factors: Record<Factor, { value: number; weight: number; contribution: number }>;
}

export interface ExcludedCandidate {
  worker_id: string;
  distance_metres: number;
  excluded_because: string;
  detail: string;
}

const clamp = (x: number) => (x < 0 ? 0 : x > 1 ? 1 : x);
const round = (x: number) => Math.round(x * 1e6) / 1e6;

/**
 * The mean evidence and freshness of a candidate's claims (1 each with none), written into MEANS:
 * the ranking runs synchronously, so one per process serves every call without allocating.
 */
const MEANS = { evidence: 1, freshness: 1 };
function claimMeans(c: CandidateFacts, w: WeightSet): void {
  const claims = c.credentials?.claims;
  MEANS.evidence = 1;
  MEANS.freshness = 1;
  if (!claims || !claims.length) return;
  let e = 0;
  let f = 0;
  for (let i = 0; i < claims.length; i++) {
    const x = claims[i];
    e += x.evidence_class ? (w.evidence_class_scores[x.evidence_class] ?? 0) : 0;
    f += clamp(x.freshness);
  }
  MEANS.evidence = e / claims.length;
  MEANS.freshness = f / claims.length;
}

/** One factor's value in [0, 1], after claimMeans for the same candidate. */
function factorValue(name: Factor, c: CandidateFacts, radiusMetres: number, w: WeightSet): number {
  switch (name) {
    case 'distance':
      return clamp(1 - c.distance_metres / radiusMetres);
    case 'evidence':
      return MEANS.evidence;
    case 'freshness':
      return MEANS.freshness;
    case 'reliability':
      return clamp((c.completed + w.reliability_prior * w.reliability_prior_weight) / (c.completed + c.failed + w.reliability_prior_weight));
    case 'presence':
      return clamp(c.presence_age_seconds <= w.presence_full_within_seconds ? 1 : w.presence_full_within_seconds / c.presence_age_seconds);
    default:
      return 0;
  }
}

/** The factors of a weight set in its own key order (the order a score sums them in), computed once per set. */
const factorOrder = new WeakMap<WeightSet, { names: Factor[]; weights: Float64Array }>();
function orderOf(w: WeightSet) {
  let o = factorOrder.get(w);
  if (!o) {
    const names = Object.keys(w.factors) as Factor[];
    o = { names, weights: Float64Array.from(names.map((f) => w.factors[f])) };
    factorOrder.set(w, o);
  }
  return o;
}

/** A candidate's score: every factor's value times its weight, summed in the weight set's order, then rounded. */
export function scoreOf(c: CandidateFacts, radiusMetres: number, w: WeightSet): number {
  claimMeans(c, w);
  const { names, weights } = orderOf(w);
  let score = 0;
  for (let i = 0; i < names.length; i++) score += factorValue(names[i], c, radiusMetres, w) * weights[i];
  return round(score);
}

/** A ranked candidate's factors as GET .../ranking explains them: each one's value, weight and contribution to the score. */
export function factorsOf(c: CandidateFacts, radiusMetres: number, w: WeightSet): RankedCandidate['factors'] {
  claimMeans(c, w);
  const factors = {} as RankedCandidate['factors'];
  for (const f of orderOf(w).names) {
    const v = factorValue(f, c, radiusMetres, w);
    factors[f] = { value: round(v), weight: w.factors[f], contribution: round(v * w.factors[f]) };
  }
  return factors;
}

export { round as roundScore };

export function gateOf(c: CandidateFacts): { because: string; detail: string } | null {
  if (!c.passport_live) return { because: 'passport_not_live', detail: 'The worker holds no live passport (identity module).' };
  if (!c.engagement_current) return { because: 'engagement_not_current', detail: 'No engagement with this organisation is executed and current.' };
  if (c.credentials && !c.credentials.eligible) {
    // A statutory licence is the gate no other evidence passes (spec 2.5): named first when it fails.
    const r = c.credentials.reasons.find((x) => x.code.startsWith('licence_')) ?? c.credentials.reasons[0];
    const others = c.credentials.reasons.filter((x) => x !== r).map((x) => x.code);
    return { because: r?.code ?? 'not_eligible', detail: `${r?.detail ?? 'Not eligible for the occupation or claims.'}${others.length ? ` Also: ${[...new Set(others)].join(', ')}.` : ''}` };
  }
  return null;
}
