/**
 * The allocation area's running part: heartbeats (one code path behind REST and the WebSocket),
 * availability, presence by the clock, and the supply map of the whole cluster (supply-replica.ts,
 * fed over NATS by supply-bus.ts in a cluster) kept in step with every worker transition.
 * Registered under ALLOCATION in the area's start.
 *
 * Where a worker's facts live: the Worker actor's committed state is the one record of their
 * transitions; live.ts holds, on the node taking their heartbeats, the recent readings and a copy
 * of that committed state (replaced by each commit's state); the replica holds what the map needs
 * of both, on every node.
 */
import { ApiError, type Caller, errorEntry, serviceKey, subjectNumbers, type Platform, type ValidationEntry } from '../../../kernel/index.ts';
import type { Committed } from '../../../runtime/index.ts';
import type { ClusterStores } from '../../../stores/index.ts';
import { WORKER_ID, parseBatch, storedReading, type AvailabilityState, type HeartbeatBatch, type Reading, type StoredReadingData } from './heartbeat.ts';
import { LiveWorkers, type LiveWorker } from './live.ts';
import type { Presence } from './presence.ts';
import type { LoadedPolicy } from '../policy.ts';
import type { CrossCheckAnswer, NetworkCrossCheckProvider } from '../providers/network-cross-check.ts';
import type { ExclusionReason, Neighbour, SupplyChange, SupplyMap } from './supply-map.ts';
import { SupplyBus } from './supply-bus.ts';
import { committedFacts, SupplyReplica, type SupplyRecord, type SupplyUpdate } from './supply-replica.ts';
import { judgeBatch, type Verdict, type Rejection, type Signal } from './validation.ts';
import { Worker, workerActorId, type ExternalExclusion, type WireSignal, type WorkerState } from './worker.ts';
import { WorkerDirectory } from './worker-directory.ts';
import { IngestCounters } from './counters.ts';
import { IntegrityFlag } from './integrity-flag.ts';

export interface HeartbeatReceipt {
  object: 'heartbeat_receipt';
  worker_id: string;
  accepted_count: number;
  rejected_count: number;
  reconciled: boolean;
  presence: Presence;
  validation: { entry_count: number; error_count: number; warning_count: number; entries: ValidationEntry[] };
  rejections: Rejection[];
}

export interface SupplyState {
  object: 'supply_state';
  worker_id: string;
  presence: Presence;
  in_map: boolean;
  excluded_because: ExclusionReason | null;
  cell: string | null;
}

const NO_DUPLICATES: ReadonlySet<number> = new Set();

/** The allocation area's running service on a platform (registered in its start). */
export const ALLOCATION = serviceKey<AllocationService>('allocation');

export class AllocationService {
  /** Every worker of the cluster the supply map needs, with the map itself. */
  readonly replica: SupplyReplica;
  readonly live: LiveWorkers;
  readonly workers: WorkerDirectory;
  /** The replica's transport between nodes (cluster only). */
  readonly bus: SupplyBus | undefined;
  /** What this node's heartbeat path received and accepted, per organisation (counters.ts). */
  readonly counters: IngestCounters;
  private unsubscribe: (() => void) | undefined;

  constructor(
    readonly platform: Platform,
    readonly policy: LoadedPolicy,
    readonly network: NetworkCrossCheckProvider,
  ) {
    const p = policy.pack;
    this.workers = new WorkerDirectory(platform);
    this.counters = new IngestCounters(platform.clock.now());
    this.live = new LiveWorkers(this.workers, platform.clock, platform.stores.readings, p);
    this.replica = new SupplyReplica(p, platform.clock, subjectNumbers(platform), (r, change, next) => this.refreshed(r, change, next));
    const stores = platform.stores as ClusterStores;
    this.bus =
      stores.mode === 'cluster' && stores.nats
        ? new SupplyBus(
            stores.nats,
            stores.namespace,
            (updates) => {
              for (const u of updates) this.replica.apply(u);
            },
            () => this.replica.all(),
          )
        : undefined;
  }

  /** The map the nearest-N query reads (this node's copy of the cluster's). */
  get supply(): SupplyMap {
    return this.replica.map;
  }

