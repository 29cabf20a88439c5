/**
 * Assignments and their exceptions over HTTP (spec 4.7): created from an accepted offer, the
 * passcodes shown once; each step's facts read from the worker's readings (proof.ts) before the
 * assignment actor decides.
 */
import { randomInt } from 'node:crypto';
import { ApiError, type Caller, derivedId, hasPrefix, listPage, type Platform } from '../../../kernel/index.ts';
import { Assignment, ASSIGNMENT_PREFIX, assignmentIdOfException, type AssignmentState, type AssignmentStatus, exceptionView, passcodeDigest, proofBody } from './assignment.ts';
import { workerPage } from '../lists.ts';
import { workerActorId } from '../supply/worker.ts';
import { stepFacts } from './proof.ts';
import { allocationService } from '../supply/service.ts';
import { WorkOrder, workOrderIdOfOffer } from '../work-orders/work-order.ts';

const policyOf = (platform: Platform) => allocationService(platform).policy;
export const assignmentIdOf = (offerId: string) => derivedId(ASSIGNMENT_PREFIX, [offerId]);

function passcode(digits: number): string {
  let s = '';
  for (let i = 0; i < digits; i++) s += String(randomInt(10));
  return s;
}

/** POST /v1/allocation/assignments {offer_id}: one assignment per accepted offer; the passcodes in this answer only. */
export async function createAssignment(platform: Platform, caller: Caller, offerId: string, dedupeId: string | undefined): Promise<unknown> {
  const wo = await platform.system.state(WorkOrder, workOrderIdOfOffer(offerId), caller.org).catch((e: unknown) => {
    if (e instanceof ApiError && e.code === 'not_found') throw new ApiError('not_found', `No offer ${offerId}.`);
    throw e;
  });
  const offer = wo.offers.find((o) => o.id === offerId);
  if (!offer) throw new ApiError('not_found', `No offer ${offerId}.`);
  if (offer.status !== 'accepted') throw new ApiError('conflict', `Offer ${offerId} is ${offer.status}; an assignment is made from an accepted offer.`);
  const id = assignmentIdOf(offerId);
  const existing = await platform.system.state(Assignment, id, caller.org).catch(() => undefined);
  if (existing) {
    await noteAssignment(platform, caller, wo.id, offerId, id); // a create stopped between its two steps is finished here
    throw new ApiError('conflict', `Offer ${offerId} already has assignment ${id}; its passcodes were shown when it was made.`);
  }
  const digits = policyOf(platform).pack.assignment?.passcode_digits ?? 6;
  const start = passcode(digits);
  const completion = passcode(digits);
  const view = await platform.system.ask(
    Assignment,
    id,
    'create',
    {
      work_order_id: wo.id,
      offer_id: offerId,
      worker_id: offer.worker_id,
      location: wo.location,
      start_digest: passcodeDigest(id, 'start', start),
      completion_digest: passcodeDigest(id, 'completion', completion),
      policy_version: policyOf(platform).pack.version,
      livemode: caller.livemode,
    },
    { ...caller, dedupeId },
  );
  await noteAssignment(platform, caller, wo.id, offerId, id);
  return { ...(view as object), passcodes: { start: start, completion: completion, shown_once: true } };
}

/** The work order learns the offer is assigned, so its next_action no longer asks for it (a no-op once noted). */
function noteAssignment(platform: Platform, caller: Caller, workOrderId: string, offerId: string, assignmentId: string): Promise<unknown> {
  return platform.system.ask(WorkOrder, workOrderId, 'note_assignment', { offer_id: offerId, assignment_id: assignmentId }, { org: caller.org, principal: caller.principal, requestId: caller.requestId, noReply: true, dedupeId: `assigned:${assignmentId}` });
}

export async function assignmentStep(platform: Platform, caller: Caller, id: string, step: 'arrive' | 'complete', passcodeGiven: string, dedupeId: string | undefined): Promise<unknown> {
  const s = await platform.system.state(Assignment, id, caller.org);
  const policy = policyOf(platform).pack;
  const facts = await stepFacts(platform, s, step === 'arrive' ? 'start' : 'completion', passcodeGiven, policy);
  const payload = step === 'arrive' ? { passcode: passcodeGiven, facts } : { passcode: passcodeGiven, facts, min_dwell_seconds: policy.assignment?.min_dwell_seconds ?? 0, max_gap_seconds: policy.assignment?.max_telemetry_gap_seconds ?? Infinity };
  return platform.system.ask(Assignment, id, step, payload, { ...caller, dedupeId });
}

/** POST .../start, .../depart, .../cancel, .../raise_exception: steps the assignment decides alone, with no readings. */
export async function assignmentCommand(platform: Platform, caller: Caller, id: string, op: 'start' | 'depart' | 'cancel' | 'raise_exception', body: object, dedupeId: string | undefined): Promise<unknown> {
  return platform.system.ask(Assignment, id, op, body, { ...caller, dedupeId });
}

export async function proofOf(platform: Platform, org: string, id: string): Promise<unknown> {
  const s = await platform.system.state(Assignment, id, org);
  if (!s.seal) throw new ApiError('conflict', `Assignment ${id} is ${s.status}; its proof is sealed when it completes (or its exception is upheld).`);
  return { object: 'proof_bundle', livemode: s.livemode, mocked: false, ...proofBody(s), seal: s.seal };
}

export async function exceptionOf(platform: Platform, org: string, assignmentId: string): Promise<unknown> {
  const s = await platform.system.state(Assignment, assignmentId, org);
  if (!s.exception) throw new ApiError('not_found', `No exception on assignment ${assignmentId}.`);
  return exceptionView(s);
}

/** Open exceptions, newest first: the assignments waiting for a person, each as its exception. */
export async function openExceptions(platform: Platform, org: string, query: { limit?: number; starting_after?: string } | undefined): Promise<{ object: 'list'; data: unknown[]; has_more: boolean }> {
  const page = (await listPage(platform.system, Assignment, org, 'exceptions:open', query, 'desc')) as { data: { exception_id: string }[]; has_more: boolean };
  return { object: 'list', data: await Promise.all(page.data.map((a) => exceptionOf(platform, org, assignmentIdOfException(a.exception_id)))), has_more: page.has_more };
}

/** POST .../exceptions/{exception_id}/adjudicate: a person decides; the answer is the exception with its decision. */
export async function adjudicateException(platform: Platform, caller: Caller, assignmentId: string, body: { outcome: 'upheld' | 'dismissed'; reason: string; accepted_signals?: string[] }, dedupeId: string | undefined): Promise<unknown> {
  await platform.system.ask(Assignment, assignmentId, 'adjudicate', body, { ...caller, dedupeId });
  return exceptionOf(platform, caller.org, assignmentId);
}

/**
 * GET /v1/allocation/assignments: newest first, filter status; with a worker (a device credential's
 * own, or worker_id) only that worker's, read off their `worker:` list.
 */
export function listAssignments(platform: Platform, org: string, workerId: string | undefined, query: { status?: AssignmentStatus; limit?: number; starting_after?: string }): Promise<unknown> {
  if (workerId === undefined) return listPage(platform.system, Assignment, org, query.status ? `status:${query.status}` : 'all', query, 'desc');
  return workerPage(platform, Assignment, org, `worker:${workerActorId(org, workerId)}`, query, (id) => (hasPrefix(id, ASSIGNMENT_PREFIX) ? id : undefined), (s: AssignmentState) =>
    query.status === undefined || s.status === query.status ? Assignment.view(s) : undefined,
  );
}
