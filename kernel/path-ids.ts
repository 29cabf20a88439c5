/**
 * Ids read from a request path. A path id is checked for its prefix, its alphabet and its length
 * before it reaches a store, an index or a cluster subject; anything else is simply not a record
 * of ours: 404 not_found (spec 7; docs/gaps.md#gateway), the same answer an unknown id gets.
 */
import type { AnyActorDef } from '../runtime/index.ts';
import type { RouteDef, RouteRequest } from './area.ts';
import { ApiError, shownId } from './base/index.ts';

/** The random or derived part after the prefix: base62, at most 64 symbols (a payslip id's is 22 plus its position). */
const SUFFIX = /^[0-9A-Za-z]{1,64}$/;

/** True when `id` has the form of an id with this prefix. */
export function isIdOf(id: unknown, prefix: string): boolean {
  return typeof id === 'string' && id.startsWith(prefix) && SUFFIX.test(id.slice(prefix.length));
}

/** `id` when it has the form of an id with this prefix; 404 naming `what` otherwise. */
export function idOf(id: string, prefix: string, what: string): string {
  if (!isIdOf(id, prefix)) throw new ApiError('not_found', `No ${what} with id ${shownId(id)}.`);
  return id;
}

/**
 * The reader of the id that ends `path` (`lead_id` of `/v1/sourcing/leads/{lead_id}`) as an id of
 * `kind`, checked as above and named `what` in the 404.
 */
export function pathRecordId(path: string, kind: { prefix: string }, what: string): (req: RouteRequest) => string {
  const param = /\{(\w+)\}$/.exec(path)?.[1];
  if (param === undefined) throw new Error(`${path} does not end with a path id`);
  return (req) => idOf(req.params[param] ?? '', kind.prefix, what);
}

/** The declaration of `GET <path>` that retrieves the record of `kind` its path names, as the caller's organisation holds it. */
export function retrieval(kind: AnyActorDef, what: string, def: Omit<RouteDef, 'method' | 'idempotent' | 'body' | 'handler'>): RouteDef {
  const idIn = pathRecordId(def.path, kind, what);
  return { method: 'GET', ...def, idempotent: false, handler: (req) => req.platform.system.get(kind, idIn(req), req.org) };
}
