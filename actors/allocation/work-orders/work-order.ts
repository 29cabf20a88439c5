/**
 * Work order (spec 3 "Work orders, offers, assignments, exceptions", 4.7; shape a gap,
 * docs/gaps.md#allocation). One actor per work order: where (a point and a geofence radius), what
 * (occupation and required claims), when (a window), how many (headcount), and its cascade. It
 * holds the ranking it was opened with (the candidates, best first) and its offers, so every
 * acceptance is decided by one writer: the headcount can never be overfilled.
 *
 * The cascade: cascade_width offers are pending at a time while the headcount is not filled; each
 * expires by reminder at offer_timeout; a decline, an expiry or a withdrawal offers the next
 * candidate; when the headcount is accepted the remaining offers are withdrawn. A work order that
 * cannot be filled is closed with its reason and declared a supply gap (spec 6). An accepted offer
 * waits for the organisation to make its assignment (the passcodes come with it): until each is
 * noted, the view's next_action says so (docs/gaps.md "next_action").
 *
 * status  command          condition                                    events                                         next
 * ------  ---------------  -------------------------------------------  ---------------------------------------------  ---------
 * (none)  open             candidates                                    work_order.opened, offer.made x wave           open
 * (none)  open             no eligible candidate                         work_order.opened, work_order.unfilled         unfilled
 * open    offer            free slots and candidates left                offer.made x wave                              open
 * open    accept           offer pending; engagement current (else 422)  offer.accepted [+ work_order.filled,            open | filled
 *                          and passport live (else 409)                  offer.withdrawn x rest | offer.made x wave]
 * open    decline          offer pending                                 offer.declined [+ next wave | unfilled]        open | unfilled
 * open    expire_offers    pending offers past expires_at (reminder)     offer.expired x due [+ next wave | unfilled]   open | unfilled
 * open    withdraw_worker  the worker left supply (cascade removal)      offer.withdrawn x theirs [+ next | unfilled]   open | unfilled
 * open    fill             at least one accepted                         work_order.filled, offer.withdrawn x pending   filled
 * open    expire           a person, or the window's end (reminder)     work_order.unfilled (window_passed), withdrawn unfilled
 * open    cancel           -                                             work_order.cancelled, offer.withdrawn x pending cancelled
 * any     note_assignment  offer accepted, no assignment noted yet       offer.assigned                                 (same)
 * any     note_assignment  assignment noted already                      -                                              (same)
 * closed  offer, accept, decline, fill, expire, cancel                  409 conflict
 * closed  expire_offers, withdraw_worker                               -                                              (same)
 */
import { BoundedMap, defineActor, type IndexEntry, iso, sortKeyTime } from '../../../runtime/index.ts';
import { ApiError, assertNever, nextAction, recordView } from '../../../kernel/index.ts';
import { workerActorId } from '../supply/worker.ts';

export const WORK_ORDER_PREFIX = 'match_work_order_';
export const OFFER_PREFIX = 'match_offer_';
export const WORK_ORDER_STATUSES = ['open', 'filled', 'unfilled', 'cancelled'] as const;
export type WorkOrderStatus = (typeof WORK_ORDER_STATUSES)[number];
export const OFFER_STATUSES = ['pending', 'accepted', 'declined', 'expired', 'withdrawn'] as const;
export type OfferStatus = (typeof OFFER_STATUSES)[number];
/** Why a work order closed unfilled: each is a supply gap (spec 6). */
export const GAP_REASONS = ['no_eligible_supply', 'every_offer_declined_or_expired', 'window_passed'] as const;
export type GapReason = (typeof GAP_REASONS)[number];

/**
 * The `pending_worker:` and `offered_worker:` lists of a worker (named by their actor id, derived
 * by a digest): every commit of a work order names the lists of its offered workers, so the names
 * are kept rather than made again on each commit (a worker is offered in up to thousands of work
 * orders).
 */
const workerLists = new BoundedMap<string, { org: string; pending: string; offered: string }>(200_000);
function listsOf(org: string, workerId: string): { pending: string; offered: string } {
  // Keyed by the worker_id alone (the state's own string, its hash kept by V8): no key is built per
  // call. Two organisations sharing a worker_id take turns in the entry; the org check keeps them apart.
  const hit = workerLists.get(workerId);
  if (hit !== undefined && hit.org === org) return hit;
  const actorId = workerActorId(org, workerId);
  const made = { org, pending: `pending_worker:${actorId}`, offered: `offered_worker:${actorId}` };
  workerLists.set(workerId, made);
  return made;
}

