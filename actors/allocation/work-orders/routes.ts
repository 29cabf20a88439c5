/**
 * Work order and offer routes (spec 4.7: "work orders (open, GET ranking at
 * .../work_orders/{work_order_id}/ranking, offers, POST .../offer, .../fill, .../expire,
 * .../cancel); offers (GET /v1/allocation/offers/{offer_id}, POST .../accept, .../decline)").
 * Request and response shapes are not shown: docs/gaps.md#allocation.
 */
import { type TSchema, Type } from '@sinclair/typebox';
import { callerOf, createDedupe, createdId, idOf, listPage, listQueryWith, route, type RouteDef } from '../../../kernel/index.ts';
import { acceptOffer, declineOffer, getOffer, offersOf, openWorkOrder, rankingOf, workOrderStep } from './work-orders.ts';
import { OFFER_PREFIX, WORK_ORDER_PREFIX, WORK_ORDER_STATUSES, WorkOrder } from './work-order.ts';
import { Assignment, ASSIGNMENT_PREFIX, ASSIGNMENT_STATUSES, assignmentIdOfException, EXCEPTION_PREFIX } from '../assignments/assignment.ts';
import { adjudicateException, assignmentCommand, assignmentStep, createAssignment, exceptionOf, proofOf } from '../assignments/assignments.ts';

const M = 'match';
const gap = 'Request and response shapes of work orders and offers are not shown; see docs/gaps.md#allocation.';
const woId = (id: string) => idOf(id, WORK_ORDER_PREFIX, 'work order');
const offerId = (id: string) => idOf(id, OFFER_PREFIX, 'offer');

const OpenBody = Type.Object(
  {
    location: Type.Object({ latitude: Type.Number({ minimum: -90, maximum: 90 }), longitude: Type.Number({ minimum: -180, maximum: 180 }), radius_metres: Type.Number({ exclusiveMinimum: 0, description: 'The geofence radius around the point.' }) }, { additionalProperties: false }),
    search_radius_metres: Type.Optional(Type.Number({ exclusiveMinimum: 0, description: 'How far from the point candidates are sought; default the weight set\u2019s, at least the geofence radius.' })),
    occupation_code: Type.Optional(Type.String({ minLength: 1, maxLength: 32, description: 'e.g. ng-7412; a licence requirement follows from it.' })),
    claim_codes: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 50, uniqueItems: true })),
    window: Type.Object({ starts_at: Type.String({ format: 'date-time' }), ends_at: Type.String({ format: 'date-time' }) }, { additionalProperties: false }),
    headcount: Type.Integer({ minimum: 1 }),
    offer_timeout_seconds: Type.Optional(Type.Integer({ minimum: 10, maximum: 86_400 })),
    cascade_width: Type.Optional(Type.Integer({ minimum: 1, maximum: 50 })),
  },
  { additionalProperties: false },
);

const ListQuery = listQueryWith({ status: Type.Optional(Type.Union(WORK_ORDER_STATUSES.map((s) => Type.Literal(s)))) });
const Reason = Type.Object({ reason: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })) }, { additionalProperties: false });

const action = (op: 'offer' | 'fill' | 'expire' | 'cancel', summary: string) =>
  route({ method: 'POST', path: `/v1/allocation/work_orders/{work_order_id}/${op}`, auth: 'key', module: M, idempotent: true, body: Type.Optional(Reason), specGap: gap, summary,
    handler: (req) => workOrderStep(req.platform, callerOf(req), woId(req.params.work_order_id!), op, req.body?.reason, createDedupe(req)) });

const asgId = (id: string) => idOf(id, ASSIGNMENT_PREFIX, 'assignment');
const excId = (id: string) => assignmentIdOfException(idOf(id, EXCEPTION_PREFIX, 'exception'));
const agap = 'Request and response shapes of assignments, proofs and exceptions are not shown; see docs/gaps.md#allocation.';
const Passcode = Type.Object({ passcode: Type.String({ minLength: 1, maxLength: 32, description: 'The start passcode (arrival) or the completion passcode (completion) the site holds.' }) }, { additionalProperties: false });
const AsgListQuery = listQueryWith({ status: Type.Optional(Type.Union(ASSIGNMENT_STATUSES.map((s) => Type.Literal(s)))) });
const Adjudicate = Type.Object(
  { outcome: Type.Union([Type.Literal('upheld'), Type.Literal('dismissed')]), reason: Type.String({ minLength: 1, maxLength: 1000 }), accepted_signals: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 20 })) },
  { additionalProperties: false },
);