  start(): void {
    // ahead: a request reads the supply its own turn changed (ActorSystem.onCommit); the bus only
    // runs in a cluster, whose journal is not ordered, so it still hears of durable commits only
    this.unsubscribe = this.platform.system.onCommit((c) => this.onCommit(c), { ahead: true });
    this.replica.start();
    this.bus?.start();
  }

  stop(): void {
    this.unsubscribe?.();
    this.bus?.stop();
    this.replica.stop();
    this.live.clear();
  }

  // -- heartbeats -------------------------------------------------------------------------------

  /** POST /v1/allocation/heartbeats and the heartbeat socket both land here. */
  heartbeats(body: unknown, caller: Caller): Promise<HeartbeatReceipt> {
    return this.ingest(parseBatch(body, this.policy.pack.heartbeat.max_readings_per_batch), caller);
  }

  /**
   * A batch already parsed (parseBatch, or the socket's one-pass msgpack decoder), in named steps:
   * the worker's soft state, the readings judged, the accepted ones stored, signals and drift
   * reported to the worker actor, the supply map told, the receipt. (A step that need not wait
   * answers at once; `x instanceof Promise ? await x : x` keeps the common batch free of waits.)
   */
  async ingest(batch: HeartbeatBatch, caller: Caller): Promise<HeartbeatReceipt> {
    const got = this.liveWorker(caller.org, batch.workerId);
    const lw = got instanceof Promise ? await got : got;
    const dup = this.olderDuplicates(lw, batch.readings);
    const older = dup instanceof Promise ? await dup : dup;
    const v = judgeBatch(batch.readings, { now: this.platform.clock.now(), policy: this.policy.pack, stateAt: lw.stateAt, recent: lw.recent, olderDuplicates: older });
    const signals: Signal[] = v.signals;
    if (v.accepted.length) {
      await this.store(lw, v.accepted, caller);
      const checked = this.crossCheck(batch.workerId, v.accepted);
      const inconsistent = checked instanceof Promise ? await checked : checked;
      if (inconsistent) signals.push(inconsistent);
    }
    if (signals.length) await this.reportSignals(lw, signals, caller);
    if (v.drift.length) this.reportDrift(lw, batch.readings, v, caller);
    const presence = this.tellSupply(lw, true).presence;
    this.counters.count(caller.org, batch.readings.length, v.accepted.length, v.rejections);
    return receipt(batch, v, presence);
  }

  /** Step 1: the worker's soft state, its copy of the committed state no older than the replica has heard of. */
  private liveWorker(org: string, workerId: string): LiveWorker | Promise<LiveWorker> {
    const got = this.live.get(org, workerId);
    return got instanceof Promise ? got.then((lw) => this.catchUp(lw)) : this.catchUp(got);
  }

  /** In a cluster the worker's commits happen on its owner: read the state again once a newer version is announced. */
  private catchUp(lw: LiveWorker): LiveWorker | Promise<LiveWorker> {
    const r = this.replica.at(lw.key);
    if (!r?.committed || r.committed.version <= (lw.state.version ?? 0)) return lw;
    return this.platform.system.state<WorkerState>(Worker, lw.id, lw.org).then((s) => (this.live.mirror(lw.org, lw.workerId, s), lw));
  }

  /** Step 2: when the recent memory is full, a reading older than it may duplicate one only the store holds. */
  private olderDuplicates(lw: LiveWorker, readings: readonly Reading[]): ReadonlySet<number> | Promise<ReadonlySet<number>> {
    const h = this.policy.pack.heartbeat;
    if (lw.recent.size < h.recent_readings_kept) return NO_DUPLICATES;
    const horizon = this.platform.clock.now() - h.retention_window_seconds * 1000;
    let lo = Infinity;
    let hi = -Infinity;
    for (const r of readings) if (r.recordedAt < lw.recent.oldest && r.recordedAt >= horizon) (lo = Math.min(lo, r.recordedAt)), (hi = Math.max(hi, r.recordedAt));
    if (lo > hi) return NO_DUPLICATES;
    return this.platform.stores.readings.range(lw.id, lo, hi).then((rs) => new Set(rs.map((r) => r.recordedAt)));
  }