export const pendingList = (org: string, workerId: string): string => listsOf(org, workerId).pending;

/** The `offered_worker:` list of a worker: every work order that made them an offer, whatever became of it. */
export const offeredList = (org: string, workerId: string): string => listsOf(org, workerId).offered;

/** An offer's id names its work order: the work order's suffix, then the offer's number. */
export const offerIdOf = (workOrderId: string, n: number) => `${OFFER_PREFIX}${workOrderId.slice(WORK_ORDER_PREFIX.length)}${n}`;
const WO_SUFFIX = 22;
export const workOrderIdOfOffer = (offerId: string) => `${WORK_ORDER_PREFIX}${offerId.slice(OFFER_PREFIX.length, OFFER_PREFIX.length + WO_SUFFIX)}`;

export interface Candidate {
  worker_id: string;
  rank: number;
  score: number;
}

/**
 * The ranking a work order keeps, best first, as two arrays side by side (a candidate's rank is its
 * position + 1): one string and one unboxed number per candidate instead of an object and a boxed
 * score. A work order opened before kept `candidates` (Candidate objects) and still reads.
 */
export interface CandidateList {
  candidate_ids: string[];
  candidate_scores: number[];
}

/** What `open` takes: the ranking as a CandidateList, or as Candidate objects in rank order. */
export type OpenCommand = WorkOrderFacts & { excluded_count: number } & (CandidateList | { candidates: Candidate[] });

type Ranked = CandidateList & { candidates?: Candidate[] };
const candidateCount = (s: Ranked): number => (s.candidates ? s.candidates.length : s.candidate_ids.length);
const candidateId = (s: Ranked, i: number): string => (s.candidates ? s.candidates[i].worker_id : s.candidate_ids[i]);
const candidateRank = (s: Ranked, i: number): number => (s.candidates ? s.candidates[i].rank : i + 1);
const candidateScore = (s: Ranked, i: number): number => (s.candidates ? s.candidates[i].score : s.candidate_scores[i]);

export interface OfferRecord {
  id: string;
  worker_id: string;
  rank: number;
  score: number;
  status: OfferStatus;
  offered_at: number;
  expires_at: number;
  decided_at: number | null;
  reason: string | null;
  /** The assignment made from this offer once accepted (absent on offers recorded before assignments were noted). */
  assignment_id?: string | null;
}

export interface WorkOrderFacts {
  /** The point and its geofence radius (arrival and completion are judged against it). */
  location: { latitude: number; longitude: number; radius_metres: number };
  /** How far from the point candidates are sought (at least the geofence radius). */
  search_radius_metres: number;
  occupation_code: string | null;
  claim_codes: string[];
  licence_required: boolean;
  window: { starts_at: number; ends_at: number };
  headcount: number;
  offer_timeout_seconds: number;
  cascade_width: number;
  weight_set: { version: string; content_hash: string };
  livemode: boolean;
}

export interface WorkOrderState extends WorkOrderFacts {
  id: string;
  org: string;
  status: WorkOrderStatus;
  candidate_ids: string[];
  candidate_scores: number[];
  /** The ranking of a work order opened before CandidateList (read through candidateCount and the like). */
  candidates?: Candidate[];
  excluded_count: number;
  /** Index of the next candidate to offer. */
  next: number;
  /** Workers that left supply: never offered again by this work order. */
  removed: string[];
  offers: OfferRecord[];
  accepted: number;
  closed_reason: string | null;
  created_at: number;
  closed_at: number | null;
}

export type WorkOrderEvent =
  | ({ type: 'work_order.opened'; excluded_count: number } & WorkOrderFacts & (CandidateList | { candidates: Candidate[] }))
  | { type: 'offer.made'; offer_id: string; worker_id: string; rank: number; score: number; expires_at: number }
  | { type: 'offer.accepted'; offer_id: string; worker_id: string }
  | { type: 'offer.declined'; offer_id: string; worker_id: string; reason: string | null }
  | { type: 'offer.expired'; offer_id: string; worker_id: string }
  | { type: 'offer.withdrawn'; offer_id: string; worker_id: string; reason: string }
  | { type: 'offer.assigned'; offer_id: string; assignment_id: string }
  | { type: 'work_order.filled'; accepted: number; by: 'headcount' | 'dispatcher' }
  | { type: 'work_order.unfilled'; reason: GapReason; accepted: number }
  | { type: 'work_order.cancelled'; reason: string | null };

