/**
 * Work order and offer operations (spec 3 "Work orders, offers, assignments, exceptions", 4.7):
 * opening a work order over its ranked candidates (candidates.ts), its explained ranking, its
 * steps, and the offers' acceptance. The work order actor then runs the cascade.
 */
import { ApiError, type Caller, errorEntry, hasPrefix, type Platform, type ValidationEntry, validationError } from '../../../kernel/index.ts';
import { credentialEligibility } from '../../credentials/index.ts';
import { moduleGates, rankAround, rankForOpen, rankingSources } from './candidates.ts';
import { ACTIVE_WEIGHTS, weightsVersion } from './weights.ts';
import { type CandidateList, OFFER_PREFIX, offeredList, type OfferStatus, offerView, type OpenCommand, pendingList, WorkOrder, workOrderIdOfOffer, type WorkOrderState } from './work-order.ts';
import { workerPage } from '../lists.ts';

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
  const s = await platform.system.state(WorkOrder, id, org);
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
  const s = await platform.system.state(WorkOrder, workOrderIdOfOffer(offerId), org).catch((e: unknown) => {
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
  const s = await platform.system.state(WorkOrder, id, org);
  return { object: 'list', data: [...s.offers].reverse().map((o) => offerView(s, o)), has_more: false };
}

/**
 * GET /v1/allocation/offers: one worker's offers, newest first (a work order offers a worker once),
 * filtered by status; pending ones read off the `pending_worker:` list, the rest off `offered_worker:`.
 */
export function workerOffers(platform: Platform, org: string, workerId: string, status: OfferStatus | undefined, query: { limit?: number; starting_after?: string }): Promise<unknown> {
  const list = status === 'pending' ? pendingList(org, workerId) : offeredList(org, workerId);
  return workerPage(platform, WorkOrder, org, list, query, (id) => (hasPrefix(id, OFFER_PREFIX) ? workOrderIdOfOffer(id) : undefined), (s: WorkOrderState) => {
    const o = s.offers.find((x) => x.worker_id === workerId && (status === undefined || x.status === status));
    return o ? offerView(s, o) : undefined;
  });
}