  /** Step 3: the accepted readings into the ReadingStore, and the latest report. */
  private async store(lw: LiveWorker, accepted: readonly Reading[], caller: Caller): Promise<void> {
    try {
      await this.platform.stores.readings.append(lw.id, accepted.map((r) => ({ recordedAt: r.recordedAt, data: storedReading(r) })));
    } catch (e) {
      this.live.forget(caller.org, lw.workerId); // its recent memory now holds readings the store refused
      throw e;
    }
    const reported = Math.min(accepted[accepted.length - 1].recordedAt, this.platform.clock.now());
    if (lw.lastReportAt === undefined || reported > lw.lastReportAt) lw.lastReportAt = reported;
  }

  /** Step 4: the network's view of the latest positioned accepted reading; a signal when it disagrees. */
  private crossCheck(workerId: string, accepted: readonly Reading[]): Signal | undefined | Promise<Signal | undefined> {
    let positioned: Reading | undefined;
    for (let i = accepted.length - 1; i >= 0 && !positioned; i--) if (accepted[i].position) positioned = accepted[i];
    if (!positioned) return undefined;
    const at = positioned.recordedAt;
    const pending = this.network.check({ worker_id: workerId, latitude: positioned.position!.latitude, longitude: positioned.position!.longitude, recorded_at: at, connectivity: positioned.connectivity });
    return pending instanceof Promise ? pending.then((answer) => inconsistency(answer, at)) : inconsistency(pending, at);
  }

  /** Step 5: signals not yet on the worker's open flag go to the worker actor (which opens or extends it). */
  private async reportSignals(lw: LiveWorker, signals: Signal[], caller: Caller): Promise<void> {
    const s = lw.state;
    const known = new Set(s.open_flag_id !== null ? s.open_flag_sources : []);
    const fresh: WireSignal[] = [];
    let mocked = false;
    for (const sig of signals) {
      if (known.has(sig.source)) continue;
      known.add(sig.source);
      fresh.push({ source: sig.source, fired_at: new Date(sig.firedAt).toISOString(), detail: sig.detail });
      mocked ||= sig.mocked === true;
    }
    if (!fresh.length) return;
    await this.platform.system.ask(Worker, lw.id, 'report_signals', { worker_id: lw.workerId, signals: fresh, livemode: caller.livemode, mocked }, caller);
  }

  /** Step 6: the first drift since the availability changed is recorded on the worker (in the background). */
  private reportDrift(lw: LiveWorker, readings: readonly Reading[], v: Verdict, caller: Caller): void {
    if (lw.state.drift_reported) return;
    const d = v.drift[0];
    const r = readings[d.index - 1];
    this.background(this.platform.system.ask(Worker, lw.id, 'report_drift', { reported: d.reported, recorded: d.recorded, recorded_at: new Date(r.recordedAt).toISOString() }, caller));
  }

  /**
   * Step 7: what this node knows of the worker into the supply replica, and to the other nodes when
   * it was news: the latest report with the committed facts it was judged under (so any node that
   * lost a part gets it back with the worker's next batch; each part is taken only when newer).
   */
  private tellSupply(lw: LiveWorker, send: boolean): SupplyRecord {
    let report: SupplyUpdate['report'] = null;
    if (lw.lastReportAt !== undefined) {
      const i = lw.recent.positionedBefore(Infinity);
      report = { at: lw.lastReportAt, latitude: i >= 0 ? lw.recent.lat[i] : null, longitude: i >= 0 ? lw.recent.lng[i] : null };
    }
    const u: SupplyUpdate = { org: lw.org, workerId: lw.workerId, committed: (lw.committed ??= committedFacts(lw.state)), report };
    const r = this.replica.apply(u, lw.key);
    if (r.newer && send && this.bus) this.bus.send(u);
    return r.record;
  }

  // -- availability -----------------------------------------------------------------------------