export interface AcceptGates {
  offer_id: string;
  passport_live: boolean;
  engagement_current: boolean;
}

const pendingOf = (s: WorkOrderState) => s.offers.filter((o) => o.status === 'pending');

function closed(s: WorkOrderState, what: string): never {
  throw new ApiError('conflict', `Work order ${s.id} is ${s.status}; it cannot ${what}.`);
}

function offerOf(s: WorkOrderState, offerId: string): OfferRecord {
  const o = s.offers.find((x) => x.id === offerId);
  if (!o) throw new ApiError('not_found', `No offer ${offerId}.`);
  return o;
}

/**
 * The events that keep the cascade moving after `events` (already decided, applied on a copy): the
 * next wave of offers, or the supply gap when nothing is pending and nobody is left to ask.
 */
function cascade(s0: WorkOrderState, events: WorkOrderEvent[], now: number): WorkOrderEvent[] {
  let s = s0;
  for (const e of events) s = evolveWorkOrder(s, e, now);
  if (s.status !== 'open') return events;
  // A wave keeps cascade_width offers pending while the headcount is not filled; the first to
  // accept take the places, and the rest are withdrawn when the last place is taken.
  const pending = pendingOf(s).length;
  const want = s.accepted < s.headcount ? s.cascade_width - pending : 0;
  // Nothing to offer and offers still pending (a withdrawal from a wide wave): the events stand.
  if (want <= 0 && pending > 0) return events;
  const out = [...events];
  let next = s.next;
  let made = 0;
  const asked = new Set(s.offers.map((o) => o.worker_id));
  const count = candidateCount(s);
  while (made < want && next < count) {
    const i = next++;
    const worker = candidateId(s, i);
    if (s.removed.includes(worker) || asked.has(worker)) continue;
    out.push({ type: 'offer.made', offer_id: offerIdOf(s.id, s.offers.length + made), worker_id: worker, rank: candidateRank(s, i), score: candidateScore(s, i), expires_at: now + s.offer_timeout_seconds * 1000 });
    made++;
  }
  if (made === 0 && pendingOf(s).length === 0 && s.accepted < s.headcount && next >= count) {
    // an offer withdrawn because its worker left supply was never declined: with none declined or
    // expired, what ran out is the eligible supply (spec 6 supply gap reasons)
    const refused = s.offers.some((o) => o.status === 'declined' || o.status === 'expired');
    out.push({ type: 'work_order.unfilled', reason: refused ? 'every_offer_declined_or_expired' : 'no_eligible_supply', accepted: s.accepted });
  }
  return out;
}

function withdrawAll(s: WorkOrderState, reason: string): WorkOrderEvent[] {
  return pendingOf(s).map((o) => ({ type: 'offer.withdrawn' as const, offer_id: o.id, worker_id: o.worker_id, reason }));
}

/** The offers with one of them patched (a plain loop: evolve runs on every commit of a cascade). */
function withOffer(offers: OfferRecord[], id: string, patch: Partial<OfferRecord>): OfferRecord[] {
  const out = new Array<OfferRecord>(offers.length);
  for (let i = 0; i < offers.length; i++) out[i] = offers[i].id === id ? { ...offers[i], ...patch } : offers[i];
  return out;
}

function countOffers(offers: readonly OfferRecord[], status: OfferStatus): number {
  let n = 0;
  for (let i = 0; i < offers.length; i++) if (offers[i].status === status) n++;
  return n;
}

