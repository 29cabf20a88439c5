/**
 * The supply feed: the organisation's supply changes pushed to a browser over a WebSocket (spec
 * 2.8 supply state, 3 "Work orders, offers, assignments, exceptions"; DESIGN "operator console";
 * docs/gaps.md#console). The socket is a subscription with demand: the subscriber sends
 * `{"after": <cursor or null>}` and the server answers as soon as something of its organisation
 * changed after that cursor (at once when something already has; after HOLD_MS with an empty batch
 * when nothing did), so a change reaches a waiting subscriber the moment it is seen, and a
 * subscriber that reads slowly is never sent more than it asked for.
 *
 * What it follows, per node: the actor system's commits as they happen, and the node's own reading
 * of the journal feed from its start (kernel platformFeed, perNode, as NodeReadModel reads it in a
 * cluster; here embedded too, so a feed started by its first subscriber knows the workers committed
 * before it):
 *   worker commits            availability, presence, assignment, flags, exclusions: the worker
 *   work order commits        opened, offers made, accepted, declined, expired, withdrawn, filled,
 *                             unfilled (a supply gap), cancelled: the work order and its cascade
 *   the node's supply map     a worker's cell, which heartbeats change without a commit (soft
 *                             state, live.ts): compared every SWEEP_MS for the organisations that
 *                             have a subscriber on this node
 * In a cluster the per-node journal feed brings every node's commits; the supply map a cell is read
 * from is the node's copy of the cluster's (the allocation service keeps it).
 *
 * Memory is bounded: an organisation's log is kept only while it has a subscriber (dropped after
 * IDLE_MS without a request) and holds at most `capacity` changes; a cursor older than the log,
 * from another node or from before a restart answers a full snapshot marked `resync` (drop and
 * resync, never an unbounded queue). A batch names each changed record once, read as it is now.
 *
 * cursor state                          answer
 * ------------------------------------  -----------------------------------------------------------
 * null, unknown, another log's, too old snapshot: resync true (the organisation's known workers, its
 *                                       open work orders with offers, its recent supply gaps)
 * behind the log's head                 the records changed after it (at most MAX_BATCH), cursor of
 *                                       the last one included
 * at the head                           held until a change (then as above) or HOLD_MS (empty)
 * valid, with rest n                    the snapshot's workers from the n-th on (at most
 *                                       SNAPSHOT_WORKERS), the cursor unchanged: a truncated
 *                                       snapshot is read whole, page by page, and no change is skipped
 */
import { ApiError, listPage, platformFeed, randomSuffix, type Platform, type SocketDef } from '../../../kernel/index.ts';
import type { Committed, FeedMember } from '../../../runtime/index.ts';
import type { FeedEntry } from '../../../stores/index.ts';
import { ALLOCATION, type AllocationService } from './service.ts';
import { workerRecord } from './workers.ts';
import { Worker, type WorkerState } from './worker.ts';
import { offerView, WorkOrder, type WorkOrderState } from '../work-orders/work-order.ts';

export const SUPPLY_SOCKET_PATH = '/v1/allocation/supply/stream';
const NAME = 'allocation-supply-feed';

/** Changes an organisation's log holds by default (SUPPLY_FEED_BUFFER overrides; docs/gaps.md#console). */
export const DEFAULT_CAPACITY = 4096;
/** Records named in one batch; the rest follow on the next request. */
export const MAX_BATCH = 250;
/** Workers in a snapshot; more are marked `truncated`. */
export const SNAPSHOT_WORKERS = 2000;
/** Open work orders and supply gaps in a snapshot (newest first). */
const SNAPSHOT_OPEN = 100;
const SNAPSHOT_GAPS = 25;
/** How long a request at the head is held (real time: a transport matter, not the platform's clock). */
export const DEFAULT_HOLD_MS = 10_000;
const SWEEP_MS = 500;
const IDLE_MS = 60_000;
/** Requests held at once per organisation on this node. */
const MAX_WAITERS = 256;
/** Workers remembered per organisation (ids seen in commits). */
const MAX_KNOWN = 50_000;

type Change = { seq: number; kind: 'worker' | 'work_order'; id: string };

