/**
 * The shape of an area (actors/<area>/index.ts exports one): its actor kinds, its routes and
 * sockets, its public events, and the platform it is handed. Routes are data plus a plain async
 * function (STYLE: "The transport's rules live in one file"): an area declares them in
 * actors/<area>/routes.ts, the gateway mounts them and generates docs/openapi.json from the same
 * declarations. The runtime and the gateway know areas only through this shape.
 */
import type { Static, TSchema } from '@sinclair/typebox';
import type { ActorSystem, AnyActorDef, Clock } from '../runtime/index.ts';
import type { ErrorCode } from './base/index.ts';
import type { Stores } from '../stores/index.ts';
import type { Principal } from './scopes.ts';
import type { Services } from './services.ts';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * none: no credential (registration, token grant). key: an API key or an access token, scoped.
 * session: a signed-in person's Service-Session (GET /v1/me, /v1/account/api_keys).
 */
export type Auth = 'none' | 'key' | 'session';

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
   * The action follows the spec's rule (requiredScope). `null` means authenticated but no scope
   * applies.
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
  /**
   * Catalogue codes (spec 7) this route may answer beyond those the OpenAPI builder derives for
   * every route from its shape (400 always; 401 and 403 unless auth is 'none'; 404 with a path
   * id; 409 unless GET). Each becomes a documented response at the code's catalogue status.
   */
  errors?: readonly ErrorCode[];
  /**
   * Set on the routes a worker's device credential may call (spec 4.7: its worker's heartbeats,
   * availability, offers and assignment steps); the area checks the worker the request acts for.
   * The gateway refuses a device credential on every other route with 403 forbidden.
   */
  devices?: boolean;
  handler: (req: RouteRequest<Static<B>, Static<Q>>) => Promise<RouteResult | unknown>;
}

/** Identity helper that keeps the generic parameters inferred from the schemas. */
export function route<B extends TSchema, Q extends TSchema>(def: RouteDef<B, Q>): RouteDef {
  return def as unknown as RouteDef;
}

/**
 * A WebSocket endpoint. The gateway authenticates the upgrade (same credentials and scope rule as
 * a GET/POST on `path` with `module`), then hands each frame to onMessage and sends back the reply
 * (a string as a text frame, bytes as a binary frame). Errors thrown become an error frame.
 * The gateway closes a connection that breaks the socket's rules with a close frame, a code and a
 * reason (docs/gaps.md#gateway): a frame of a type the socket does not read (1003), a frame over
 * the size limit (1009), more refused frames than `limits` allows (1008).
 */
export interface SocketDef {
  path: string;
  module: string;
  summary: string;
  specGap?: string;
  /** The one frame type the socket reads; a frame of the other type closes with 1003. Both when absent. */
  frames?: 'text' | 'binary';
  /**
   * Abuse limits of one connection, read when it opens (so a policy pack may supply them); the
   * gateway's defaults when absent or when it answers undefined (docs/gaps.md#gateway).
   * - badFramesPerConnection: error frames answering the client's own faults (a 4xx error thrown
   *   by onMessage, such as an unreadable frame, or a frame over the rate) before the connection
   *   is closed with 1008 after the last of them;
   * - framesPerSecond: the sustained rate of frames read (a burst of as many is allowed); a frame
   *   beyond it is not read and answers a retryable `overloaded` error frame, which counts as a
   *   bad frame.
   */
  limits?(platform: Platform): SocketLimits | undefined;
  onMessage(frame: { data: Uint8Array; binary: boolean }, ctx: SocketContext): Promise<string | Uint8Array>;
}

export interface SocketLimits {
  badFramesPerConnection: number;
  framesPerSecond: number;
}

export interface SocketContext {
  principal: Principal;
  org: string;
  livemode: boolean;
  /** A fresh request id per frame (req_...). */
  requestId: string;
  platform: Platform;
  /** The connection the frame came on, for frames the server sends unprompted (server push); absent where the transport cannot push. */
  connection?: SocketConnection;
}

/**
 * One open WebSocket, as an area sees it to push frames it was not asked for (an offer reaching a
 * worker's device, docs/gaps.md#allocation). The same object for every frame of the connection.
 */
export interface SocketConnection {
  /** Sends a frame now (a string as text, bytes as binary); false when the connection is closed or its send buffer is full, and the frame was dropped. */
  push(data: string | Uint8Array): boolean;
  /** Runs `fn` once when the connection closes (at once when it already has). */
  onClose(fn: () => void): void;
  readonly open: boolean;
}

/** A public event type (spec 6), produced when an actor of `kind` commits a journal event `on`. */
export interface PublicEventDecl {
  /** module.resource.past_tense_verb style, e.g. run.approved. */
  type: string;
  /** spec 6 source: anchor, proof, rail, flow, match, run, remit, route, gateway, iam, ledger, delivery ... */
  source: string;
  schemaVersion: number;
  kind: string;
  on: string;
  description: string;
  /** True where the spec does not name this type (listed in docs/gaps.md). */
  specGap?: boolean;
}

export interface Platform {
  system: ActorSystem;
  clock: Clock;
  stores: Stores;
  /** Per-area services (providers, engines), registered in Area.start under typed keys. */
  services: Services;
  config: Readonly<Record<string, string | undefined>>;
  /** Every area mounted on this platform (the event system reads kinds and modules from it). */
  areas: readonly Area[];
}

/** Whether the area named `name` is mounted on `platform` (a module another reads may be left out). */
export const mounted = (platform: Platform, name: string): boolean => platform.areas.some((a) => a.name === name);

export interface Area {
  name: string;
  kinds: AnyActorDef[];
  routes: RouteDef[];
  events?: PublicEventDecl[];
  /** WebSocket endpoints (served by the gateway's one transport file). */
  sockets?: SocketDef[];
  start?(platform: Platform): Promise<void> | void;
  stop?(platform: Platform): Promise<void> | void;
}