function evolveWorkOrder(s: WorkOrderState, e: WorkOrderEvent, at: number): WorkOrderState {
  switch (e.type) {
    case 'work_order.opened': {
      // Field by field (one shape for every work order's state, and no copy of the event's facts
      // made to leave its type out): opening runs on the decide, the commit and the event feed.
      const opened: WorkOrderState = {
        id: s.id, org: s.org, livemode: e.livemode, status: 'open',
        location: e.location, search_radius_metres: e.search_radius_metres, occupation_code: e.occupation_code, claim_codes: e.claim_codes, licence_required: e.licence_required,
        window: e.window, headcount: e.headcount, offer_timeout_seconds: e.offer_timeout_seconds, cascade_width: e.cascade_width, weight_set: e.weight_set,
        candidate_ids: 'candidate_ids' in e ? e.candidate_ids : [], candidate_scores: 'candidate_scores' in e ? e.candidate_scores : [],
        excluded_count: e.excluded_count, next: s.next, removed: s.removed, offers: s.offers, accepted: s.accepted, closed_reason: s.closed_reason, created_at: at, closed_at: s.closed_at,
      };
      if ('candidates' in e) opened.candidates = e.candidates;
      return opened;
    }
    case 'offer.made': {
      let idx = -1;
      for (let i = s.next, n = candidateCount(s); i < n; i++)
        if (candidateId(s, i) === e.worker_id) {
          idx = i;
          break;
        }
      return {
        ...s,
        next: idx >= 0 ? idx + 1 : s.next,
        offers: [...s.offers, { id: e.offer_id, worker_id: e.worker_id, rank: e.rank, score: e.score, status: 'pending', offered_at: at, expires_at: e.expires_at, decided_at: null, reason: null }],
      };
    }
    case 'offer.accepted':
      return { ...s, accepted: s.accepted + 1, offers: withOffer(s.offers, e.offer_id, { status: 'accepted', decided_at: at }) };
    case 'offer.declined':
      return { ...s, offers: withOffer(s.offers, e.offer_id, { status: 'declined', decided_at: at, reason: e.reason }) };
    case 'offer.expired':
      return { ...s, offers: withOffer(s.offers, e.offer_id, { status: 'expired', decided_at: at, reason: 'offer_timeout' }) };
    case 'offer.withdrawn':
      return { ...s, offers: withOffer(s.offers, e.offer_id, { status: 'withdrawn', decided_at: at, reason: e.reason }), removed: e.reason === 'headcount_filled' || e.reason === 'work_order_closed' || s.removed.includes(e.worker_id) ? s.removed : [...s.removed, e.worker_id] };
    case 'offer.assigned':
      return { ...s, offers: withOffer(s.offers, e.offer_id, { assignment_id: e.assignment_id }) };
    case 'work_order.filled':
      return { ...s, status: 'filled', closed_reason: e.by === 'headcount' ? 'headcount_filled' : 'filled_by_dispatcher', closed_at: at };
    case 'work_order.unfilled':
      return { ...s, status: 'unfilled', closed_reason: e.reason, closed_at: at };
    case 'work_order.cancelled':
      return { ...s, status: 'cancelled', closed_reason: e.reason ?? 'cancelled', closed_at: at };
    default:
      return assertNever(e);
  }
}

export const offerView = (s: WorkOrderState, o: OfferRecord) => (recordView('offer', o.id, s.livemode, false, {
  work_order_id: s.id,
  worker_id: o.worker_id,
  status: o.status,
  rank: o.rank,
  score: o.score,
  offered_at: iso(o.offered_at),
  expires_at: iso(o.expires_at),
  decided_at: o.decided_at === null ? null : iso(o.decided_at),
  reason: o.reason,
}));

/**
 * What the work order waits for that it cannot do itself (docs/gaps.md "next_action"): an accepted
 * offer's assignment, which the organisation makes (its passcodes are shown only then). Pending
 * offers move on by themselves (an answer or the clock), and a closed work order with every
 * acceptance assigned waits for nothing.
 */
function workOrderNextAction(s: WorkOrderState) {
  const unassigned = s.offers.filter((o) => o.status === 'accepted' && !o.assignment_id).map((o) => o.id);
  if (!unassigned.length) return null;
  return nextAction(
    'create_assignment',
    `${unassigned.length} accepted offer${unassigned.length === 1 ? ' has' : 's have'} no assignment yet: make one for each with POST /v1/allocation/assignments {offer_id}; its start and completion passcodes come with it.`,
    { method: 'POST', path: '/v1/allocation/assignments' },
    { offer_ids: unassigned },
  );
}

/** The payload of the work order's timers: one object every reminder of theirs keeps. */
const BY_CLOCK = Object.freeze({ by_clock: true });

/** A work order's modes (its view's livemode, and mocked: never). */
const LIVE = Object.freeze({ livemode: true, mocked: false });
const TEST = Object.freeze({ livemode: false, mocked: false });