class OrgLog {
  readonly epoch = randomSuffix(8);
  head = 0;
  private readonly ring: (Change | undefined)[];
  /** Each worker's cell as last seen by the sweep or sent. */
  readonly cells = new Map<string, string | null>();
  readonly waiters = new Set<() => void>();
  lastAsked = Date.now();

  constructor(readonly capacity: number) {
    this.ring = new Array(capacity);
  }

  /** The oldest sequence a cursor may name and still be answered from the log. */
  get floor(): number {
    return Math.max(0, this.head - this.capacity);
  }

  push(kind: Change['kind'], id: string): void {
    const seq = ++this.head;
    this.ring[seq % this.capacity] = { seq, kind, id };
    for (const w of this.waiters) w();
    this.waiters.clear();
  }

  /** Distinct records changed after `after`, at most `max`, and the sequence of the last included. */
  since(after: number, max: number): { changes: Change[]; upTo: number } {
    const seen = new Set<string>();
    const changes: Change[] = [];
    let upTo = after;
    for (let s = after + 1; s <= this.head; s++) {
      const c = this.ring[s % this.capacity]!;
      const k = `${c.kind}:${c.id}`;
      if (!seen.has(k)) {
        if (changes.length === max) break;
        seen.add(k);
        changes.push(c);
      }
      upTo = s;
    }
    return { changes, upTo };
  }

  release(): void {
    for (const w of this.waiters) w();
    this.waiters.clear();
  }
}

export interface SupplyWorker {
  worker_id: string;
  availability: string | null;
  on_assignment: boolean | null;
  presence: string | null;
  in_map: boolean;
  excluded_because: string | null;
  cell: string | null;
  latitude: number | null;
  longitude: number | null;
  /** True when the organisation has no such worker (any more). */
  removed?: true;
}

export class SupplyFeed {
  private readonly logs = new Map<string, OrgLog>();
  private readonly known = new Map<string, Set<string>>();
  /** Worker actor id -> worker_id, for feed entries (which name the stream, not the worker_id). */
  private readonly workerIds = new Map<string, string>();
  private feed: FeedMember | undefined;
  private unsubscribe: (() => void) | undefined;
  private sweeper: NodeJS.Timeout | undefined;
  private stopped = false;
  readonly capacity: number;
  readonly holdMs: number;

  constructor(private readonly platform: Platform) {
    const cap = Number(platform.config.SUPPLY_FEED_BUFFER);
    this.capacity = Number.isInteger(cap) && cap > 0 ? cap : DEFAULT_CAPACITY;
    const hold = Number(platform.config.SUPPLY_FEED_HOLD_MS);
    this.holdMs = Number.isInteger(hold) && hold > 0 ? hold : DEFAULT_HOLD_MS;
  }

