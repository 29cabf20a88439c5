/**
 * The candidates a work order ranks (spec 3 "Work orders, offers, assignments, exceptions", 4.7):
 * the supply map's nearest-N query (never a scan of all workers), the identity gate, engagement
 * standing and credential eligibility, each a read of memory on this node through the owning
 * module's face; ranking.ts scores and orders. One ranking serves both readers: rankForOpen gives
 * the order a work order opens with, rankWith the same order with every factor and exclusion
 * explained (GET .../ranking).
 */
import { mounted, type Platform } from '../../../kernel/index.ts';
import { credentialEligibility } from '../../credentials/index.ts';
import { engagementStanding } from '../../engagements/index.ts';
import { identityGate } from '../../identity/index.ts';
import { type CandidateFacts, type ExcludedCandidate, factorsOf, gateOf, type RankedCandidate, roundScore, scoreOf } from './ranking.ts';
import { allocationService, type AllocationService } from '../supply/service.ts';
import { NearestBuffer } from '../supply/supply-index.ts';
import { ACTIVE_WEIGHTS, type WeightSet } from './weights.ts';
import type { CandidateList, WorkOrderFacts } from './work-order.ts';

export interface Gates {
  isLive(org: string, subject: string): boolean;
  isCurrent(org: string, worker: string): boolean;
  eligibility(org: string, subject: string, occupation: string | null, claims: readonly string[]): CandidateFacts['credentials'];
  /** isLive by subject number (kernel subjectNumbers of the platform): a column read. */
  liveAt(subject: number): boolean;
  /** isCurrent by subject number. */
  currentAt(subject: number): boolean;
  /**
   * The credentials gate of one occupation and claim list (at least one of them given), asked by
   * subject number: null when not eligible, else the claims' facts the score reads.
   */
  credentialsFor(org: string, occupation: string | null, claims: readonly string[]): (subject: number) => ClaimFacts | null;
}

type ClaimFacts = NonNullable<CandidateFacts['credentials']>['claims'];

/**
 * The other modules' reads; a module not mounted on this platform passes nobody (closed by default).
 * Made once per start of the area (the platform's areas start together): a work order's opening
 * reads them without building closures.
 */
export function moduleGates(platform: Platform): Gates {
  return rankingSources(platform).gates;
}

function gatesFor(platform: Platform): Gates {
  // a module left out of this platform passes nobody; one mounted but failing is a fault, not absence
  const identity = mounted(platform, 'identity') ? identityGate(platform) : undefined;
  const standing = mounted(platform, 'engagements') ? engagementStanding(platform) : undefined;
  const creds = mounted(platform, 'credentials') ? credentialEligibility(platform) : undefined;
  return {
    isLive: (org, s) => identity?.isLive(org, s) ?? false,
    isCurrent: (org, w) => standing?.isCurrent(org, w) ?? false,
    eligibility: (org, s, occupation, claims) => {
      if (!occupation && !claims.length) return null;
      if (!creds) return { eligible: false, reasons: [{ code: 'credentials_not_available', detail: 'The credentials module is not mounted.' }], claims: [] };
      const e = creds.check(org, s, { ...(occupation ? { occupation_code: occupation } : {}), ...(claims.length ? { claim_codes: claims } : {}) });
      return { eligible: e.eligible, reasons: e.reasons, claims: e.claims.map((c) => ({ code: c.code, freshness: c.freshness, evidence_class: c.evidence_class })) };
    },
    liveAt: identity ? (n) => identity.liveAt(n) : () => false,
    currentAt: standing ? (n) => standing.currentAt(n) : () => false,
    credentialsFor: (_org, occupation, claims) => {
      if (!creds) return () => null;
      const prepared = creds.prepare({ ...(occupation ? { occupation_code: occupation } : {}), ...(claims.length ? { claim_codes: claims } : {}) });
      return (n) => prepared.claimsAt(n);
    },
  };
}

/**
 * What a ranking reads, each a read of memory on this node: the supply map's nearest-N query,
 * presence, reliability and the gates, by the subject numbers the map answers (nearestInto), from
 * the owning modules' columns.
 */
