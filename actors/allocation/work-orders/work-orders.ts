/**
 * Dispatch: opening work orders, their explained ranking, and the offers' acceptance (spec 3
 * "Work orders, offers, assignments, exceptions", 4.7). The ranking's facts come from the supply
 * map's nearest-N query (never a scan of all workers), the identity gate, engagement standing and
 * credential eligibility, each a read of memory on this node through the owning module's face;
 * ranking.ts decides. The work order actor then runs the cascade.
 */
import { ApiError, type Caller, errorEntry, mounted, type Platform, type ValidationEntry, validationError } from '../../../kernel/index.ts';
import { credentialEligibility } from '../../credentials/index.ts';
import { engagementStanding } from '../../engagements/index.ts';
import { identityGate } from '../../identity/index.ts';
import { type CandidateFacts, type ExcludedCandidate, rank, type RankedCandidate, roundScore, scoreOf } from './ranking.ts';
import { allocationService, type AllocationService } from '../supply/service.ts';
import { NearestBuffer } from '../supply/supply-index.ts';
import { ACTIVE_WEIGHTS, weightsVersion } from './weights.ts';
import { type CandidateList, offerView, type OpenCommand, WorkOrder, workOrderIdOfOffer, type WorkOrderFacts, type WorkOrderState } from './work-order.ts';

export interface OpenWorkOrder {
  location: { latitude: number; longitude: number; radius_metres: number };
  search_radius_metres?: number;
  occupation_code?: string;
  claim_codes?: string[];
  window: { starts_at: string; ends_at: string };
  headcount: number;
  offer_timeout_seconds?: number;
  cascade_width?: number;
}

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

function rankAround(platform: Platform, org: string, f: RankingAsk, weights = ACTIVE_WEIGHTS.set): { ranked: RankedCandidate[]; excluded: ExcludedCandidate[] } {
  return rankWith(rankingSources(platform), platform.clock.now(), org, f, weights);
}

/** The active weight set as a work order records it: one object every work order of the set shares. */
const ACTIVE_WEIGHT_SET = Object.freeze({ version: ACTIVE_WEIGHTS.set.version, content_hash: ACTIVE_WEIGHTS.hash });

export async function openWorkOrder(platform: Platform, caller: Caller, id: string, body: OpenWorkOrder, dedupeId: string | undefined): Promise<unknown> {
  const w = ACTIVE_WEIGHTS.set;
  const bad: ValidationEntry[] = [];
  const starts = Date.parse(body.window.starts_at);
  const ends = Date.parse(body.window.ends_at);
  const now = platform.clock.now();
  if (!(ends > starts)) bad.push(errorEntry('/window/ends_at', 'out_of_range', 'window.ends_at must be after window.starts_at.'));
  if (ends <= now) bad.push(errorEntry('/window/ends_at', 'not_in_future', 'window.ends_at has passed already.'));
  if (body.location.radius_metres > w.max_radius_metres) bad.push(errorEntry('/location/radius_metres', 'out_of_range', `radius_metres is at most ${w.max_radius_metres} (weight set ${w.version}).`));
  const search = body.search_radius_metres ?? Math.max(w.default_search_radius_metres, body.location.radius_metres);
  if (search > w.max_radius_metres) bad.push(errorEntry('/search_radius_metres', 'out_of_range', `search_radius_metres is at most ${w.max_radius_metres} (weight set ${w.version}).`));
  if (search < body.location.radius_metres) bad.push(errorEntry('/search_radius_metres', 'out_of_range', 'search_radius_metres is at least the geofence radius.'));
  if (body.headcount > w.max_headcount) bad.push(errorEntry('/headcount', 'out_of_range', `headcount is at most ${w.max_headcount}.`));
  const claims = body.claim_codes?.length ? [...new Set(body.claim_codes)] : [];
  let licenceRequired = false;
  const occupation = body.occupation_code ?? null;
  if (occupation || claims.length) {
    // An unknown occupation or claim code is the caller's mistake, not a gap in supply.
    try {
      const probe = credentialEligibility(platform).check(caller.org, '\u0000probe', { ...(occupation ? { occupation_code: occupation } : {}), ...(claims.length ? { claim_codes: claims } : {}) });
      for (const r of probe.reasons) {
        if (r.code === 'unknown_occupation') bad.push(errorEntry('/occupation_code', 'unknown_occupation', r.detail));
        if (r.code === 'unknown_claim_code') bad.push(errorEntry('/claim_codes', 'unknown_claim_code', r.detail));
        if (r.code === 'licence_missing') licenceRequired = true;
      }
    } catch (e) {
      if (e instanceof ApiError && e.status === 400) throw e;
      throw new ApiError('unavailable', 'The credentials module cannot be asked about the occupation now; retry.');
    }
  }
  if (bad.length) throw validationError(bad, 1);
  // The command is built once, its ranking filled in after: the actor's event is made from it.
  const cmd: OpenCommand & CandidateList = {
    location: body.location,
    search_radius_metres: search,
    occupation_code: occupation,
    claim_codes: claims,
    licence_required: licenceRequired,
    window: { starts_at: starts, ends_at: ends },
    headcount: body.headcount,
    offer_timeout_seconds: body.offer_timeout_seconds ?? w.default_offer_timeout_seconds,
    cascade_width: body.cascade_width ?? w.default_cascade_width,
    weight_set: ACTIVE_WEIGHT_SET,
    livemode: caller.livemode,
    candidate_ids: [],
    candidate_scores: [],
    excluded_count: 0,
  };
  const ranking = rankForOpen(rankingSources(platform), now, caller.org, cmd);
  cmd.candidate_ids = ranking.candidate_ids;
  cmd.candidate_scores = ranking.candidate_scores;
  cmd.excluded_count = ranking.excluded;
  return platform.system.ask(WorkOrder, id, 'open', cmd, { ...caller, dedupeId });
}

