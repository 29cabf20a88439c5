/**
 * The candidates a work order ranks (spec 3 "Work orders, offers, assignments, exceptions", 4.7):
 * the supply map's nearest-N query (never a scan of all workers), the identity gate, engagement
 * standing and credential eligibility, each a read of memory on this node through the owning
 * module's face; ranking.ts scores and orders. rankWith explains every factor (GET .../ranking);
 * rankForOpen gives the same order without the breakdown, for opening a work order.
 */
import { mounted, type Platform } from '../../../kernel/index.ts';
import { credentialEligibility } from '../../credentials/index.ts';
import { engagementStanding } from '../../engagements/index.ts';
import { identityGate } from '../../identity/index.ts';
import { type CandidateFacts, type ExcludedCandidate, rank, type RankedCandidate, roundScore, scoreOf } from './ranking.ts';
import { allocationService, type AllocationService } from '../supply/service.ts';
import { NearestBuffer } from '../supply/supply-index.ts';
import { ACTIVE_WEIGHTS } from './weights.ts';
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
 * presence, reliability and the gates. rankWith reads them by worker id; rankForOpen by the
 * subject numbers the map answers (nearestInto), from the owning modules' columns.
 */
export interface RankingSources {
  nearest(org: string, latitude: number, longitude: number, radiusMetres: number, limit: number): readonly { worker_id: string; distance_metres: number }[];
  lastReadingAt(org: string, workerId: string): number | undefined;
  assignmentsOf(org: string, workerId: string): { completed: number; failed: number };
  gates: Gates;
  /** nearest() with each worker's subject number, into a reusable buffer; returns the count. */
  nearestInto(org: string, latitude: number, longitude: number, radiusMetres: number, limit: number, out: NearestBuffer): number;
  /** lastReadingAt of a worker in the map, by subject number. */
  reportAt(subject: number): number;
  /** assignmentsOf of a worker in the map, by subject number. */
  completedAt(subject: number): number;
  failedAt(subject: number): number;
}

export type RankingAsk = Pick<WorkOrderFacts, 'location' | 'search_radius_metres' | 'occupation_code' | 'claim_codes'>;

/** Every candidate near the point, gated and scored (the bench measures this beside the bare nearest-N query). */
export function rankWith(src: RankingSources, now: number, org: string, f: RankingAsk, weights = ACTIVE_WEIGHTS.set): { ranked: RankedCandidate[]; excluded: ExcludedCandidate[] } {
  const g = src.gates;
  const near = src.nearest(org, f.location.latitude, f.location.longitude, f.search_radius_metres, weights.candidate_pool);
  const facts: CandidateFacts[] = new Array(near.length);
  for (let i = 0; i < near.length; i++) {
    const n = near[i];
    const last = src.lastReadingAt(org, n.worker_id);
    const settled = src.assignmentsOf(org, n.worker_id);
    facts[i] = {
      worker_id: n.worker_id,
      distance_metres: n.distance_metres,
      passport_live: g.isLive(org, n.worker_id),
      engagement_current: g.isCurrent(org, n.worker_id),
      credentials: g.eligibility(org, n.worker_id, f.occupation_code, f.claim_codes),
      completed: settled.completed,
      failed: settled.failed,
      presence_age_seconds: last === undefined ? Infinity : Math.max(0, (now - last) / 1000),
    };
  }
  return rank(facts, f.search_radius_metres, weights);
}

/** rankForOpen's answer buffer: it runs synchronously, so one per process serves every call; it orders the candidates itself, so the buffer is left unsorted. */
const NEAREST = new NearestBuffer(false);

/**
 * rankForOpen's scratch, reused by every call for the same reason: the eligible candidates as
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

/**
 * The ranking a work order opens with: the same gates in the same order as rankWith, each asked
 * only while the candidate still passes (a worker without a live passport is not asked about),
 * and the same score and order, without the per-factor breakdown GET .../ranking shows. It reads
 * by subject number (the map's nearestInto, then the owning modules' columns) and allocates
 * nothing per candidate but its answer. A test holds it equal to rankWith.
 */
export function rankForOpen(src: RankingSources, now: number, org: string, f: RankingAsk, weights = ACTIVE_WEIGHTS.set): CandidateList & { excluded: number } {
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
    if (!g.liveAt(n) || !g.currentAt(n)) continue;
    if (credentialsOf) {
      const claims = credentialsOf(n);
      if (claims === null) continue;
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
    k++;
  }
  ELIGIBLE.claims = NO_CLAIMS; // holds no candidate's claims past the call
  facts.credentials = null;
  order.length = k;
  // Array.prototype.sort copies into work arrays of its own on every call; a few dozen eligible
  // candidates (the common case) are ordered in place by insertion.
  if (k > 32) order.sort(byKeptRank);
  else
    for (let i = 1; i < k; i++) {
      const x = order[i];
      let j = i - 1;
      while (j >= 0 && byKeptRank(order[j], x) > 0) {
        order[j + 1] = order[j];
        j--;
      }
      order[j + 1] = x;
    }
  const ids: string[] = new Array(k);
  const scores: number[] = [];
  for (let r = 0; r < k; r++) {
    const i = order[r];
    ids[r] = near.ids[at[i]];
    scores.push(score[i]);
  }
  return { candidate_ids: ids, candidate_scores: scores, excluded: count - k };
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
    nearest: (o, lat, lng, r, n) => s.nearest(o, lat, lng, r, n),
    lastReadingAt: (o, w) => s.lastReadingAt(o, w),
    assignmentsOf: (o, w) => s.assignmentsOf(o, w),
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
