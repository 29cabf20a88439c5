/** Public face of the runtime. */
export { defineActor, sortKeyTime } from './actor.ts';
export type { ActorDef, ActorEvent, AnyActorDef, CommandContext, Decision, EventMeta, IndexEntry, Reaction, TimerWish } from './actor.ts';
export type { Area, Platform, PublicEventDecl } from './area.ts';
export { ManualClock, SystemClock, iso } from './clock.ts';
export type { Clock, TimerHost } from './clock.ts';
export { decodeSnapshot, encodeSnapshot, roundTrip } from './codec.ts';
export type { SnapshotEnvelope } from './codec.ts';
export { ApiError, CATALOGUE, assertNever, conflict, isApiError, notFound, validationError, validationReport } from './errors.ts';
export type { ErrorCode, ValidationEntry, ValidationReport } from './errors.ts';
export { derivedId, hasPrefix, newId } from './ids.ts';
export { DEFAULT_LIMITS } from './limits.ts';
export type { Limits } from './limits.ts';
export { createPlatform, stopPlatform } from './platform.ts';
export type { PlatformOptions } from './platform.ts';
export { askOptions, createDedupe, createdId, requiredScope, route } from './route.ts';
export type { Auth, Method, Principal, RouteDef, RouteRequest, RouteResult, SocketContext, SocketDef } from './route.ts';
export { ActorSystem } from './system.ts';
export type { ActorSystemOptions, AskOptions, Committed, Placement, RemoteCall } from './system.ts';
