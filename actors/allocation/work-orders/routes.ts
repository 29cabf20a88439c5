/**
 * Work order and offer routes (spec 4.7: "work orders (open, GET ranking at
 * .../work_orders/{work_order_id}/ranking, offers, POST .../offer, .../fill, .../expire,
 * .../cancel); offers (GET /v1/allocation/offers/{offer_id}, POST .../accept, .../decline)").
 * Request and response shapes are not shown: docs/gaps.md#allocation.
 */
import { Type } from '@sinclair/typebox';
import { callerOf, callerRef, createDedupe, createdId, enumOf, errorEntry, idOf, listPage, listQueryWith, route, type RouteDef, validationError } from '../../../kernel/index.ts';
import { acceptOffer, declineOffer, getOffer, offersOf, openWorkOrder, rankingOf, workerOffers, workOrderStep } from './work-orders.ts';
import { OFFER_PREFIX, OFFER_STATUSES, WORK_ORDER_PREFIX, WORK_ORDER_STATUSES, WorkOrder } from './work-order.ts';

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

const ListQuery = listQueryWith({ status: Type.Optional(enumOf(WORK_ORDER_STATUSES)) });
const OfferListQuery = listQueryWith({
  status: Type.Optional(enumOf(OFFER_STATUSES)),
  worker_id: Type.Optional(callerRef('Whose offers: required with an organisation key; a device credential lists its own worker\u2019s.')),
});
/** The worker whose offers are listed: a device's own (device-access checks a worker_id given), else the query's. */
function offersWorker(req: { principal?: { kind: string; worker?: string }; query: { worker_id?: string } }): string {
  if (req.principal?.kind === 'device' && req.principal.worker) return req.principal.worker;
  if (req.query.worker_id) return req.query.worker_id;
  throw validationError([errorEntry('/worker_id', 'required', 'worker_id is required with an organisation key: whose offers to list.')]);
}
const Reason = Type.Object({ reason: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })) }, { additionalProperties: false });

const action = (op: 'offer' | 'fill' | 'expire' | 'cancel', summary: string) =>
  route({ method: 'POST', path: `/v1/allocation/work_orders/{work_order_id}/${op}`, auth: 'key', module: M, idempotent: true, body: Type.Optional(Reason), specGap: gap, summary,
    handler: (req) => workOrderStep(req.platform, callerOf(req), woId(req.params.work_order_id!), op, req.body?.reason, createDedupe(req)) });

export const workOrderRoutes: RouteDef[] = [
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
  route({ method: 'GET', path: '/v1/allocation/offers', auth: 'key', module: M, idempotent: false, query: OfferListQuery, specGap: gap,
    summary: 'One worker\u2019s offers, newest first; filter status (pending: those waiting for an answer). With a device credential, only its worker\u2019s.',
    handler: (req) => workerOffers(req.platform, req.org, offersWorker(req), req.query.status, req.query) }),
  route({ method: 'GET', path: '/v1/allocation/offers/{offer_id}', auth: 'key', module: M, idempotent: false, specGap: gap,
    summary: 'Retrieve an offer.', handler: (req) => getOffer(req.platform, req.org, offerId(req.params.offer_id!)) }),
  route({ method: 'POST', path: '/v1/allocation/offers/{offer_id}/accept', auth: 'key', module: M, idempotent: true, specGap: gap,
    summary: 'Accept a pending offer: needs a live passport and an engagement executed and current (422 engagement_not_current).',
    handler: (req) => acceptOffer(req.platform, callerOf(req), offerId(req.params.offer_id!), createDedupe(req)) }),
  route({ method: 'POST', path: '/v1/allocation/offers/{offer_id}/decline', auth: 'key', module: M, idempotent: true, body: Type.Optional(Reason), specGap: gap,
    summary: 'Decline a pending offer; the cascade offers the next candidate.',
    handler: (req) => declineOffer(req.platform, callerOf(req), offerId(req.params.offer_id!), req.body?.reason, createDedupe(req)) }),
];