export const WorkOrder = defineActor({
  kind: 'allocation_work_order',
  prefix: WORK_ORDER_PREFIX,
  creates: ['open', 'withdraw_worker'],
  initial: (id: string, org: string): WorkOrderState => ({
    id, org, livemode: false, status: 'open',
    location: { latitude: 0, longitude: 0, radius_metres: 0 }, search_radius_metres: 0, occupation_code: null, claim_codes: [], licence_required: false,
    window: { starts_at: 0, ends_at: 0 }, headcount: 1, offer_timeout_seconds: 0, cascade_width: 1, weight_set: { version: '', content_hash: '' },
    candidate_ids: [], candidate_scores: [], excluded_count: 0, next: 0, removed: [], offers: [], accepted: 0, closed_reason: null, created_at: 0, closed_at: null,
  }),
  decide: {
    open(s: WorkOrderState, cmd: OpenCommand, ctx): WorkOrderEvent[] {
      if (ctx.version > 0) return [];
      // Field by field: one shape for every opening the journal keeps (a spread after `type` grew
      // each one an out-of-object property array).
      const list = 'candidates' in cmd ? { candidate_ids: cmd.candidates.map((c) => c.worker_id), candidate_scores: cmd.candidates.map((c) => c.score) } : cmd;
      const opened: WorkOrderEvent = {
        type: 'work_order.opened',
        location: cmd.location, search_radius_metres: cmd.search_radius_metres, occupation_code: cmd.occupation_code, claim_codes: cmd.claim_codes, licence_required: cmd.licence_required,
        window: cmd.window, headcount: cmd.headcount, offer_timeout_seconds: cmd.offer_timeout_seconds, cascade_width: cmd.cascade_width, weight_set: cmd.weight_set, livemode: cmd.livemode,
        candidate_ids: list.candidate_ids, candidate_scores: list.candidate_scores, excluded_count: cmd.excluded_count,
      };
      return cascade({ ...s, id: ctx.id }, [opened], ctx.now);
    },
    offer(s: WorkOrderState, _cmd: unknown, ctx): WorkOrderEvent[] {
      if (s.status !== 'open') closed(s, 'offer');
      return cascade(s, [], ctx.now);
    },
    accept(s: WorkOrderState, cmd: AcceptGates, ctx): WorkOrderEvent[] {
      const o = offerOf(s, cmd.offer_id);
      if (o.status === 'accepted') return [];
      if (o.status !== 'pending' || s.status !== 'open') throw new ApiError('conflict', `Offer ${o.id} is ${o.status}${s.status !== 'open' ? ` and its work order is ${s.status}` : ''}; only a pending offer can be accepted.`);
      if (!cmd.engagement_current) throw new ApiError('engagement_not_current', `Worker ${o.worker_id} has no engagement with this organisation that is executed and current.`);
      if (!cmd.passport_live) throw new ApiError('conflict', `Worker ${o.worker_id} holds no live passport; the offer cannot be accepted.`);
      const accepted: WorkOrderEvent = { type: 'offer.accepted', offer_id: o.id, worker_id: o.worker_id };
      if (s.accepted + 1 >= s.headcount) {
        const after = evolveWorkOrder(s, accepted, ctx.now);
        return [accepted, { type: 'work_order.filled', accepted: s.headcount, by: 'headcount' }, ...withdrawAll(after, 'headcount_filled')];
      }
      return cascade(s, [accepted], ctx.now);
    },
    decline(s: WorkOrderState, cmd: { offer_id: string; reason?: string }, ctx): WorkOrderEvent[] {
      const o = offerOf(s, cmd.offer_id);
      if (o.status === 'declined') return [];
      if (o.status !== 'pending' || s.status !== 'open') throw new ApiError('conflict', `Offer ${o.id} is ${o.status}; only a pending offer can be declined.`);
      return cascade(s, [{ type: 'offer.declined', offer_id: o.id, worker_id: o.worker_id, reason: cmd.reason ?? null }], ctx.now);
    },
    expire_offers(s: WorkOrderState, _cmd: unknown, ctx): WorkOrderEvent[] {
      if (s.status !== 'open') return [];
      const due = pendingOf(s).filter((o) => o.expires_at <= ctx.now);
      if (!due.length) return [];
      return cascade(s, due.map((o) => ({ type: 'offer.expired' as const, offer_id: o.id, worker_id: o.worker_id })), ctx.now);
    },
    withdraw_worker(s: WorkOrderState, cmd: { worker_id: string; reason: string; occupation_code?: string }, ctx): WorkOrderEvent[] {
      if (ctx.version === 0 || s.status !== 'open') return [];
      // A lapsed licence removes the worker only from work that needs that licence.
      if (cmd.occupation_code !== undefined && (cmd.occupation_code !== s.occupation_code || !s.licence_required)) return [];
      const theirs = pendingOf(s).filter((o) => o.worker_id === cmd.worker_id);
      if (!theirs.length) return [];
      return cascade(s, theirs.map((o) => ({ type: 'offer.withdrawn' as const, offer_id: o.id, worker_id: o.worker_id, reason: cmd.reason })), ctx.now);
    },
    note_assignment(s: WorkOrderState, cmd: { offer_id: string; assignment_id: string }): WorkOrderEvent[] {
      const o = offerOf(s, cmd.offer_id);
      if (o.status !== 'accepted') throw new ApiError('conflict', `Offer ${o.id} is ${o.status}; an assignment is made from an accepted offer.`);
      return o.assignment_id ? [] : [{ type: 'offer.assigned', offer_id: o.id, assignment_id: cmd.assignment_id }];
    },
    fill(s: WorkOrderState): WorkOrderEvent[] {
      if (s.status !== 'open') closed(s, 'be filled');
      if (s.accepted === 0) throw new ApiError('conflict', `Work order ${s.id} has no accepted offer; it cannot be marked filled.`);
      return [{ type: 'work_order.filled', accepted: s.accepted, by: 'dispatcher' }, ...withdrawAll(s, 'work_order_closed')];
    },
    expire(s: WorkOrderState, cmd: { by_clock?: boolean }, ctx): WorkOrderEvent[] {
      if (s.status !== 'open') {
        if (cmd?.by_clock) return [];
        closed(s, 'expire');
      }
      if (cmd?.by_clock && ctx.now < s.window.ends_at) return [];
      return [{ type: 'work_order.unfilled', reason: 'window_passed', accepted: s.accepted }, ...withdrawAll(s, 'work_order_closed')];
    },
    cancel(s: WorkOrderState, cmd: { reason?: string }): WorkOrderEvent[] {
      if (s.status !== 'open') closed(s, 'be cancelled');
      return [{ type: 'work_order.cancelled', reason: cmd?.reason ?? null }, ...withdrawAll(s, 'work_order_closed')];
    },
  },
  evolve: (s: WorkOrderState, e: WorkOrderEvent, meta) => evolveWorkOrder(s, e, meta.at),
  view: (s: WorkOrderState) => {
    return recordView('work_order', s.id, s.livemode, false, {
      status: s.status,
      location: s.location,
      search_radius_metres: s.search_radius_metres,
      occupation_code: s.occupation_code,
      claim_codes: s.claim_codes,
      licence_required: s.licence_required,
      window: { starts_at: iso(s.window.starts_at), ends_at: iso(s.window.ends_at) },
      headcount: s.headcount,
      accepted_count: s.accepted,
      offer_timeout_seconds: s.offer_timeout_seconds,
      cascade_width: s.cascade_width,
      cascade: { candidates: candidateCount(s), excluded_near: s.excluded_count, offered: s.offers.length, pending: countOffers(s.offers, 'pending'), accepted: countOffers(s.offers, 'accepted'), declined: countOffers(s.offers, 'declined'), expired: countOffers(s.offers, 'expired'), withdrawn: countOffers(s.offers, 'withdrawn') },
      weight_set: s.weight_set,
      closed_reason: s.closed_reason,
      supply_gap: s.status === 'unfilled' ? { reason: s.closed_reason } : null,
      next_action: workOrderNextAction(s),
      created_at: iso(s.created_at),
      closed_at: s.closed_at === null ? null : iso(s.closed_at),
    });
  },
  modes: (s: WorkOrderState) => (s.livemode ? LIVE : TEST),
  timers(s: WorkOrderState) {
    if (s.status !== 'open') return [];
    const pending = pendingOf(s);
    const wishes = [{ name: 'window', dueAt: s.window.ends_at, command: 'expire', payload: BY_CLOCK }];
    if (pending.length) wishes.push({ name: 'offers', dueAt: Math.min(...pending.map((o) => o.expires_at)), command: 'expire_offers', payload: BY_CLOCK });
    return wishes;
  },
  indexes(s: WorkOrderState): IndexEntry[] {
    const k = sortKeyTime(s.created_at);
    const lists: IndexEntry[] = [
      { list: 'all', sortKey: k },
      { list: `status:${s.status}`, sortKey: k },
    ];
    // Cascade removal finds a worker's live cascades here (spec 6), without scanning work orders.
    for (const w of new Set(pendingOf(s).map((o) => o.worker_id))) lists.push({ list: pendingList(s.org, w), sortKey: k });
    // A worker's own offers, whatever their status (GET /v1/allocation/offers, docs/gaps.md#allocation).
    for (const o of s.offers) lists.push({ list: offeredList(s.org, o.worker_id), sortKey: k });
    return lists;
  },
});
