/**
 * Decider actors (DESIGN "The runtime"). A kind is data plus pure functions:
 * - decide: command -> events (or throw ApiError); pure, time comes from ctx.now;
 * - evolve: event -> next state; pure;
 * - view: state -> the API record;
 * - timers: state -> the durable reminders it wants (the runtime diffs and stores them);
 * - indexes: state -> the list memberships it has (the runtime diffs and stores them).
 * The runtime does I/O, timers and persistence; the file that defines a kind holds only rules.
 */
import type { StoredEvent } from '../stores/index.ts';

export interface ActorEvent {
  type: string;
}

/** Given to decide; valid only during the call (the runtime reuses it), so decide must not keep it. */
export interface CommandContext {
  now: number;
  id: string;
  /** Organisation of the caller (equals the actor's once it exists). */
  org: string;
  /** Events applied so far; 0 for an actor that does not exist yet. */
  version: number;
  requestId?: string;
  principal?: string;
  newId(prefix: string): string;
}

/** What decide returns: the events, and optionally a reply other than the view. */
export type Decision<E extends ActorEvent> = E[] | { events: E[]; reply?: unknown };

/** Given to evolve; valid only during the call (the runtime reuses it), so evolve must not keep it. */
export interface EventMeta {
  /** Commit time (ms) of the event. */
  at: number;
  version: number;
  /** The evt_ id given to the event at commit. */
  eventId: string;
  org: string;
}

export interface TimerWish {
  /** Unique per actor; wishing the same name again with another dueAt replaces it. */
  name: string;
  dueAt: number;
  command: string;
  payload?: unknown;
}

export interface IndexEntry {
  /** List name within the actor's organisation and kind, e.g. 'all' or 'status:draft'. */
  list: string;
  /** Lexicographic sort key; ties break by id. Use sortKeyTime() for time order. */
  sortKey: string;
}

export interface Reaction {
  /** Kind whose committed events trigger this reaction, or '*' for every kind. */
  from: string;
  /** Journal event types that trigger it, or '*'. */
  events: readonly string[] | '*';
  command: string;
  /** The target actor (of the declaring kind) and payload; undefined to ignore this event. */
  target(event: StoredEvent, source: { kind: string; id: string }): { id: string; payload: unknown } | undefined;
}

type DecideFn<S, E extends ActorEvent> = (state: S, cmd: any, ctx: CommandContext) => Decision<E>;

export interface ActorDef<S = any, E extends ActorEvent = ActorEvent, D extends Record<string, DecideFn<S, E>> = Record<string, DecideFn<S, E>>, V = unknown> {
  kind: string;
  prefix: string;
  /** Soft state: no journal, no snapshot, never passivated (DESIGN: ephemeral actors). */
  ephemeral?: boolean;
  /** Schema version of the snapshot state; a snapshot of another schema is ignored and replayed. */
  schema?: number;
  /** Snapshot every N events (default from limits). */
  snapshotEvery?: number;
  /** Commands that may run on an actor with no events yet; any other answers 404. */
  creates: readonly (keyof D & string)[];
  initial(id: string, org: string): S;
  decide: D;
  evolve(state: S, event: E, meta: EventMeta): S;
  view(state: S): V;
  /**
   * The record's `livemode` and `mocked` as its view shows them, read straight from the state.
   * Optional: where the view is costly to make and the record is often audited without being
   * published (an audit entry needs only these two), the event feed reads them here instead.
   */
  modes?(state: S): { livemode: boolean; mocked: boolean };
  timers?(state: S): TimerWish[];
  indexes?(state: S): IndexEntry[];
  reactions?: Reaction[];
}

export type AnyActorDef = ActorDef<any, any, any, any>;
export type CommandOf<D> = D extends ActorDef<any, any, infer C, any> ? keyof C & string : string;
/** An actor's committed state, as `state()` reads it. */
export type StateOf<D> = D extends ActorDef<infer S, any, any, any> ? (0 extends 1 & S ? unknown : S) : unknown;
/** What an actor's view makes of its state. */
export type ViewOf<D> = D extends ActorDef<any, any, any, infer V> ? V : unknown;
/**
 * The reply a decider may name beside its events: a decider typed `Decision<E>` may reply with
 * anything (unknown); one that returns only events, or a reply of a named type, says so.
 */
type ReplyOf<F> = F extends (...args: any[]) => infer R ? (R extends readonly unknown[] ? never : R extends { reply?: infer P } ? P : never) : never;
/**
 * What `ask` answers for a command (runtime/turns.ts): the decider's reply where it gives one,
 * otherwise the actor's view of its new state.
 */
export type AnswerOf<D, K extends string> = D extends ActorDef<any, any, infer C, infer V> ? (0 extends 1 & V ? unknown : K extends keyof C ? V | ReplyOf<C[K]> : unknown) : unknown;
/** The payload a command takes; a decider that declares no payload parameter ignores any. */
export type PayloadOf<D, K extends string> = D extends ActorDef<any, any, infer C, any>
  ? K extends keyof C
    ? Parameters<C[K]> extends [any, infer P, ...any[]]
      ? P
      : unknown
    : never
  : unknown;

export function defineActor<S, E extends ActorEvent, D extends Record<string, DecideFn<S, E>>, V>(
  def: ActorDef<S, E, D, V>,
): ActorDef<S, E, D, V> {
  if (!def.prefix.endsWith('_')) throw new Error(`prefix of ${def.kind} must end with _`);
  for (const c of def.creates) if (!(c in def.decide)) throw new Error(`${def.kind}: creates names unknown command ${c}`);
  return def;
}

/** The journal stream an actor's events are kept under. */
export const streamKey = (def: AnyActorDef, id: string): string => [def.kind, id].join('.');

/** Sort key for time order: fixed-width so lexicographic order is numeric order. */
export const sortKeyTime = (ms: number): string => ms.toString().padStart(15, '0');