export interface RankingSources {
  gates: Gates;
  /** The supply map's nearest `limit` workers with each one's subject number, into a reusable buffer; returns the count. */
  nearestInto(org: string, latitude: number, longitude: number, radiusMetres: number, limit: number, out: NearestBuffer): number;
  /** When the worker's latest accepted reading was recorded (presence quality), by subject number. */
  reportAt(subject: number): number;
  /** The worker's settled assignments (reliability), by subject number. */
  completedAt(subject: number): number;
  failedAt(subject: number): number;
}

export type RankingAsk = Pick<WorkOrderFacts, 'location' | 'search_radius_metres' | 'occupation_code' | 'claim_codes'>;

/** The answer buffer of the ranking: it runs synchronously, so one per process serves every call; it orders the candidates itself, so the buffer is left unsorted. */
const NEAREST = new NearestBuffer(false);

/**
 * The ranking's scratch, reused by every call for the same reason: the eligible candidates as
 * positions in NEAREST with their score and rounded distance, ordered by an index sort.
 */
const KEPT = { at: [] as number[], score: [] as number[], rounded: [] as number[], order: [] as number[] };
const FACTS: CandidateFacts = { worker_id: '', distance_metres: 0, passport_live: true, engagement_current: true, credentials: null, completed: 0, failed: 0, presence_age_seconds: 0 };
const NO_CLAIMS: ClaimFacts = [];
const ELIGIBLE = { eligible: true, reasons: [], claims: NO_CLAIMS };

/** byRank over KEPT's positions: higher score first, then the nearer (rounded), then worker_id. */
function byKeptRank(i: number, j: number): number {
  return KEPT.score[j] - KEPT.score[i] || KEPT.rounded[i] - KEPT.rounded[j] || (NEAREST.ids[KEPT.at[i]] < NEAREST.ids[KEPT.at[j]] ? -1 : 1);
}

/** KEPT's first `k` positions in rank order. */
function orderKept(k: number): number[] {
  const { order } = KEPT;
  order.length = k;
  // Array.prototype.sort copies into work arrays of its own on every call; a few dozen eligible
  // candidates (the common case) are ordered in place by insertion.
  if (k > 32) return order.sort(byKeptRank);
  for (let i = 1; i < k; i++) {
    const x = order[i];
    let j = i - 1;
    while (j >= 0 && byKeptRank(order[j], x) > 0) {
      order[j + 1] = order[j];
      j--;
    }
    order[j + 1] = x;
  }
  return order;
}

/**
 * What GET .../ranking shows beside the order: each kept candidate's facts (by its position in
 * KEPT), from which its factors are drawn, and each excluded one with the gate that excluded it.
 */
interface Explanation {
  kept: CandidateFacts[];
  excluded: (ExcludedCandidate & { metres: number })[];
}

/**
 * Why a candidate did not pass (ranking.ts gateOf, the gates in their order): the first gate it
 * failed, and for credentials the module's own reasons, asked by worker id only for an
 * explanation.
 */
function exclusion(g: Gates, org: string, f: RankingAsk, id: string, metres: number, live: boolean, current: boolean): ExcludedCandidate & { metres: number } {
  const credentials = live && current ? { ...(g.eligibility(org, id, f.occupation_code, f.claim_codes) ?? { reasons: [], claims: NO_CLAIMS }), eligible: false } : null;
  const gate = gateOf({ ...FACTS, worker_id: id, passport_live: live, engagement_current: current, credentials })!;
  return { worker_id: id, distance_metres: roundScore(metres), excluded_because: gate.because, detail: gate.detail, metres };
}

/**
 * The ranking (spec 4.7), one for opening a work order and for GET .../ranking: the supply map's
 * nearest candidate_pool workers by subject number (nearestInto), the gates in order (identity,
 * engagement standing, credentials), each asked only while the candidate still passes (a worker
 * without a live passport is not asked about), from the owning modules' columns; then the score
 * of the weight set (ranking.ts scoreOf), higher first, ties by the nearer, then worker_id. It
 * allocates nothing per candidate but its answer; `why`, when given, collects the explanation as well.
 */
