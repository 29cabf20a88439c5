/**
 * Store interfaces. Three families (DESIGN "Stores"): local (LMDB on disk, the default of
 * `npm start`), memory (tests, benches, a throwaway sandbox) and NATS JetStream / Redis (cluster). Nothing here imports the rest of the project; time comes in as a function.
 */

export type Now = () => number;

// ---------------------------------------------------------------------------------------------
// Journal: the events of each actor, in order, on a stream named `${kind}.${id}`.

export interface StoredEvent {
  /** 1-based position in its actor's stream; the actor's version after applying it. */
  version: number;
  /** Platform event id (prefix evt_), fixed at commit, kept on every redelivery (spec 6). */
  id: string;
  type: string;
  data: unknown;
  /** Commit time, ms since epoch, from the runtime clock. */
  at: number;
  org: string;
  /** Service-Request-Id of the causing request; absent for scheduled and reaction commands. */
  requestId?: string;
  /** Who caused it (api key, access token client, session account, `system`). */
  principal?: string;
  /** Dedupe id of the command that produced it (reactions, reminders, idempotent retries). */
  dedupe?: string;
}

/**
 * The feed's records a reader reads (Journal.readFeed `only`), told by the stream and `from`, the
 * lowest version the record may begin at (1 when it may hold the stream's first event, or when the
 * store cannot tell): false only when the reader would ignore every event of the record.
 */
export type FeedFilter = (stream: string, from: number) => boolean;

export interface FeedEntry {
  /** Global position of the entry across every stream; strictly increasing. */
  position: number;
  stream: string;
  event: StoredEvent;
}

/** The stores cannot start as configured; the message says why and what to change. */
export class StoreSetupError extends Error {}

/**
 * A store did not answer (unreachable, timed out, an election under way): what was asked may or
 * may not have landed, and asking again can succeed. Callers answer it as a retryable 503.
 */
export class StoreUnavailableError extends Error {
  readonly retryable = true;
}

export class VersionConflictError extends Error {
  constructor(readonly stream: string, readonly expected: number, readonly actual: number) {
    super(`append to ${stream} expected version ${expected}, found ${actual}`);
  }
}

/**
 * Why an append of `events` after `expectedVersion` to a stream now at `actual` is refused, if it
 * is: another version than expected, or events not numbered on from it.
 */