/** POST .../offer, .../fill, .../expire, .../cancel: the work order's own cascade steps; only cancel carries a reason. */
export async function workOrderStep(platform: Platform, caller: Caller, id: string, op: 'offer' | 'fill' | 'expire' | 'cancel', reason: string | undefined, dedupeId: string | undefined): Promise<unknown> {
  return platform.system.ask(WorkOrder, id, op, op === 'cancel' ? { reason } : {}, { ...caller, dedupeId });
}

/** GET .../ranking: the ranking as it stands now around the work order, every factor shown. */
export async function rankingOf(platform: Platform, org: string, id: string): Promise<unknown> {
  const s = await platform.system.state<WorkOrderState>(WorkOrder, id, org);
  const weights = weightsVersion(s.weight_set.version) ?? ACTIVE_WEIGHTS;
  const { ranked, excluded } = rankAround(platform, org, s, weights.set);
  return {
    object: 'work_order_ranking',
    livemode: s.livemode,
    mocked: false,
    work_order_id: s.id,
    weight_set: { version: weights.set.version, content_hash: weights.hash, factors: weights.set.factors },
    ranked_at: new Date(platform.clock.now()).toISOString(),
    candidates: ranked,
    excluded: excluded.slice(0, weights.set.excluded_shown),
    excluded_count: excluded.length,
  };
}

async function offerState(platform: Platform, org: string, offerId: string) {
  const s = await platform.system.state<WorkOrderState>(WorkOrder, workOrderIdOfOffer(offerId), org).catch((e: unknown) => {
    if (e instanceof ApiError && e.code === 'not_found') throw new ApiError('not_found', `No offer ${offerId}.`);
    throw e;
  });
  const o = s.offers.find((x) => x.id === offerId);
  if (!o) throw new ApiError('not_found', `No offer ${offerId}.`);
  return { s, o };
}

export async function getOffer(platform: Platform, org: string, offerId: string): Promise<unknown> {
  const { s, o } = await offerState(platform, org, offerId);
  return offerView(s, o);
}

/** Accepting needs a live passport and a current engagement (spec 3: 422 engagement_not_current). */
export async function acceptOffer(platform: Platform, caller: Caller, offerId: string, dedupeId: string | undefined): Promise<unknown> {
  const { o } = await offerState(platform, caller.org, offerId);
  const g = moduleGates(platform);
  const woId = workOrderIdOfOffer(offerId);
  await platform.system.ask(WorkOrder, woId, 'accept', { offer_id: offerId, passport_live: g.isLive(caller.org, o.worker_id), engagement_current: g.isCurrent(caller.org, o.worker_id) }, { ...caller, dedupeId });
  return getOffer(platform, caller.org, offerId);
}

export async function declineOffer(platform: Platform, caller: Caller, offerId: string, reason: string | undefined, dedupeId: string | undefined): Promise<unknown> {
  await offerState(platform, caller.org, offerId);
  await platform.system.ask(WorkOrder, workOrderIdOfOffer(offerId), 'decline', { offer_id: offerId, reason }, { ...caller, dedupeId });
  return getOffer(platform, caller.org, offerId);
}

export async function offersOf(platform: Platform, org: string, id: string): Promise<unknown> {
  const s = await platform.system.state<WorkOrderState>(WorkOrder, id, org);
  return { object: 'list', data: [...s.offers].reverse().map((o) => offerView(s, o)), has_more: false };
}
