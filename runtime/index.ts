/**
 * Public face of the actor runtime (DESIGN, "The runtime"): actor definitions, the actor system,
 * the clock, snapshots' codec, limits, the bounded map and the global feed reader. The cluster node has its own face
 * (runtime/cluster/index.ts). The contract areas are written on is the kernel (kernel/index.ts).
 */
export { defineActor, sortKeyTime, streamKey } from './actor.ts';
export type { ActorDef, ActorEvent, AnswerOf, AnyActorDef, CommandContext, Decision, StateOf, ViewOf, EventMeta, IndexEntry, Reaction, TimerWish } from './actor.ts';
export { BoundedMap } from './bounded.ts';
export { DerivedRecords } from './derived-records.ts';
export type { Derived } from './derived-records.ts';
export { ManualClock, SystemClock, iso } from './clock.ts';
export type { Clock, TimerHost } from './clock.ts';
export { decodeSnapshot, encodeSnapshot, roundTrip } from './codec.ts';
export type { SnapshotEnvelope } from './codec.ts';
export { FeedReader } from './feed-reader.ts';
export { FEED_LAG_CAP, FeedLag } from './feed-lag.ts';
export type { FeedPosition } from './feed-lag.ts';
export { FigureBoard } from './figures.ts';
export type { Figure, FigureSource, RuntimeFigures } from './figures.ts';
export { FeedGroup, FeedMember } from './feed-group.ts';
export type { FeedGroupOptions, MemberHandler } from './feed-group.ts';
export type { FeedHandler, FeedLimits, FeedProgress, FeedReaderOptions } from './feed-reader.ts';
export { DEFAULT_LIMITS } from './limits.ts';
export type { Limits } from './limits.ts';
export { ActorSystem } from './system.ts';
export { rebuildIndexes } from './reindex.ts';
export type { DerivedRebuild, DerivedStep } from './derived-watch.ts';
export type { AskOptions } from './ask.ts';
export type { ActorSystemOptions, Committed, Placement, RemoteCall } from './system.ts';
