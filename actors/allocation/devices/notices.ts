/**
 * What a worker's devices are told (docs/gaps.md#allocation "Offers to the device"): the notice
 * each committed work-order or assignment event of theirs makes, derived from the event and the
 * record's facts that never change (where, when, the ids), so the same event gives the same notice
 * on whichever node and at whatever time it is derived. Pure; device-feed.ts brings the notices to
 * the inboxes and the inboxes' notices to the devices.
 *
 * event (kind)                                   notice type                  carries
 * ---------------------------------------------  ---------------------------  ---------------------------------
 * offer.made (work order)                        offer.made                   offer (pending, expires_at), work order
 * offer.accepted                                 offer.accepted               offer, work order
 * offer.declined                                 offer.declined               offer (reason), work order
 * offer.expired                                  offer.expired                offer, work order
 * offer.withdrawn, reason headcount_filled       offer.accepted_elsewhere     offer, work order
 * offer.withdrawn, any other reason              offer.withdrawn              offer (reason), work order
 * assignment.cancelled (assignment)              assignment.cancelled         assignment (reason)
 * any other assignment event                     assignment.changed           assignment (its status after it)
 */
import { iso } from '../../../runtime/index.ts';
import { recordView } from '../../../kernel/index.ts';
import type { StoredEvent } from '../../../stores/index.ts';
import type { AssignmentState, AssignmentStatus } from '../assignments/assignment.ts';
import type { OfferStatus, WorkOrderEvent, WorkOrderState } from '../work-orders/work-order.ts';

export const NOTICE_TYPES = [
  'offer.made', 'offer.accepted', 'offer.declined', 'offer.expired', 'offer.withdrawn', 'offer.accepted_elsewhere',
  'assignment.changed', 'assignment.cancelled',
] as const;
export type NoticeType = (typeof NOTICE_TYPES)[number];

/** The offer as a device reads it: the fields of GET /v1/allocation/offers/{id} at the event. */
export interface OfferNotice {
  id: string;
  object: 'offer';
  livemode: boolean;
  mocked: false;
  work_order_id: string;
  worker_id: string;
  status: OfferStatus;
  rank: number | null;
  score: number | null;
  offered_at: string | null;
  expires_at: string | null;
  decided_at: string | null;
  reason: string | null;
}

export interface AssignmentNotice {
  id: string;
  object: 'assignment';
  work_order_id: string;
  offer_id: string;
  worker_id: string;
  status: AssignmentStatus;
  location: { latitude: number; longitude: number; radius_metres: number };
  reason: string | null;
}

/** What a notice says, before its inbox numbers it. */
export interface NoticeBody {
  type: NoticeType;
  occurred_at: string;
  offer?: OfferNotice;
  work_order?: { id: string; location: WorkOrderState['location']; window: { starts_at: string; ends_at: string }; occupation_code: string | null };
  assignment?: AssignmentNotice;
}

/** A recorded notice: the frame a device receives (with `type` and `sequence` first). */
export interface Notice extends NoticeBody {
  sequence: number;
  worker_id: string;
  event_id: string;
}

export interface Derived {
  org: string;
  worker_id: string;
  event_id: string;
  body: NoticeBody;
}

const ASSIGNMENT_STATUS_AFTER: Record<string, AssignmentStatus> = {
  'assignment.created': 'assigned',
  'assignment.started': 'started',
  'assignment.arrived': 'arrived',
  'assignment.departed': 'departed',
  'assignment.completed': 'completed',
  'assignment.exception_raised': 'exception',
  'assignment.cancelled': 'cancelled',
  'assignment.closed': 'closed',
};

/** The notice a work order's event makes for its worker, if any (the opening and closing events make none of their own). */
export function workOrderNotice(s: WorkOrderState, e: StoredEvent): Derived | undefined {
  // The runtime stores the decided event whole, its type with it (runtime/turns.ts); a copy only
  // for data stored without it.
  const data = e.data as WorkOrderEvent;
  const ev = data.type === e.type ? data : ({ ...data, type: e.type } as WorkOrderEvent);
  const at = iso(e.at);
  let type: NoticeType;
  let status: OfferStatus;
  let reason: string | null = null;
  switch (ev.type) {
    case 'offer.made':
      [type, status] = ['offer.made', 'pending'];
      break;
    case 'offer.accepted':
      [type, status] = ['offer.accepted', 'accepted'];
      break;
    case 'offer.declined':
      [type, status, reason] = ['offer.declined', 'declined', ev.reason];
      break;
    case 'offer.expired':
      [type, status, reason] = ['offer.expired', 'expired', 'offer_timeout'];
      break;
    case 'offer.withdrawn':
      [type, status, reason] = [ev.reason === 'headcount_filled' ? 'offer.accepted_elsewhere' : 'offer.withdrawn', 'withdrawn', ev.reason];
      break;
    case 'offer.assigned':
    case 'work_order.opened':
    case 'work_order.filled':
    case 'work_order.unfilled':
    case 'work_order.cancelled':
      return undefined;
    default:
      return undefined;
  }
  // The record's own offer gives rank, score and times; the event's figures where the record moved on.
  const held = s.offers.find((o) => o.id === ev.offer_id);
  const made = ev.type === 'offer.made' ? ev : undefined;
  const offer: OfferNotice = recordView('offer', ev.offer_id, s.livemode, false, {
    work_order_id: s.id,
    worker_id: ev.worker_id,
    status,
    rank: made?.rank ?? held?.rank ?? null,
    score: made?.score ?? held?.score ?? null,
    offered_at: made ? at : held ? iso(held.offered_at) : null,
    expires_at: made ? iso(made.expires_at) : held ? iso(held.expires_at) : null,
    decided_at: made ? null : at,
    reason,
  });
  return { org: e.org, worker_id: ev.worker_id, event_id: e.id, body: { type, occurred_at: at, offer, work_order: workOrderPart(s) } };
}

type WorkOrderPart = NonNullable<NoticeBody['work_order']>;
/**
 * The work order as its notices show it, one object for every notice of the work order: each
 * offer it makes, withdraws or sees decided carries the same facts, which never change. Kept by
 * the state's window (one object from the opening event on, so while the work order is active).
 */
const workOrderParts = new WeakMap<WorkOrderState['window'], WorkOrderPart>();

function workOrderPart(s: WorkOrderState): WorkOrderPart {
  const kept = workOrderParts.get(s.window);
  if (kept !== undefined && kept.id === s.id && kept.location === s.location && kept.occupation_code === s.occupation_code) return kept;
  const part = { id: s.id, location: s.location, window: { starts_at: iso(s.window.starts_at), ends_at: iso(s.window.ends_at) }, occupation_code: s.occupation_code };
  workOrderParts.set(s.window, part);
  return part;
}

/** The notice an assignment's event makes for its worker. */
export function assignmentNotice(s: AssignmentState, e: StoredEvent): Derived | undefined {
  const status = ASSIGNMENT_STATUS_AFTER[e.type];
  if (!status || !s.worker_id) return undefined;
  const reason = e.type === 'assignment.cancelled' ? String((e.data as { reason?: unknown }).reason ?? '') || null : null;
  const assignment: AssignmentNotice = { id: s.id, object: 'assignment', work_order_id: s.work_order_id, offer_id: s.offer_id, worker_id: s.worker_id, status, location: s.location, reason };
  return { org: e.org, worker_id: s.worker_id, event_id: e.id, body: { type: status === 'cancelled' ? 'assignment.cancelled' : 'assignment.changed', occurred_at: iso(e.at), assignment } };
}
