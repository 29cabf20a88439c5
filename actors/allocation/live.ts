/**
 * Soft state per worker, kept beside the supply map: the worker actor's committed state (mirrored
 * from its commits), the recent accepted readings, and the latest report. Heartbeats read and
 * write it without a journal; it is rebuilt from the actor and the ReadingStore after a restart.
 */
import type { Clock } from '../../runtime/index.ts';
import type { ReadingStore, StoredEvent } from '../../stores/index.ts';
import type { Presence } from './presence.ts';
import type { PolicyPack } from './policy.ts';
import { RecentReadings } from './recent-readings.ts';
import type { WorkerDirectory } from './worker-directory.ts';
import { Worker, stateAt, type WorkerEvent, type WorkerState } from './worker.ts';

/** Entries are keyed by organisation and the caller's worker_id (the supply map and timers use the same pair). */
export interface LiveWorker {
  org: string;
  /** The caller's reference (spec 4.7). */
  workerId: string;
  /** The Worker actor id, which is also the ReadingStore key (worker-directory.ts). */
  id: string;
  state: WorkerState;
  recent: RecentReadings;
  /** recorded_at (ms, clamped to arrival) of the latest accepted reading. */
  lastReportAt: number | undefined;
  /** Presence last computed (what the supply map holds); undefined before the first. */
  presence: Presence | undefined;
  /** Presence last sent to the worker actor to record. */
  presenceSent: Presence | undefined;
  /** Flags decided but not yet mirrored by the worker actor (flag id -> suspends). */
  closedFlags: Map<string, boolean>;
  /** What the worker was at an instant (made once per entry: no closure per batch). */
  stateAt(at: number): { availability: WorkerState['availability']; onAssignment: boolean };
}

const key = (org: string, id: string) => `${org}\u0000${id}`;

export class LiveWorkers {
  private readonly byKey = new Map<string, LiveWorker>();
  private readonly loading = new Map<string, Promise<LiveWorker>>();
  /** Workers that committed while their entry was loading: their loaded state may be behind. */
  private readonly dirty = new Set<string>();

  constructor(
    private readonly workers: WorkerDirectory,
    private readonly clock: Clock,
    private readonly readings: ReadingStore,
    private readonly policy: PolicyPack,
  ) {}

  atKey(k: string): LiveWorker | undefined {
    return this.byKey.get(k);
  }

  peek(org: string, workerId: string): LiveWorker | undefined {
    return this.byKey.get(key(org, workerId));
  }

  *all(): IterableIterator<LiveWorker> {
    yield* this.byKey.values();
  }

  static keyOf(org: string, workerId: string): string {
    return key(org, workerId);
  }

  /** The live entry; loads the actor state (404 when the organisation has no such worker) and seeds recent readings. */
  get(org: string, workerId: string): LiveWorker | Promise<LiveWorker> {
    const k = key(org, workerId);
    const hit = this.byKey.get(k);
    if (hit) return hit;
    let p = this.loading.get(k);
    if (!p) {
      p = this.load(org, workerId).finally(() => this.loading.delete(k));
      this.loading.set(k, p);
    }
    return p;
  }

  private async load(org: string, workerId: string): Promise<LiveWorker> {
    const k = key(org, workerId);
    this.dirty.delete(k);
    let state = await this.workers.state(org, workerId);
    const again = this.byKey.get(k);
    if (again) return again;
    const h = this.policy.heartbeat;
    const recent = new RecentReadings(h.recent_readings_kept);
    const now = this.clock.now();
    const stored = await this.readings.range(state.id, now - h.retention_window_seconds * 1000, Infinity);
    for (const r of stored.slice(-h.recent_readings_kept)) {
      const p = (r.data as { position: { latitude: number; longitude: number; accuracy_metres: number } | null }).position;
      recent.insert(r.recordedAt, p ? p.latitude : NaN, p ? p.longitude : NaN, p ? p.accuracy_metres : NaN);
    }
    while (this.dirty.delete(k)) state = await this.workers.state(org, workerId);
    const last = recent.size ? Math.min(recent.latest, now) : undefined;
    const lw: LiveWorker = {
      org,
      workerId,
      id: state.id,
      state,
      recent,
      lastReportAt: last,
      presence: undefined,
      presenceSent: state.presence,
      closedFlags: new Map(),
      stateAt: (at) => stateAt(lw.state, at),
    };
    this.byKey.set(k, lw);
    return lw;
  }

  /** Mirror a worker commit; returns the entry when one is held. */
  mirror(org: string, workerId: string, events: StoredEvent[]): LiveWorker | undefined {
    const k = key(org, workerId);
    const lw = this.byKey.get(k);
    if (!lw) {
      if (this.loading.has(k)) this.dirty.add(k);
      return undefined;
    }
    let s = lw.state;
    for (const e of events) {
      s = Worker.evolve(s, e.data as WorkerEvent, { at: e.at, version: e.version, eventId: e.id, org: e.org });
      if (e.type === 'worker.integrity_flag_closed') lw.closedFlags.delete((e.data as { flag_id: string }).flag_id);
    }
    lw.state = s;
    // an overlay matters only while the actor lags: drop it once it no longer concerns the state
    for (const [flag, suspends] of lw.closedFlags) if (flag !== s.open_flag_id && (!suspends || s.suspended_by === flag)) lw.closedFlags.delete(flag);
    return lw;
  }

  forget(org: string, workerId: string): void {
    this.byKey.delete(key(org, workerId));
  }

  clear(): void {
    this.byKey.clear();
  }
}