  async setAvailability(workerId: string, availability: AvailabilityState, caller: Caller) {
    if (!WORKER_ID.test(workerId)) throw new ApiError('validation_failed', 'worker_id must be a subject reference of 1 to 255 URL-safe characters.');
    const id = await this.actorId(caller.org, workerId);
    await this.platform.system.ask(Worker, id, 'set_availability', { worker_id: workerId, availability, livemode: caller.livemode }, caller);
    await this.readOwnWrite(caller.org, workerId, id);
    return this.workerRecord(caller.org, workerId);
  }

  async workerRecord(org: string, workerId: string) {
    const got = this.liveWorker(org, workerId);
    const lw = got instanceof Promise ? await got : got;
    const r = this.tellSupply(lw, false);
    return { ...(Worker.view(lw.state) as object), presence: r.presence, supply: this.supplyState(r) };
  }

  async supplyStateOf(org: string, workerId: string): Promise<SupplyState> {
    const got = this.liveWorker(org, workerId);
    const lw = got instanceof Promise ? await got : got;
    return this.supplyState(this.tellSupply(lw, false));
  }

  private supplyState(r: SupplyRecord): SupplyState {
    const pos = this.replica.map.position(r.org, r.workerId);
    return { object: 'supply_state', worker_id: r.workerId, presence: r.presence, in_map: pos !== undefined, excluded_because: r.excludedBecause, cell: pos?.cell ?? null };
  }

  /**
   * After a command on a worker: in a cluster its owner may be another node, whose announcement
   * is still on its way; read the committed state so this answer already shows the change.
   */
  private async readOwnWrite(org: string, workerId: string, id: string): Promise<void> {
    if (!this.bus) return;
    const s = await this.platform.system.state<WorkerState>(Worker, id, org);
    this.live.mirror(org, workerId, s);
    this.replica.apply({ org, workerId, committed: committedFacts(s), report: null });
  }

  /**
   * A worker's stored readings with from <= recorded_at <= to, in recorded_at order (proof of
   * service and telemetry continuity read them) of the organisation's own worker of that worker_id (404 when it has none).
   */
  async readings(org: string, workerId: string, from: number, to: number): Promise<{ recordedAt: number; data: StoredReadingData }[]> {
    const { id } = await this.workers.state(org, workerId);
    return (await this.platform.stores.readings.range(id, from, to)) as { recordedAt: number; data: StoredReadingData }[];
  }

  /**
   * Exclude a worker from the supply map for a reason of another area (spec 6 cascade rule); the
   * removal is applied when the exclusion commits, before this resolves. Readmit lifts it.
   */
  async exclude(org: string, workerId: string, reason: ExternalExclusion, requestId?: string): Promise<SupplyState> {
    const id = await this.actorId(org, workerId);
    await this.platform.system.ask(Worker, id, 'exclude', { worker_id: workerId, reason }, { org, requestId, principal: 'system' });
    await this.readOwnWrite(org, workerId, id);
    return this.supplyStateOf(org, workerId);
  }

  async readmit(org: string, workerId: string, reason: ExternalExclusion, requestId?: string): Promise<SupplyState> {
    const { id } = await this.workers.state(org, workerId);
    await this.platform.system.ask(Worker, id, 'readmit', { reason }, { org, requestId, principal: 'system' });
    await this.readOwnWrite(org, workerId, id);
    return this.supplyStateOf(org, workerId);
  }

  /** The actor id of a worker, for a command that may create its record (an old-scheme record is adopted first). */
  private async actorId(org: string, workerId: string): Promise<string> {
    return this.live.peek(org, workerId)?.id ?? (await this.workers.prepare(org, workerId));
  }

  /** The worker's settled assignments (the ranking's reliability), from the cluster's supply replica. */
  assignmentsOf(org: string, workerId: string): { completed: number; failed: number } {
    const c = this.replica.get(org, workerId)?.committed;
    if (c) return { completed: c.completed, failed: c.failed };
    return this.live.peek(org, workerId)?.state.assignments ?? { completed: 0, failed: 0 };
  }

  /** The worker's open integrity flag, if any (an integrity signal during an assignment). */
  openFlagOf(org: string, workerId: string): string | null {
    const c = this.replica.get(org, workerId)?.committed;
    if (c) return c.openFlag;
    return this.live.peek(org, workerId)?.state.open_flag_id ?? null;
  }

