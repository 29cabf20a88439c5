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

export function factorValues(c: CandidateFacts, radiusMetres: number, w: WeightSet): Record<Factor, number> {
  const claims = c.credentials?.claims ?? [];
  const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 1);
  return {
    distance: clamp(1 - c.distance_metres / radiusMetres),
    evidence: mean(claims.map((x) => (x.evidence_class ? (w.evidence_class_scores[x.evidence_class] ?? 0) : 0))),
    freshness: mean(claims.map((x) => clamp(x.freshness))),
    reliability: clamp((c.completed + w.reliability_prior * w.reliability_prior_weight) / (c.completed + c.failed + w.reliability_prior_weight)),
    presence: clamp(c.presence_age_seconds <= w.presence_full_within_seconds ? 1 : w.presence_full_within_seconds / c.presence_age_seconds),
  };
}

/** The factors of a weight set in its own key order (the order rank() sums them in), computed once per set. */
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

/**
 * A candidate's score as rank() computes it (the same factors summed in the same order, then
 * rounded), without the per-factor breakdown: what opening a work order needs. A test holds the
 * two equal.
 */
export function scoreOf(c: CandidateFacts, radiusMetres: number, w: WeightSet): number {
  const claims = c.credentials?.claims;
  let evidence = 1;
  let freshness = 1;
  if (claims && claims.length) {
    let e = 0;
    let f = 0;
    for (let i = 0; i < claims.length; i++) {
      const x = claims[i];
      e += x.evidence_class ? (w.evidence_class_scores[x.evidence_class] ?? 0) : 0;
      f += clamp(x.freshness);
    }
    evidence = e / claims.length;
    freshness = f / claims.length;
  }
  const { names, weights } = orderOf(w);
  let score = 0;
  for (let i = 0; i < names.length; i++) {
    let v: number;
    switch (names[i]) {
      case 'distance':
        v = clamp(1 - c.distance_metres / radiusMetres);
        break;
      case 'evidence':
        v = evidence;
        break;
      case 'freshness':
        v = freshness;
        break;
      case 'reliability':
        v = clamp((c.completed + w.reliability_prior * w.reliability_prior_weight) / (c.completed + c.failed + w.reliability_prior_weight));
        break;
      case 'presence':
        v = clamp(c.presence_age_seconds <= w.presence_full_within_seconds ? 1 : w.presence_full_within_seconds / c.presence_age_seconds);
        break;
      default:
        v = 0;
    }
    score += v * weights[i];
  }
  return round(score);
}

/** The order of rank(): higher score first; ties by (rounded) distance, then worker_id. */
export function byRank(a: { score: number; distance_metres: number; worker_id: string }, b: { score: number; distance_metres: number; worker_id: string }): number {
  return b.score - a.score || a.distance_metres - b.distance_metres || (a.worker_id < b.worker_id ? -1 : 1);
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

export function rank(candidates: readonly CandidateFacts[], radiusMetres: number, w: WeightSet): { ranked: RankedCandidate[]; excluded: ExcludedCandidate[] } {
  const ranked: RankedCandidate[] = [];
  const excluded: ExcludedCandidate[] = [];
  for (const c of candidates) {
    const gate = gateOf(c);
    if (gate) {
      excluded.push({ worker_id: c.worker_id, distance_metres: round(c.distance_metres), excluded_because: gate.because, detail: gate.detail });
      continue;
    }
    const v = factorValues(c, radiusMetres, w);
    const factors = {} as RankedCandidate['factors'];
    let score = 0;
    for (const f of Object.keys(w.factors) as Factor[]) {
      const contribution = v[f] * w.factors[f];
      factors[f] = { value: round(v[f]), weight: w.factors[f], contribution: round(contribution) };
      score += contribution;
    }
    ranked.push({ worker_id: c.worker_id, rank: 0, score: round(score), distance_metres: round(c.distance_metres), factors });
  }
  // Higher score first; ties by distance, then worker_id, so the order is total and repeatable.
  ranked.sort(byRank);
  ranked.forEach((r, i) => (r.rank = i + 1));
  return { ranked, excluded };
}