/** Arrival and completion each have two names in spec 4.7 (arrive / arrival, complete / completion): one step, two paths. */
const step = (path: string, op: 'arrive' | 'complete', summary: string) =>
  route({ method: 'POST', path: `/v1/allocation/assignments/{assignment_id}/${path}`, auth: 'key', module: M, idempotent: true, body: Passcode, specGap: agap, summary,
    handler: (req) => assignmentStep(req.platform, callerOf(req), asgId(req.params.assignment_id!), op, req.body.passcode, createDedupe(req)) });
const simple = (op: 'start' | 'depart' | 'cancel' | 'raise_exception', summary: string, body: TSchema = Type.Optional(Reason)) =>
  route({ method: 'POST', path: `/v1/allocation/assignments/{assignment_id}/${op}`, auth: 'key', module: M, idempotent: true, body, specGap: agap, summary,
    handler: (req) => assignmentCommand(req.platform, callerOf(req), asgId(req.params.assignment_id!), op, req.body ?? {}, createDedupe(req)) });

export const dispatchRoutes: RouteDef[] = [
  route({ method: 'POST', path: '/v1/allocation/work_orders', auth: 'key', module: M, idempotent: true, status: 201, body: OpenBody, specGap: gap,
    summary: 'Open a work order: ranked over the supply map near the point, offered down a cascade until the headcount accepts.',
    handler: (req) => openWorkOrder(req.platform, callerOf(req), createdId(req, WORK_ORDER_PREFIX), req.body, createDedupe(req)) }),
  route({ method: 'GET', path: '/v1/allocation/work_orders', auth: 'key', module: M, idempotent: false, query: ListQuery, specGap: gap,
    summary: 'List work orders, newest first; filter status.', handler: (req) => listPage(req.platform.system, WorkOrder, req.org, req.query.status ? `status:${req.query.status}` : 'all', req.query, 'desc') }),
  route({ method: 'GET', path: '/v1/allocation/work_orders/{work_order_id}', auth: 'key', module: M, idempotent: false, specGap: gap,
    summary: 'Retrieve a work order with its cascade counts.', handler: (req) => req.platform.system.get(WorkOrder, woId(req.params.work_order_id!), req.org) }),
  route({ method: 'GET', path: '/v1/allocation/work_orders/{work_order_id}/ranking', auth: 'key', module: M, idempotent: false, specGap: gap,
    summary: 'The ranking around the work order now: every candidate\u2019s score per factor, and the gate that excluded each worker near the point.',
    handler: (req) => rankingOf(req.platform, req.org, woId(req.params.work_order_id!)) }),
  route({ method: 'GET', path: '/v1/allocation/work_orders/{work_order_id}/offers', auth: 'key', module: M, idempotent: false, specGap: gap,
    summary: 'The work order\u2019s offers, newest first.', handler: (req) => offersOf(req.platform, req.org, woId(req.params.work_order_id!)) }),
  action('offer', 'Offer the next wave of the cascade now (free slots and candidates left).'),
  action('fill', 'Close the work order as filled with the offers accepted so far; pending offers are withdrawn.'),
  action('expire', 'Close the work order unfilled (window_passed): a supply gap; pending offers are withdrawn.'),
  action('cancel', 'Cancel the work order; pending offers are withdrawn.'),
  route({ method: 'GET', path: '/v1/allocation/offers/{offer_id}', auth: 'key', module: M, idempotent: false, specGap: gap,
    summary: 'Retrieve an offer.', handler: (req) => getOffer(req.platform, req.org, offerId(req.params.offer_id!)) }),
  route({ method: 'POST', path: '/v1/allocation/offers/{offer_id}/accept', auth: 'key', module: M, idempotent: true, specGap: gap,
    summary: 'Accept a pending offer: needs a live passport and an engagement executed and current (422 engagement_not_current).',
    handler: (req) => acceptOffer(req.platform, callerOf(req), offerId(req.params.offer_id!), createDedupe(req)) }),
  route({ method: 'POST', path: '/v1/allocation/offers/{offer_id}/decline', auth: 'key', module: M, idempotent: true, body: Type.Optional(Reason), specGap: gap,
    summary: 'Decline a pending offer; the cascade offers the next candidate.',
    handler: (req) => declineOffer(req.platform, callerOf(req), offerId(req.params.offer_id!), req.body?.reason, createDedupe(req)) }),
  route({ method: 'POST', path: '/v1/allocation/assignments', auth: 'key', module: M, idempotent: true, status: 201, body: Type.Object({ offer_id: Type.String({ minLength: 1, maxLength: 255 }) }, { additionalProperties: false }), specGap: agap,
    summary: 'Make the assignment of an accepted offer; its start and completion passcodes are in this answer only.',
    handler: (req) => createAssignment(req.platform, callerOf(req), offerId(req.body.offer_id), createDedupe(req)) }),
  route({ method: 'GET', path: '/v1/allocation/assignments', auth: 'key', module: M, idempotent: false, query: AsgListQuery, specGap: agap,
    summary: 'List assignments, newest first; filter status.', handler: (req) => listPage(req.platform.system, Assignment, req.org, req.query.status ? `status:${req.query.status}` : 'all', req.query, 'desc') }),
  route({ method: 'GET', path: '/v1/allocation/assignments/{assignment_id}', auth: 'key', module: M, idempotent: false, specGap: agap,
    summary: 'Retrieve an assignment (passcodes are never returned after issue).', handler: (req) => req.platform.system.get(Assignment, asgId(req.params.assignment_id!), req.org) }),
  simple('start', 'The worker sets off for the site.'),
  step('arrive', 'arrive', 'Arrival: the start passcode, corroborated by a geofence entry in the worker\u2019s readings (422 engagement_not_current when standing is not current).'),
  step('arrival', 'arrive', 'Arrival (the same step as .../arrive).'),
  simple('depart', 'The worker leaves the site after arriving.'),
  step('complete', 'complete', 'Completion: the completion passcode, dwell inside the geofence and telemetry continuity; disagreeing signals send it to an exception (422 engagement_not_current).'),
  step('completion', 'complete', 'Completion (the same step as .../complete).'),
  simple('cancel', 'Cancel an assignment not yet arrived.'),
  simple('raise_exception', 'A person raises an exception on an assignment under way.', Type.Object({ reason: Type.String({ minLength: 1, maxLength: 1000 }) }, { additionalProperties: false })),
  route({ method: 'GET', path: '/v1/allocation/assignments/{assignment_id}/proof', auth: 'key', module: M, idempotent: false, specGap: agap,
    summary: 'The proof bundle: readings used, geofence crossings, dwell, continuity, passcode checks as digests, and its sha256 seal.',
    handler: (req) => proofOf(req.platform, req.org, asgId(req.params.assignment_id!)) }),
  route({ method: 'GET', path: '/v1/allocation/exceptions', auth: 'key', module: M, idempotent: false, query: listQueryWith({}), specGap: agap,
    summary: 'Open exceptions, newest first (the assignments waiting for a person).',
    handler: async (req) => {
      const page = (await listPage(req.platform.system, Assignment, req.org, 'exceptions:open', req.query, 'desc')) as { data: { exception_id: string }[]; has_more: boolean };
      return { object: 'list', data: await Promise.all(page.data.map((a) => exceptionOf(req.platform, req.org, assignmentIdOfException(a.exception_id)))), has_more: page.has_more };
    } }),
  route({ method: 'GET', path: '/v1/allocation/exceptions/{exception_id}', auth: 'key', module: M, idempotent: false, specGap: agap,
    summary: 'Retrieve an exception with its conflicting signals and decision.', handler: (req) => exceptionOf(req.platform, req.org, excId(req.params.exception_id!)) }),
  route({ method: 'POST', path: '/v1/allocation/exceptions/{exception_id}/adjudicate', auth: 'key', module: M, idempotent: true, body: Adjudicate,
    summary: 'A person decides an exception: upheld seals the proof, dismissed closes the assignment without one; accepted_signals name entries of conflicting_signals.',
    handler: async (req) => adjudicateException(req.platform, callerOf(req), excId(req.params.exception_id!), req.body, createDedupe(req)) }),
];