  /**
   * This node's commits as they happen, and its own reading of the journal feed from its start
   * (kernel platformFeed, perNode): every node's commits in a cluster, and the workers committed
   * before the feed started, embedded or not.
   */
  start(): void {
    // ahead: a request reads the map its own turn changed (ActorSystem.onCommit)
    this.unsubscribe = this.platform.system.onCommit((c) => this.onCommit(c), { ahead: true });
    this.feed = platformFeed(this.platform, NAME, async (entries) => this.onFeed(entries), { perNode: true });
    this.feed.start();
    this.sweeper = setInterval(() => this.sweep(), SWEEP_MS);
    this.sweeper.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.sweeper);
    this.unsubscribe?.();
    for (const log of this.logs.values()) log.release();
    this.logs.clear();
    await this.feed?.stop();
  }

  /** Resolves once the journal feed read so far is applied. */
  async caughtUp(): Promise<void> {
    await this.feed?.caughtUp();
  }

  private get allocation(): AllocationService | undefined {
    return this.platform.services.get(ALLOCATION);
  }

  // -- following --------------------------------------------------------------------------------

  private onCommit(c: Committed): void {
    if (c.kind === Worker.kind) this.worker(c.org, (c.state as WorkerState).worker_id, c.id);
    else if (c.kind === WorkOrder.kind) this.note(c.org, 'work_order', c.id);
  }

  private onFeed(entries: FeedEntry[]): void {
    for (const { stream, event } of entries) {
      const dot = stream.indexOf('.');
      const kind = stream.slice(0, dot);
      const id = stream.slice(dot + 1);
      if (kind === WorkOrder.kind) this.note(event.org, 'work_order', id);
      else if (kind === Worker.kind) {
        const named = (event.data as { worker_id?: unknown }).worker_id;
        const workerId = typeof named === 'string' ? named : this.workerIds.get(id);
        if (workerId !== undefined) this.worker(event.org, workerId, id);
        else this.track(this.platform.system.state(Worker, id, event.org).then((s) => this.worker(event.org, s.worker_id, id)));
      }
    }
  }

  private worker(org: string, workerId: string, actorId: string): void {
    if (!workerId) return; // a record of the old scheme not yet adopted (worker-directory.ts)
    if (this.workerIds.size >= MAX_KNOWN * 4) this.workerIds.clear();
    this.workerIds.set(actorId, workerId);
    this.remember(org, workerId);
    this.note(org, 'worker', workerId);
  }

  private remember(org: string, workerId: string): void {
    let set = this.known.get(org);
    if (!set) this.known.set(org, (set = new Set()));
    if (set.size < MAX_KNOWN) set.add(workerId);
  }

  private note(org: string, kind: Change['kind'], id: string): void {
    this.logs.get(org)?.push(kind, id);
  }

  /** Cells that heartbeats moved (no commit), and logs nobody asked of lately. */
  private sweep(): void {
    if (this.platform.system.stopping) {
      if (feeds.get(this.platform) === this) feeds.delete(this.platform);
      void this.stop();
      return;
    }
    const now = Date.now();
    const map = this.allocation?.supply;
    for (const [org, log] of this.logs) {
      if (now - log.lastAsked > IDLE_MS && log.waiters.size === 0) {
        this.logs.delete(org);
        continue;
      }
      if (!map) continue;
      for (const w of this.known.get(org) ?? []) {
        const cell = map.position(org, w)?.cell ?? null;
        const was = log.cells.get(w);
        if (was === cell) continue;
        log.cells.set(w, cell);
        if (was !== undefined) log.push('worker', w); // the first look is the baseline: the snapshot had it
      }
    }
  }

  private track(p: Promise<unknown>): void {
    this.platform.system.track(p).catch(() => {}); // a worker record that cannot be read is read when next asked
  }

  // -- answering --------------------------------------------------------------------------------

  /** One request of a subscriber of `org`: the batch after `cursor` (or the snapshot's workers from `rest` on), as JSON. */
  async next(org: string, cursor: string | null, near?: Near, rest?: number): Promise<string> {
    if (this.stopped) throw new ApiError('unavailable', 'This node is shutting down; subscribe again.');
    let log = this.logs.get(org);
    if (!log) this.logs.set(org, (log = new OrgLog(this.capacity)));
    log.lastAsked = Date.now();
    const at = parseCursor(cursor, log);
    if (at.resync) {
      await this.caughtUp(); // every worker committed before this node's feed started is known
      return JSON.stringify(await this.snapshot(org, log, at.reason, near));
    }
    if (rest !== undefined) return JSON.stringify(await this.restOf(org, log, cursor!, rest));
    if (at.seq >= log.head) {
      if (log.waiters.size >= MAX_WAITERS) throw new ApiError('overloaded', `More than ${MAX_WAITERS} requests of this organisation are waiting on this node; ask again shortly.`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, this.holdMs);
        function done() {
          clearTimeout(timer);
          log!.waiters.delete(done);
          resolve();
        }
        log!.waiters.add(done);
      });
      if (this.stopped) throw new ApiError('unavailable', 'This node is shutting down; subscribe again.');
      log.lastAsked = Date.now();
    }
    const { changes, upTo } = log.since(at.seq, MAX_BATCH);
    const workers: SupplyWorker[] = [];
    const workOrders: unknown[] = [];
    await Promise.all(
      changes.map(async (c) => {
        if (c.kind === 'worker') workers.push(await this.workerView(org, c.id, log!));
        else {
          const wo = await this.workOrderView(org, c.id);
          if (wo) workOrders.push(wo);
        }
      }),
    );
    return JSON.stringify({ object: 'supply_changes', resync: false, cursor: cursorOf(log, upTo), workers, work_orders: workOrders });
  }

  private async snapshot(org: string, log: OrgLog, reason: string, near?: Near) {
    const head = log.head; // changes after this are sent on the next request, even if read here too
    const s = this.allocation;
    if (s && near) for (const n of s.nearest(org, near.latitude, near.longitude, near.radius_metres, SNAPSHOT_WORKERS)) this.remember(org, n.worker_id);
    const ids = [...(this.known.get(org) ?? [])];
    const truncated = ids.length > SNAPSHOT_WORKERS;
    const more = truncated ? { next_rest: SNAPSHOT_WORKERS } : {};
    const workers = await Promise.all(ids.slice(0, SNAPSHOT_WORKERS).map((w) => this.workerView(org, w, log)));
    const [open, gaps] = await Promise.all([
      listPage(this.platform.system, WorkOrder, org, 'status:open', { limit: SNAPSHOT_OPEN }, 'desc'),
      listPage(this.platform.system, WorkOrder, org, 'status:unfilled', { limit: SNAPSHOT_GAPS }, 'desc'),
    ]);
    const orders = await Promise.all([...open.data, ...gaps.data].map((v) => this.workOrderView(org, (v as { id: string }).id)));
    return {
      object: 'supply_changes',
      resync: true,
      reason,
      cursor: cursorOf(log, head),
      workers: workers.filter((w) => !w.removed),
      work_orders: orders.filter((o) => o !== undefined),
      truncated,
      ...more,
    };
  }

  /** The snapshot's workers from the `from`-th on (the organisation's known workers keep their order), the cursor as asked. */
  private async restOf(org: string, log: OrgLog, cursor: string, from: number) {
    const ids = [...(this.known.get(org) ?? [])];
    const workers = await Promise.all(ids.slice(from, from + SNAPSHOT_WORKERS).map((w) => this.workerView(org, w, log)));
    const truncated = from + SNAPSHOT_WORKERS < ids.length;
    return { object: 'supply_changes', resync: false, rest: from, cursor, workers: workers.filter((w) => !w.removed), work_orders: [], truncated, ...(truncated ? { next_rest: from + SNAPSHOT_WORKERS } : {}) };
  }

  /** A worker as GET /v1/allocation/availability/{worker_id} shows it, with its cell and position on this node's map. */
  private async workerView(org: string, workerId: string, log: OrgLog): Promise<SupplyWorker> {
    const s = this.allocation;
    if (!s) return blank(workerId);
    let r: { availability: string; on_assignment: boolean; presence: string; supply: { in_map: boolean; excluded_because: string | null; cell: string | null } };
    try {
      r = (await workerRecord(this.platform, org, workerId)) as unknown as typeof r;
    } catch (e) {
      if (e instanceof ApiError && e.code === 'not_found') return { ...blank(workerId), removed: true };
      throw e;
    }
    const pos = s.supply.position(org, workerId);
    log.cells.set(workerId, pos?.cell ?? null);
    return {
      worker_id: workerId,
      availability: r.availability,
      on_assignment: r.on_assignment,
      presence: r.presence,
      in_map: r.supply.in_map,
      excluded_because: r.supply.excluded_because,
      cell: r.supply.cell,
      latitude: pos?.latitude ?? null,
      longitude: pos?.longitude ?? null,
    };
  }

  /** A work order as GET /v1/allocation/work_orders/{id} shows it, with its offers (newest first). */
  private async workOrderView(org: string, id: string): Promise<unknown> {
    let st: WorkOrderState;
    try {
      st = await this.platform.system.state(WorkOrder, id, org);
    } catch (e) {
      if (e instanceof ApiError && (e.code === 'not_found' || e.code === 'organisation_mismatch')) return undefined;
      throw e;
    }
    return { ...(WorkOrder.view(st) as object), offers: [...st.offers].reverse().map((o) => offerView(st, o)) };
  }
}

