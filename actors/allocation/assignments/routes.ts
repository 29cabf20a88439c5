/**
 * Assignment and exception routes (spec 4.7: "assignments (POST, GET, start, arrive / arrival,
 * depart, complete / completion, cancel, raise_exception, proof); exceptions (GET, adjudicate)").
 * Request and response shapes are not shown: docs/gaps.md#allocation.
 */
import { type TSchema, Type } from '@sinclair/typebox';
import { callerOf, callerRef, createDedupe, enumOf, idOf, listQueryWith, route, type RouteDef } from '../../../kernel/index.ts';
import { OFFER_PREFIX } from '../work-orders/work-order.ts';
import { Assignment, ASSIGNMENT_PREFIX, ASSIGNMENT_STATUSES, assignmentIdOfException, EXCEPTION_PREFIX } from './assignment.ts';
import { adjudicateException, assignmentCommand, assignmentStep, createAssignment, exceptionOf, listAssignments, openExceptions, proofOf } from './assignments.ts';

const M = 'match';
const offerId = (id: string) => idOf(id, OFFER_PREFIX, 'offer');
const Reason = Type.Object({ reason: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })) }, { additionalProperties: false });
const asgId = (id: string) => idOf(id, ASSIGNMENT_PREFIX, 'assignment');
const excId = (id: string) => assignmentIdOfException(idOf(id, EXCEPTION_PREFIX, 'exception'));
const agap = 'Request and response shapes of assignments, proofs and exceptions are not shown; see docs/gaps.md#allocation.';
const Passcode = Type.Object({ passcode: Type.String({ minLength: 1, maxLength: 32, description: 'The start passcode (arrival) or the completion passcode (completion) the site holds.' }) }, { additionalProperties: false });
const AsgListQuery = listQueryWith({
  status: Type.Optional(enumOf(ASSIGNMENT_STATUSES)),
  worker_id: Type.Optional(callerRef('Only this worker\u2019s; a device credential lists its own worker\u2019s whether or not it is given.')),
});
const Adjudicate = Type.Object(
  { outcome: enumOf(['upheld', 'dismissed'] as const), reason: Type.String({ minLength: 1, maxLength: 1000 }), accepted_signals: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 20 })) },
  { additionalProperties: false },
);

/** Arrival and completion each have two names in spec 4.7 (arrive / arrival, complete / completion): one step, two paths. */
const step = (path: string, op: 'arrive' | 'complete', summary: string) =>
  route({ method: 'POST', path: `/v1/allocation/assignments/{assignment_id}/${path}`, auth: 'key', module: M, idempotent: true, body: Passcode, specGap: agap, summary,
    handler: (req) => assignmentStep(req.platform, callerOf(req), asgId(req.params.assignment_id!), op, req.body.passcode, createDedupe(req)) });
const simple = (op: 'start' | 'depart' | 'cancel' | 'raise_exception', summary: string, body: TSchema = Type.Optional(Reason)) =>
  route({ method: 'POST', path: `/v1/allocation/assignments/{assignment_id}/${op}`, auth: 'key', module: M, idempotent: true, body, specGap: agap, summary,
    handler: (req) => assignmentCommand(req.platform, callerOf(req), asgId(req.params.assignment_id!), op, req.body ?? {}, createDedupe(req)) });

export const assignmentRoutes: RouteDef[] = [
  route({ method: 'POST', path: '/v1/allocation/assignments', auth: 'key', module: M, idempotent: true, status: 201, body: Type.Object({ offer_id: Type.String({ minLength: 1, maxLength: 255 }) }, { additionalProperties: false }), specGap: agap,
    summary: 'Make the assignment of an accepted offer; its start and completion passcodes are in this answer only.',
    handler: (req) => createAssignment(req.platform, callerOf(req), offerId(req.body.offer_id), createDedupe(req)) }),
  route({ method: 'GET', path: '/v1/allocation/assignments', auth: 'key', module: M, idempotent: false, query: AsgListQuery, specGap: agap,
    summary: 'List assignments, newest first; filter status and worker_id. With a device credential, only its worker\u2019s.',
    handler: (req) => listAssignments(req.platform, req.org, req.principal?.kind === 'device' ? req.principal.worker : req.query.worker_id, req.query) }),
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
    handler: (req) => openExceptions(req.platform, req.org, req.query) }),
  route({ method: 'GET', path: '/v1/allocation/exceptions/{exception_id}', auth: 'key', module: M, idempotent: false, specGap: agap,
    summary: 'Retrieve an exception with its conflicting signals and decision.', handler: (req) => exceptionOf(req.platform, req.org, excId(req.params.exception_id!)) }),
  route({ method: 'POST', path: '/v1/allocation/exceptions/{exception_id}/adjudicate', auth: 'key', module: M, idempotent: true, body: Adjudicate,
    summary: 'A person decides an exception: upheld seals the proof, dismissed closes the assignment without one; accepted_signals name entries of conflicting_signals.',
    handler: async (req) => adjudicateException(req.platform, callerOf(req), excId(req.params.exception_id!), req.body, createDedupe(req)) }),
];
