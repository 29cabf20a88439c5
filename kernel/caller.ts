/**
 * The caller: what a route hands its area's operations of the request, and what the runtime's asks
 * carry (a Caller is an AskOptions: organisation, request id, principal). One shape for every area.
 */
import type { RouteRequest } from './area.ts';

export interface Caller {
  /** Organisation of the credential (spec 5.5). */
  org: string;
  livemode: boolean;
  requestId?: string;
  /** Who asked: the api key, the access token's client or the session's account. */
  principal?: string;
  /** The request's Idempotency-Key: a create executed again lands on the same record (createdId). */
  idempotencyKey?: string;
}

/** The caller of a route's request. */
export function callerOf(req: Pick<RouteRequest, 'org' | 'livemode' | 'requestId' | 'principal' | 'idempotencyKey'>): Caller {
  return { org: req.org, livemode: req.livemode, requestId: req.requestId, principal: req.principal?.id, idempotencyKey: req.idempotencyKey };
}