const blank = (workerId: string): SupplyWorker => ({ worker_id: workerId, availability: null, on_assignment: null, presence: null, in_map: false, excluded_because: null, cell: null, latitude: null, longitude: null });

export interface Near {
  latitude: number;
  longitude: number;
  radius_metres: number;
}

const cursorOf = (log: OrgLog, seq: number) => `${log.epoch}.${seq}`;

function parseCursor(cursor: string | null, log: OrgLog): { resync: true; reason: string } | { resync: false; seq: number } {
  if (cursor === null) return { resync: true, reason: 'subscribed' };
  const dot = cursor.lastIndexOf('.');
  const seq = Number(cursor.slice(dot + 1));
  if (dot < 0 || cursor.slice(0, dot) !== log.epoch || !Number.isInteger(seq) || seq < 0 || seq > log.head) return { resync: true, reason: 'cursor_unknown' };
  if (seq < log.floor) return { resync: true, reason: 'fell_behind' };
  return { resync: false, seq };
}

// -- the socket -----------------------------------------------------------------------------------

/** What a subscriber sends: the cursor of the last batch it read (null at first), and optionally where it looks. */
function readRequest(data: Uint8Array): { after: string | null; near?: Near; rest?: number } {
  let v: unknown;
  try {
    v = JSON.parse(new TextDecoder().decode(data));
  } catch {
    throw new ApiError('invalid_request', 'A request is a JSON object: {"after": <the cursor of the last batch, or null>}.');
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new ApiError('invalid_request', 'A request is a JSON object: {"after": <cursor or null>}.');
  const o = v as Record<string, unknown>;
  for (const k of Object.keys(o)) if (k !== 'after' && k !== 'near' && k !== 'rest') throw new ApiError('invalid_request', `Unknown field ${k.slice(0, 40)}; a request has after and, optionally, near or rest.`);
  const after = o.after ?? null;
  if (after !== null && (typeof after !== 'string' || after.length > 64)) throw new ApiError('invalid_request', 'after is the cursor of the last batch (a string of at most 64 characters) or null.');
  if (o.rest !== undefined) {
    if (!Number.isInteger(o.rest) || (o.rest as number) < 0 || (o.rest as number) > MAX_KNOWN) throw new ApiError('invalid_request', `rest is the next_rest of a truncated batch (an integer from 0 to ${MAX_KNOWN}).`);
    return { after, rest: o.rest as number };
  }
  if (o.near === undefined) return { after };
  const n = o.near as Record<string, unknown>;
  const num = (x: unknown, lo: number, hi: number) => typeof x === 'number' && Number.isFinite(x) && x >= lo && x <= hi;
  if (typeof n !== 'object' || n === null || !num(n.latitude, -90, 90) || !num(n.longitude, -180, 180) || !num(n.radius_metres, 1, 100_000)) {
    throw new ApiError('invalid_request', 'near is {latitude (-90 to 90), longitude (-180 to 180), radius_metres (1 to 100000)}.');
  }
  return { after, near: { latitude: n.latitude as number, longitude: n.longitude as number, radius_metres: n.radius_metres as number } };
}

export const supplySocket: SocketDef = {
  path: SUPPLY_SOCKET_PATH,
  module: 'match',
  frames: 'text',
  summary: 'The organisation\u2019s supply changes (workers\u2019 cells, availability and presence; work orders and their cascades; supply gaps), pushed as they happen to a subscriber that asks with its cursor.',
  specGap: 'The spec names no push of supply changes; see docs/gaps.md#console.',
  limits: () => ({ badFramesPerConnection: 16, framesPerSecond: 20 }),
  async onMessage(frame, ctx) {
    const req = readRequest(frame.data);
    return supplyFeed(ctx.platform).next(ctx.org, req.after, req.near, req.rest);
  },
};

/**
 * The node's supply feed, started by its first subscriber (the area's start and stop are not this
 * file's: it stops itself once the actor system is stopping).
 */
const feeds = new WeakMap<Platform, SupplyFeed>();
export function supplyFeed(platform: Platform): SupplyFeed {
  let f = feeds.get(platform);
  if (!f) {
    if (platform.system.stopping) throw new ApiError('unavailable', 'This node is shutting down; subscribe again on another.');
    feeds.set(platform, (f = new SupplyFeed(platform)));
    f.start();
  }
  return f;
}