  /** When the worker's latest accepted reading was recorded (clamped to its arrival; presence quality for ranking). */
  lastReadingAt(org: string, workerId: string): number | undefined {
    return this.replica.get(org, workerId)?.report?.at;
  }

  /** The nearest eligible workers of the whole cluster (the query work orders rank from). */
  nearest(org: string, latitude: number, longitude: number, radiusMetres: number, limit: number): Neighbour[] {
    return this.replica.map.nearest(org, latitude, longitude, radiusMetres, limit);
  }

  // -- keeping the map in step ------------------------------------------------------------------

  /** After the replica refreshed a record: record a presence change on the worker, drop soft state no longer needed. */
  private refreshed(r: SupplyRecord, change: SupplyChange, next: number | undefined): void {
    const lw = this.live.atKey(r.key);
    if (!lw) return;
    // the node taking the worker's heartbeats records their presence (one node, not every replica)
    if (r.presence !== lw.presenceSent && lw.state.created_at > 0) {
      lw.presenceSent = r.presence;
      this.background(this.platform.system.ask(Worker, lw.id, 'record_presence', { presence: r.presence }, { org: lw.org, principal: 'system', lane: 'system' }));
    }
    // out of the map with nothing left to time: drop the soft state (rebuilt on the next heartbeat
    // from the actor and the ReadingStore), so it is held only for workers who are around
    if (next === undefined && change.excluded_because !== null) this.live.forget(lw.org, lw.workerId);
  }

  private onCommit(c: Committed): void {
    if (c.kind === Worker.kind) {
      const s = c.state as WorkerState;
      if (!s.worker_id) return; // a record of the old scheme: its adopter carries it (worker-directory.ts)
      this.live.mirror(c.org, s.worker_id, s);
      const u: SupplyUpdate = { org: c.org, workerId: s.worker_id, committed: committedFacts(s), report: null };
      if (this.replica.apply(u).newer) this.bus?.send(u);
      return;
    }
    if (c.kind === IntegrityFlag.kind) {
      for (const e of c.events) {
        if (e.type !== 'integrity_flag.upheld' && e.type !== 'integrity_flag.dismissed') continue;
        const d = e.data as { worker_id: string; suspends: boolean };
        // at once, rather than when the reaction's turn comes (it sends the same command, a no-op then)
        const payload = { flag_id: c.id, outcome: e.type === 'integrity_flag.upheld' ? ('upheld' as const) : ('dismissed' as const), suspends: d.suspends === true };
        this.background(this.platform.system.ask(Worker, workerActorId(c.org, d.worker_id), 'close_flag', payload, { org: c.org, principal: 'system', lane: 'system' }));
      }
    }
  }

  private background(p: Promise<unknown>): void {
    this.platform.system.track(p).catch((e) => {
      if (!(e instanceof ApiError)) console.error('[allocation] background command failed', e);
    });
  }
}

function inconsistency(answer: CrossCheckAnswer, at: number): Signal | undefined {
  return answer.outcome === 'inconsistent' ? { source: 'network_cross_check', firedAt: at, detail: answer.detail, mocked: answer.mocked } : undefined;
}

function receipt(batch: HeartbeatBatch, v: Verdict, presence: Presence): HeartbeatReceipt {
  const entries: ValidationEntry[] = v.rejections.map((r) => errorEntry(undefined, r.reason, r.detail ?? r.reason, r.index));
  for (const d of v.drift) entries.push({ index: d.index, severity: 'warning', code: 'availability_drift', detail: `The device believed ${d.reported}; the recorded availability was ${d.recorded}.` });
  if (v.drift.length) entries.sort((a, b) => a.index - b.index);
  return {
    object: 'heartbeat_receipt',
    worker_id: batch.workerId,
    accepted_count: v.accepted.length,
    rejected_count: v.rejections.length,
    reconciled: v.reconciled,
    presence,
    validation: { entry_count: batch.readings.length, error_count: v.rejections.length, warning_count: v.drift.length, entries },
    rejections: v.rejections,
  };
}