/** Index of the first entry with a position past `after` (entries ordered by position). */
export function firstAfter(entries: readonly FeedEntry[], after: number): number {
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (entries[mid].position <= after) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export function appendConflict(stream: string, expectedVersion: number, events: readonly StoredEvent[], actual: number): VersionConflictError | undefined {
  if (actual !== expectedVersion) return new VersionConflictError(stream, expectedVersion, actual);
  for (let i = 0; i < events.length; i++) {
    if (events[i].version !== expectedVersion + 1 + i) return new VersionConflictError(stream, expectedVersion + 1 + i, events[i].version);
  }
  return undefined;
}

export interface AppendItem {
  stream: string;
  expectedVersion: number;
  events: StoredEvent[];
  /**
   * The commit's list and timer changes, given only to a journal that `writesEffects`: it writes
   * them in the same transaction as the events, or not at all.
   */
  effects?: CommitEffects;
}

/** What a commit changes beside its events (runtime/effects.ts computes them from the states). */
export interface CommitEffects {
  indexOps: IndexOp[];
  reminderPuts: Reminder[];
  reminderCancels: string[];
}

export interface Journal {
  /** Append after `expectedVersion` (0 for a new stream); throws VersionConflictError otherwise. */
  append(stream: string, expectedVersion: number, events: StoredEvent[]): Promise<void>;
  /**
   * Optional group commit: several streams in one write. Each item succeeds or fails alone; the
   * result holds, per item, undefined or its error (a VersionConflictError for a stale writer).
   * Without it the runtime appends the items concurrently one by one.
   */
  appendMany?(items: AppendItem[]): Promise<Array<Error | undefined>>;
  /**
   * True when appendMany writes each item's `effects` atomically with its events (the local
   * family: one LMDB transaction). Otherwise the runtime writes them after the append.
   */
  readonly writesEffects?: boolean;
  /**
   * True when appends are applied in the order they are made, and once one fails every later
   * write fails too until the stores are opened again (the local family: one writer, one
   * transaction after another). The runtime may then take a turn's outcome, answer its callers and
   * decide the actor's next turn before the commit settles: a later append can never be kept
   * without the earlier ones it builds on. Whatever acknowledges a write outside the process waits
   * for Stores.flushed(), which then fails. An append refused for a moved version is refused alone;
   * a runtime that went ahead on it calls halt().
   */
  readonly ordered?: boolean;
  /** An ordered journal: fail every later write, as after a failed one (ordered). */
  halt?(reason: Error): void;
  /** Events of one stream with version > afterVersion, in order. */
  read(stream: string, afterVersion: number): Promise<StoredEvent[]>;
  /**
   * Every stream's events in global order, after a feed position (0 = from the start). A store
   * that reads the feed's order before the events may leave out the records `only` refuses, and
   * not read them at all, but never the last record it looked at, so the reader's cursor passes
   * the ones left out; any other store returns every record.
   */
  readFeed(afterPosition: number, limit: number, only?: FeedFilter): Promise<FeedEntry[]>;
  /**
   * Every stream appended to since `wallMs` (the store's own receive time, wall clock), with the
   * organisation of its events, each at least once: a node taking shards over from a dead one finds
   * the actors whose last commits' effects may be unwritten (runtime/cluster/takeover-recovery.ts).
   * Only where appends have a receive time of their own (cluster).
   */
  appendedSince?(wallMs: number, visit: (stream: string, org: string) => void): Promise<void>;
  /** Called (without arguments) after any append becomes readable from the feed. */
  onAppend(listener: () => void): () => void;
  close(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Snapshots: an opaque encoded blob per actor, written with compare-and-set on version.

export interface SnapshotStore {
  load(key: string): Promise<Uint8Array | undefined>;
  /** Keeps the blob only when `version` is newer than the stored one; returns whether it did. */
  save(key: string, version: number, blob: Uint8Array): Promise<boolean>;
  close(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Reminders: durable timers addressed to an actor.

export interface Reminder {
  /** `${kind}.${id}.${name}`: one reminder per actor and name; putting it again replaces it. */
  key: string;
  kind: string;
  id: string;
  org: string;
  name: string;
  dueAt: number;
  command: string;
  payload: unknown;
  /** Unique per put, so completing a fired reminder never deletes its replacement. */
  generation: string;
}

export interface ReminderStore {
  put(reminder: Reminder): Promise<void>;
  /** The reminder now held under `key`, if any (effects recovery after a takeover compares it). */
  get(key: string): Promise<Reminder | undefined>;
  cancel(key: string): Promise<void>;
  /** Due reminders (dueAt <= now), earliest first, at most `limit`, after the first `skip` of them. */
  due(now: number, limit: number, skip?: number): Promise<Reminder[]>;
  /** Claim a due reminder for `leaseMs` so one node fires it; false when another holds it. */
  claim(reminder: Reminder, leaseMs: number): Promise<boolean>;
  /** Remove it after it fired, unless it was replaced since (generation differs). */
  complete(reminder: Reminder): Promise<void>;
  /** Push a reminder whose firing failed to a later time (same generation). */
  postpone(reminder: Reminder, dueAt: number): Promise<void>;
  nextDue(): Promise<number | undefined>;
  close(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Key-value with TTL: sessions, key digests, idempotency records, counters.

/** A value compareAndSet can compare: equal by value in both families. */
export type Scalar = string | number | boolean;

export interface KeyValueStore {
  get<T = unknown>(key: string): Promise<T | undefined>;
  set(key: string, value: unknown, ttlMs?: number): Promise<void>;
  /** Sets only when absent (or expired); true when this call set it. */
  setIfAbsent(key: string, value: unknown, ttlMs?: number): Promise<boolean>;
  /**
   * Writes `value` only while the key holds `expected`, in one atomic step; true when it did.
   * `expected` undefined means absent (or expired); `value` undefined deletes. Both are scalars,
   * so the two families compare them alike (a counter compares as its number). A lease is
   * renewed this way: two holders can never both renew it.
   */
  compareAndSet(key: string, expected: Scalar | undefined, value: Scalar | undefined, ttlMs?: number): Promise<boolean>;
  delete(key: string): Promise<void>;
  /** Atomic increment of an integer counter (created at 0); returns the new value. */
  incr(key: string, by?: number): Promise<number>;
  close(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Ordered indexes for list endpoints: per list, members ordered by a string sort key.

export type IndexOp =
  /**
   * `fresh`: the id holds no place in this list under another sort key (a new record's first
   * lists, a write-once record's): a store may skip looking for one. Put again with the same
   * sort key it changes nothing, fresh or not.
   *
   * `from`: the sort key the id holds in this list before the op (null: none), named by a writer
   * that knows it as surely as the store (the runtime, whose list changes commit with the events
   * they follow from). A store with `keepsNoPlaces` then neither reads nor keeps the id's place,
   * and a page after the id names its sort key (`afterSortKey`).
   */
  | { op: 'put'; list: string; id: string; sortKey: string; fresh?: boolean; from?: string | null }
  | { op: 'remove'; list: string; id: string; from?: string };

export interface IndexPage {
  ids: string[];
  hasMore: boolean;
}

export interface PageOptions {
  after?: string;
  /** The sort key `after` holds in the list, where the caller knows it (IndexOp `from`). */
  afterSortKey?: string;
  limit: number;
  order: 'asc' | 'desc';
}

export interface IndexStore {
  /**
   * True when a list written with ops that name `from` keeps no place per id (list, id -> sort
   * key): every page after one of its ids must then name the id's `afterSortKey`, and a list
   * built again whose sort keys may have changed is dropped first (dropLists). On a disk, a place
   * is a write at a random key on every create and move, the costliest kind of write there.
   */
  readonly keepsNoPlaces?: boolean;
  apply(ops: IndexOp[]): Promise<void>;
  /**
   * A page of ids in sort-key order (ties by id). `after` is the id of the last member of the
   * previous page; an id that is not in the list (at `afterSortKey`, when named) gives an empty
   * page (spec 4 preamble).
   */
  page(list: string, opts: PageOptions): Promise<IndexPage>;
  /** With keepsNoPlaces: removes every member of the lists `which` names; returns how many. */
  dropLists?(which: (list: string) => boolean): Promise<number>;
  close(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Heartbeat readings per worker, kept for a retention window.

export interface StoredReading {
  recordedAt: number;
  data: unknown;
}

export interface ReadingStore {
  append(worker: string, readings: StoredReading[]): Promise<void>;
  /** Readings with from <= recordedAt <= to, ordered by recordedAt. */
  range(worker: string, from: number, to: number): Promise<StoredReading[]>;
  close(): Promise<void>;
}

/**
 * Present where what is derived from the journal (list indexes) lives in a store that can lose it
 * on its own (the cluster's Redis, stores/cluster/generation.ts): one marker says whether it is
 * whole, and the node that claims a missing one rebuilds it (runtime/derived-watch.ts).
 */
export interface DerivedMarker {
  state(): Promise<'built' | 'building' | 'missing'>;
  /** A token when this node now holds the rebuild: the marker was missing, or `force` and nobody holds it. */
  claim(force?: boolean): Promise<string | undefined>;
  /** False once the claim is lost (it lapsed, or the store was emptied again). */
  renew(token: string): Promise<boolean>;
  finish(token: string): Promise<boolean>;
}

/**
 * The node's read models as they stood at a position of the journal (kernel/read-model-checkpoints.ts),
 * one value replaced whole: a start reads the journal only past that position. Not a record: when
 * it is missing, the start reads the whole journal instead.
 */
export interface ReadModelStore {
  /** Where it is kept, for an operator told to remove it. */
  readonly location: string;
  read(): Promise<Uint8Array | undefined>;
  /** Replaces the value whole, on disk when it resolves. */
  write(bytes: Uint8Array): Promise<void>;
}

export interface Stores {
  /** embedded: one process owns every shard (local or memory); cluster: NATS and Redis. */
  readonly mode: 'embedded' | 'cluster';
  /** Records outlive the process (local and cluster): in-memory read models are rebuilt from the journal at start. */
  readonly durable: boolean;
  /** Where the records live, for the start line (a directory, `memory`, or the NATS and Redis namespace). */
  readonly location: string;
  /**
   * Resolves once every write committed so far is flushed to disk; absent where a committed write
   * is already as durable as it gets (memory, cluster). Whatever acknowledges a change to a client
   * waits for it first (the gateway does for every request that may write).
   */
  flushed?(): Promise<void>;
  /** A consistent copy of every record into an empty directory, taken while serving (local family only). */
  backup?(dir: string): Promise<void>;
  journal: Journal;
  snapshots: SnapshotStore;
  reminders: ReminderStore;
  kv: KeyValueStore;
  /**
   * Where a claim that lives only as long as this process is held (an execution's idempotency
   * claim, gateway/idempotency.ts): the local family's process memory, since one process serves a
   * directory and its restart ends every claim it held, so writing one to disk would only make a
   * retry after a crash wait out its lease. Absent where every member must see a claim (cluster)
   * or `kv` is itself the process's memory: claims then go to `kv`.
   */
  claims?: KeyValueStore;
  indexes: IndexStore;
  readings: ReadingStore;
  derived?: DerivedMarker;
  /** Where the node's read models are kept between a stop and the next start (local family only). */
  readModels?: ReadModelStore;
  close(): Promise<void>;
}
