/**
 * Route declarations. Routes are data plus a plain async function (STYLE: "The transport's rules
 * live in one file"): an area declares them in actors/<area>/routes.ts, the gateway mounts them
 * and generates docs/openapi.json from the same declarations.
 */
import type { Static, TSchema } from '@sinclair/typebox';
import type { Platform } from './area.ts';
import { derivedId, newId } from './ids.ts';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * none: no credential (registration, token grant). key: an API key or an access token, scoped.
 * session: a signed-in person's Service-Session (GET /v1/me, /v1/account/api_keys).
 */
export type Auth = 'none' | 'key' | 'session';

export interface Principal {
  kind: 'api_key' | 'access_token' | 'session';
  /** api_key_..., the token's client id, or the session's account id. */
  id: string;
  org: string;
  livemode: boolean;
  scopes: ReadonlySet<string>;
  /** The account behind a session. */
  account?: string;
}

export interface RouteRequest<B = unknown, Q = unknown> {
  params: Record<string, string>;
  query: Q;
  body: B;
  headers: Readonly<Record<string, string>>;
  /** Present unless the route's auth is 'none'. */
  principal: Principal | undefined;
  /** Organisation of the credential (spec 5.5); '' for auth 'none'. */
  org: string;
  livemode: boolean;
  requestId: string;
  /** The Idempotency-Key sent with this request, if any (see createdId). */
  idempotencyKey?: string;
  platform: Platform;
}

/**
 * The id a create gives its new record. With an Idempotency-Key it is derived from the
 * organisation and the key, so a create executed again after its first answer was lost (the node
 * died before the idempotency record was kept) lands on the same record instead of making a
 * second; without one it is random. `part` tells apart several records made by one request.
 */
export function createdId(req: { org: string; idempotencyKey?: string }, prefix: string, part = ''): string {
  return req.idempotencyKey === undefined ? newId(prefix) : derivedId(prefix, req.org, req.idempotencyKey, part);
}

/** What a route's asks carry of its request: the organisation, the request id and who asked. */
export function askOptions(req: { org: string; requestId: string; principal?: { id: string } }): { org: string; requestId: string; principal: string | undefined } {
  return { org: req.org, requestId: req.requestId, principal: req.principal?.id };
}

/** The dedupe id a create's command carries with createdId, so running it again applies nothing. */
export function createDedupe(req: { idempotencyKey?: string }): string | undefined {
  return req.idempotencyKey === undefined ? undefined : `ik:${req.idempotencyKey}`;
}

export interface RouteResult {
  status?: number;
  body: unknown;
  headers?: Record<string, string>;
  /** Raw bytes instead of JSON (CSV export, PDF document). */
  raw?: { contentType: string; bytes: Uint8Array | string };
}

export interface RouteDef<B extends TSchema = TSchema, Q extends TSchema = TSchema> {
  method: Method;
  /** OpenAPI-style path: /v1/payroll/runs/{run_id}. */
  path: string;
  auth: Auth;
  /**
   * Scope prefix of the module (spec 5.6): run, match, anchor, ledger, delivery, iam ...
   * The action follows the spec's rule: safe method -> read, path ending /approve -> approve,
   * anything else -> write. `null` means authenticated but no scope applies.
   */
  module: string | null;
  /** POSTs marked IK in the spec require an Idempotency-Key. */
  idempotent: boolean;
  body?: B;
  query?: Q;
  summary: string;
  /** Set when this route or its shapes fill a "not shown" gap; the reason, listed in docs/gaps.md. */
  specGap?: string;
  /** Response schema for the OpenAPI document (optional). */
  response?: TSchema;
  /** Success status (default 200; creates may use 201). */
  status?: number;
  handler: (req: RouteRequest<Static<B>, Static<Q>>) => Promise<RouteResult | unknown>;
}

/** Identity helper that keeps the generic parameters inferred from the schemas. */
export function route<B extends TSchema, Q extends TSchema>(def: RouteDef<B, Q>): RouteDef {
  return def as unknown as RouteDef;
}

/** Scope a route needs, by the spec 5.6 rule. */
export function requiredScope(def: Pick<RouteDef, 'method' | 'path' | 'module'>): string | null {
  if (def.module === null) return null;
  if (def.method === 'GET') return `${def.module}:read`;
  if (def.path.endsWith('/approve')) return `${def.module}:approve`;
  return `${def.module}:write`;
}

/**
 * A WebSocket endpoint. The gateway authenticates the upgrade (same credentials and scope rule as
 * a GET/POST on `path` with `module`), then hands each frame to onMessage and sends back the reply
 * (a string as a text frame, bytes as a binary frame). Errors thrown become an error frame.
 */
export interface SocketDef {
  path: string;
  module: string;
  summary: string;
  specGap?: string;
  onMessage(frame: { data: Uint8Array; binary: boolean }, ctx: SocketContext): Promise<string | Uint8Array>;
}

export interface SocketContext {
  principal: Principal;
  org: string;
  livemode: boolean;
  /** A fresh request id per frame (req_...). */
  requestId: string;
  platform: Platform;
}
