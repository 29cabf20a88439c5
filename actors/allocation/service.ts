/**
 * The allocation area's running part: heartbeats (one code path behind REST and the WebSocket),
 * availability, presence by the clock, and the supply map kept in step with every worker
 * transition. Registered under ALLOCATION in the area's start.
 */
import { ApiError, type Caller, serviceKey, type Platform, type ValidationEntry } from '../../kernel/index.ts';
import type { Committed } from '../../runtime/index.ts';
import { WORKER_ID, parseBatch, storedReading, type AvailabilityState, type HeartbeatBatch, type StoredReadingData } from './heartbeat.ts';
import { LiveWorkers, type LiveWorker } from './live.ts';
import { nextPresenceChange, presenceAt, PresenceTimers, type Presence, type PresenceInput } from './presence.ts';
import type { LoadedPolicy } from './policy.ts';
import type { NetworkCrossCheckProvider } from './providers/network-cross-check.ts';
import { SupplyMap, excludedBecause, type ExclusionReason, type Neighbour, type SupplyFacts } from './supply-map.ts';
import { judgeBatch, type Rejection, type Signal } from './validation.ts';
import { Worker, type ExternalExclusion, type WireSignal, type WorkerState } from './worker.ts';
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
  readonly supply: SupplyMap;
  readonly live: LiveWorkers;
  readonly workers: WorkerDirectory;
  private readonly timers: PresenceTimers;
  /** What this node's heartbeat path received and accepted, per organisation (counters.ts). */
  readonly counters: IngestCounters;
  private unsubscribe: (() => void) | undefined;

  constructor(
    readonly platform: Platform,
    readonly policy: LoadedPolicy,
    readonly network: NetworkCrossCheckProvider,
  ) {
    const p = policy.pack;
    this.supply = new SupplyMap(p.supply.h3_resolution, p.supply.region_resolution);
    this.workers = new WorkerDirectory(platform);
    this.counters = new IngestCounters(platform.clock.now());
    this.live = new LiveWorkers(this.workers, platform.clock, platform.stores.readings, p);
    this.timers = new PresenceTimers(platform.clock, (k, now) => {
      const lw = this.live.atKey(k);
      if (lw) this.refresh(lw, now);
    });
  }

  start(): void {
    this.unsubscribe = this.platform.system.onCommit((c) => this.onCommit(c));
    this.timers.start();
  }

  stop(): void {
    this.unsubscribe?.();
    this.timers.stop();
    this.supply.clear();
    this.live.clear();
  }

  // -- heartbeats -------------------------------------------------------------------------------

  /** POST /v1/allocation/heartbeats and the heartbeat socket both land here. */
  heartbeats(body: unknown, caller: Caller): Promise<HeartbeatReceipt> {
    return this.ingest(parseBatch(body, this.policy.pack.heartbeat.max_readings_per_batch), caller);
  }

  /** A batch already parsed (parseBatch, or the socket's one-pass msgpack decoder). */
  async ingest(batch: HeartbeatBatch, caller: Caller): Promise<HeartbeatReceipt> {
    const h = this.policy.pack.heartbeat;
    const got = this.live.get(caller.org, batch.workerId);
    const lw = got instanceof Promise ? await got : got;
    // in a cluster the worker's commits may happen on another node, out of this node's onCommit:
    // read the committed state for every batch there (embedded, the mirror is always current)
    if (this.platform.stores.mode === 'cluster') lw.state = await this.platform.system.state<WorkerState>(Worker, lw.id, lw.org);
    const readings = this.platform.stores.readings;
    let now = this.platform.clock.now();

    let older = NO_DUPLICATES;
    if (lw.recent.size >= h.recent_readings_kept) {
      // the recent memory is full: a reading older than it may duplicate one only the store holds
      const horizon = now - h.retention_window_seconds * 1000;
      let lo = Infinity;
      let hi = -Infinity;
      for (const r of batch.readings) if (r.recordedAt < lw.recent.oldest && r.recordedAt >= horizon) (lo = Math.min(lo, r.recordedAt)), (hi = Math.max(hi, r.recordedAt));
      if (lo <= hi) {
        older = new Set((await readings.range(lw.id, lo, hi)).map((r) => r.recordedAt));
        now = this.platform.clock.now();
      }
    }

    const v = judgeBatch(batch.readings, { now, policy: this.policy.pack, stateAt: lw.stateAt, recent: lw.recent, olderDuplicates: older });
    const signals: Signal[] = v.signals;
    if (v.accepted.length) {
      try {
        await readings.append(lw.id, v.accepted.map((r) => ({ recordedAt: r.recordedAt, data: storedReading(r) })));
      } catch (e) {
        this.live.forget(caller.org, batch.workerId); // its recent memory now holds readings the store refused
        throw e;
      }
      const latest = v.accepted[v.accepted.length - 1];
      const reported = Math.min(latest.recordedAt, now);
      if (lw.lastReportAt === undefined || reported > lw.lastReportAt) lw.lastReportAt = reported;
      let positioned = undefined as (typeof v.accepted)[number] | undefined;
      for (let i = v.accepted.length - 1; i >= 0 && !positioned; i--) if (v.accepted[i].position) positioned = v.accepted[i];
      if (positioned) {
        const pending = this.network.check({
          worker_id: batch.workerId,
          latitude: positioned.position!.latitude,
          longitude: positioned.position!.longitude,
          recorded_at: positioned.recordedAt,
          connectivity: positioned.connectivity,
        });
        const answer = pending instanceof Promise ? await pending : pending;
        if (answer.outcome === 'inconsistent') signals.push({ source: 'network_cross_check', firedAt: positioned.recordedAt, detail: answer.detail, mocked: answer.mocked });
      }
    }
    if (signals.length) await this.reportSignals(lw, signals, caller);
    if (v.drift.length && !lw.state.drift_reported) {
      const d = v.drift[0];
      const r = batch.readings[d.index - 1];
      this.background(
        this.platform.system.ask(Worker, lw.id, 'report_drift', { reported: d.reported, recorded: d.recorded, recorded_at: new Date(r.recordedAt).toISOString() }, caller),
      );
    }
    const presence = this.refresh(lw, this.platform.clock.now());

    const entries: ValidationEntry[] = v.rejections.map((r) => ({ index: r.index, severity: 'error' as const, code: r.reason, detail: r.detail ?? r.reason }));
    for (const d of v.drift)
      entries.push({ index: d.index, severity: 'warning', code: 'availability_drift', detail: `The device believed ${d.reported}; the recorded availability was ${d.recorded}.` });
    if (v.drift.length) entries.sort((a, b) => a.index - b.index);
    this.counters.count(caller.org, batch.readings.length, v.accepted.length, v.rejections);
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

  private async reportSignals(lw: LiveWorker, signals: Signal[], caller: Caller): Promise<void> {
    const s = lw.state;
    const open = s.open_flag_id !== null && !lw.closedFlags.has(s.open_flag_id);
    const known = new Set(open ? s.open_flag_sources : []);
    const fresh: WireSignal[] = [];
    let mocked = false;
    for (const sig of signals) {
      if (known.has(sig.source)) continue;
      known.add(sig.source);
      fresh.push({ source: sig.source, fired_at: new Date(sig.firedAt).toISOString(), detail: sig.detail });
      mocked ||= sig.mocked === true;
    }
    if (!fresh.length) return;
    await this.platform.system.ask(Worker, lw.id, 'report_signals', { worker_id: lw.workerId, signals: fresh, livemode: caller.livemode, mocked, closed_flags: [...lw.closedFlags.keys()] }, caller);
  }

  // -- availability -----------------------------------------------------------------------------

  async setAvailability(workerId: string, availability: AvailabilityState, caller: Caller) {
    if (!WORKER_ID.test(workerId)) throw new ApiError('validation_failed', 'worker_id must be a subject reference of 1 to 255 URL-safe characters.');
    const id = await this.actorId(caller.org, workerId);
    await this.platform.system.ask(Worker, id, 'set_availability', { worker_id: workerId, availability, livemode: caller.livemode }, caller);
    return this.workerRecord(caller.org, workerId);
  }

  async workerRecord(org: string, workerId: string) {
    const got = this.live.get(org, workerId);
    const lw = got instanceof Promise ? await got : got;
    this.refresh(lw, this.platform.clock.now());
    return { ...(Worker.view(lw.state) as object), presence: lw.presence!, supply: this.supplyState(lw) };
  }

  async supplyStateOf(org: string, workerId: string): Promise<SupplyState> {
    const got = this.live.get(org, workerId);
    const lw = got instanceof Promise ? await got : got;
    this.refresh(lw, this.platform.clock.now());
    return this.supplyState(lw);
  }

  private supplyState(lw: LiveWorker): SupplyState {
    const pos = this.supply.position(lw.org, lw.workerId);
    return {
      object: 'supply_state',
      worker_id: lw.workerId,
      presence: lw.presence!,
      in_map: pos !== undefined,
      excluded_because: excludedBecause(this.facts(lw, lw.presence!)),
      cell: pos?.cell ?? null,
    };
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
    await this.platform.system.ask(Worker, await this.actorId(org, workerId), 'exclude', { worker_id: workerId, reason }, { org, requestId, principal: 'system' });
    return this.supplyStateOf(org, workerId);
  }

  async readmit(org: string, workerId: string, reason: ExternalExclusion, requestId?: string): Promise<SupplyState> {
    const { id } = await this.workers.state(org, workerId);
    await this.platform.system.ask(Worker, id, 'readmit', { reason }, { org, requestId, principal: 'system' });
    return this.supplyStateOf(org, workerId);
  }

  /** The actor id of a worker, for a command that may create its record (an old-scheme record is adopted first). */
  private async actorId(org: string, workerId: string): Promise<string> {
    return this.live.peek(org, workerId)?.id ?? (await this.workers.prepare(org, workerId));
  }

  /** The worker's settled assignments (the ranking's reliability), from the state this node holds. */
  assignmentsOf(org: string, workerId: string): { completed: number; failed: number } {
    return this.live.peek(org, workerId)?.state.assignments ?? { completed: 0, failed: 0 };
  }

  /** The worker's integrity flag still open on this node, if any (an integrity signal during an assignment). */
  openFlagOf(org: string, workerId: string): string | null {
    const lw = this.live.peek(org, workerId);
    const open = lw?.state.open_flag_id ?? null;
    return open !== null && !lw!.closedFlags.has(open) ? open : null;
  }

  /** When the worker's latest accepted reading was recorded (presence quality for ranking), if the node holds it. */
  lastReadingAt(org: string, workerId: string): number | undefined {
    const lw = this.live.peek(org, workerId);
    return lw && lw.recent.size ? lw.recent.latest : undefined;
  }

  /** The nearest eligible workers (the query later work orders rank from). */
  nearest(org: string, latitude: number, longitude: number, radiusMetres: number, limit: number): Neighbour[] {
    return this.supply.nearest(org, latitude, longitude, radiusMetres, limit);
  }

  // -- keeping the map in step ------------------------------------------------------------------

  private facts(lw: LiveWorker, presence: Presence): SupplyFacts {
    const s = lw.state;
    let suspended = s.suspended_by !== null;
    for (const v of lw.closedFlags.values()) suspended ||= v;
    const i = lw.recent.positionedBefore(Infinity);
    return {
      available: s.availability === 'available',
      onAssignment: s.on_assignment,
      presence,
      latitude: i >= 0 ? lw.recent.lat[i] : undefined,
      longitude: i >= 0 ? lw.recent.lng[i] : undefined,
      suspended,
      flagOpen: s.open_flag_id !== null && !lw.closedFlags.has(s.open_flag_id),
      external: s.exclusions,
    };
  }

  /** Recompute presence and map membership now; schedule the next presence change. */
  private refresh(lw: LiveWorker, now: number): Presence {
    const input: PresenceInput = { lastReportAt: lw.lastReportAt, available: lw.state.availability === 'available', availableSince: lw.state.since };
    const pack = this.policy.pack;
    const presence = presenceAt(input, now, pack);
    lw.presence = presence;
    const change = this.supply.apply(lw.org, lw.workerId, this.facts(lw, presence));
    const next = nextPresenceChange(input, now, pack);
    this.timers.schedule(LiveWorkers.keyOf(lw.org, lw.workerId), next);
    if (presence !== lw.presenceSent && lw.state.created_at > 0) {
      lw.presenceSent = presence;
      this.background(this.platform.system.ask(Worker, lw.id, 'record_presence', { presence }, { org: lw.org, principal: 'system', lane: 'system' }));
    }
    // out of the map with nothing left to time: drop the soft state (rebuilt on the next heartbeat
    // from the actor and the ReadingStore), so it is held only for workers who are around
    if (next === undefined && change.excluded_because !== null) this.live.forget(lw.org, lw.workerId);
    return presence;
  }

  private onCommit(c: Committed): void {
    if (c.kind === Worker.kind) {
      const lw = this.live.mirror(c.org, (c.state as WorkerState).worker_id, c.events);
      if (lw) this.refresh(lw, this.platform.clock.now());
      return;
    }
    if (c.kind === IntegrityFlag.kind) {
      for (const e of c.events) {
        if (e.type !== 'integrity_flag.upheld' && e.type !== 'integrity_flag.dismissed') continue;
        const d = e.data as { worker_id: string; suspends: boolean };
        const lw = this.live.peek(c.org, d.worker_id);
        if (!lw) continue;
        // immediate: the worker actor records the same by reaction a moment later
        lw.closedFlags.set(c.id, d.suspends);
        this.refresh(lw, this.platform.clock.now());
      }
    }
  }

  private background(p: Promise<unknown>): void {
    this.platform.system.track(p).catch((e) => {
      if (!(e instanceof ApiError)) console.error('[allocation] background command failed', e);
    });
  }
}