function rankNear(src: RankingSources, now: number, org: string, f: RankingAsk, weights: WeightSet, why: Explanation | null): CandidateList & { excluded: number } {
  const g = src.gates;
  const near = NEAREST;
  const count = src.nearestInto(org, f.location.latitude, f.location.longitude, f.search_radius_metres, weights.candidate_pool, near);
  const facts = FACTS;
  facts.credentials = null;
  const credentialsOf = f.occupation_code !== null || f.claim_codes.length > 0 ? g.credentialsFor(org, f.occupation_code, f.claim_codes) : undefined;
  const { at, score, rounded, order } = KEPT;
  let k = 0;
  for (let i = 0; i < count; i++) {
    const n = near.subjects[i];
    const live = g.liveAt(n);
    const current = live && g.currentAt(n);
    const claims = current && credentialsOf ? credentialsOf(n) : NO_CLAIMS;
    if (!current || claims === null) {
      if (why) why.excluded.push(exclusion(g, org, f, near.ids[i], near.metres(i), live, current));
      continue;
    }
    if (credentialsOf) {
      ELIGIBLE.claims = claims;
      facts.credentials = ELIGIBLE;
    }
    const metres = near.metres(i);
    facts.distance_metres = metres;
    facts.completed = src.completedAt(n);
    facts.failed = src.failedAt(n);
    facts.presence_age_seconds = Math.max(0, (now - src.reportAt(n)) / 1000);
    at[k] = i;
    score[k] = scoreOf(facts, f.search_radius_metres, weights);
    rounded[k] = roundScore(metres);
    order[k] = k;
    if (why) why.kept[k] = { ...facts, worker_id: near.ids[i], credentials: facts.credentials && { eligible: true, reasons: [], claims } };
    k++;
  }
  ELIGIBLE.claims = NO_CLAIMS; // holds no candidate's claims past the call
  facts.credentials = null;
  orderKept(k);
  const ids: string[] = new Array(k);
  const scores: number[] = [];
  for (let r = 0; r < k; r++) {
    const i = order[r];
    ids[r] = near.ids[at[i]];
    scores.push(score[i]);
  }
  return { candidate_ids: ids, candidate_scores: scores, excluded: count - k };
}

/** The ranking a work order opens with: candidates and scores in rank order, and how many the gates excluded. */
export function rankForOpen(src: RankingSources, now: number, org: string, f: RankingAsk, weights = ACTIVE_WEIGHTS.set): CandidateList & { excluded: number } {
  return rankNear(src, now, org, f, weights, null);
}

/**
 * The same ranking explained (GET .../ranking): each ranked candidate with its rank, score and
 * the value, weight and contribution of every factor; each excluded one, nearest first, with the
 * gate that excluded it.
 */
export function rankWith(src: RankingSources, now: number, org: string, f: RankingAsk, weights = ACTIVE_WEIGHTS.set): { ranked: RankedCandidate[]; excluded: ExcludedCandidate[] } {
  const why: Explanation = { kept: [], excluded: [] };
  rankNear(src, now, org, f, weights, why);
  const ranked = KEPT.order.map((i, r): RankedCandidate => {
    const c = why.kept[i];
    return { worker_id: c.worker_id, rank: r + 1, score: KEPT.score[i], distance_metres: roundScore(c.distance_metres), factors: factorsOf(c, f.search_radius_metres, weights) };
  });
  const excluded = why.excluded.sort((a, b) => a.metres - b.metres || (a.worker_id < b.worker_id ? -1 : 1)).map(({ metres: _m, ...x }) => x);
  return { ranked, excluded };
}

const sourcesOf = new WeakMap<AllocationService, RankingSources>();

/** What a ranking reads on this platform (this node's replica of the supply map and the modules' gates), made once per start of the area. */
export function rankingSources(platform: Platform): RankingSources {
  const s = allocationService(platform);
  let src = sourcesOf.get(s);
  if (!src) sourcesOf.set(s, (src = sourcesFor(platform, s)));
  return src;
}

function sourcesFor(platform: Platform, s: AllocationService): RankingSources {
  return {
    gates: gatesFor(platform),
    nearestInto: (o, lat, lng, r, n, out) => s.replica.map.nearestInto(o, lat, lng, r, n, out),
    reportAt: (n) => s.replica.reportAt(n),
    completedAt: (n) => s.replica.completedAt(n),
    failedAt: (n) => s.replica.failedAt(n),
  };
}

export function rankAround(platform: Platform, org: string, f: RankingAsk, weights = ACTIVE_WEIGHTS.set): { ranked: RankedCandidate[]; excluded: ExcludedCandidate[] } {
  return rankWith(rankingSources(platform), platform.clock.now(), org, f, weights);
}
