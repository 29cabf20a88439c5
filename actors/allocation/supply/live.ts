/**
 * Soft state per worker on the node whose heartbeat path takes their batches: the recent accepted
 * readings and the latest report (heartbeats read and write them without a journal), beside a
 * copy of the worker actor's committed state. The actor is the one place that state lives: the
 * copy is replaced by the committed state of each commit (never re-evolved here), and in a cluster
 * it is read again when the supply replica has heard of a newer version (service.ts). Rebuilt from
 * the actor and the ReadingStore after a restart.
 */
import { isApiError } from '../../../kernel/index.ts';
import type { Clock } from '../../../runtime/index.ts';
import type { ReadingStore } from '../../../stores/index.ts';
import type { Presence } from './presence.ts';
import type { PolicyPack } from '../policy.ts';
import { RecentReadings } from './recent-readings.ts';
import type { CommittedFacts } from './supply-replica.ts';
import type { WorkerDirectory } from './worker-directory.ts';
import { stateAt, type WorkerState } from './worker.ts';

/** Entries are keyed by organisation and the caller's worker_id (the supply map and timers use the same pair). */
export interface LiveWorker {
  /** LiveWorkers.keyOf(org, workerId), also the supply replica's key of the worker. */
  key: string;
  org: string;
  /** The caller's reference (spec 4.7). */
  workerId: string;
  /** The Worker actor id, which is also the ReadingStore key (worker-directory.ts). */
  id: string;
  /** The actor's committed state as of its version `state.version` (read it, never change it). */
  state: WorkerState;
  recent: RecentReadings;
  /** recorded_at (ms, clamped to arrival) of the latest accepted reading. */
  lastReportAt: number | undefined;
  /** What the supply replica takes of `state` (made once per version, by the service). */
  committed: CommittedFacts | undefined;
  /** Presence last sent to the worker actor to record. */
  presenceSent: Presence | undefined;
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
    let state = await this.firstState(org, workerId, k);
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
      key: k,
      org,
      workerId,
      id: state.id,
      state,
      recent,
      lastReportAt: last,
      committed: undefined,
      presenceSent: state.presence,
      stateAt: (at) => stateAt(lw.state, at),
    };
    this.byKey.set(k, lw);
    return lw;
  }

  /**
   * The worker's state for a new entry. A read that found no worker while a commit of that worker
   * was mirrored (its creation, as setting availability makes it) reads again: every caller sharing
   * this load, the creating request among them, must see the worker it was told exists (spec 4.7:
   * the answer already shows the change). In a cluster the read and the creation travel to the
   * owner separately, so the read may be answered first.
   */
  private async firstState(org: string, workerId: string, k: string): Promise<WorkerState> {
    for (;;) {
      try {
        return await this.workers.state(org, workerId);
      } catch (e) {
        if (!isApiError(e) || e.code !== 'not_found' || !this.dirty.delete(k)) throw e;
      }
    }
  }

  /** Takes a worker's committed state (newer versions only); returns the entry when one is held. */
  mirror(org: string, workerId: string, state: WorkerState): LiveWorker | undefined {
    const k = key(org, workerId);
    const lw = this.byKey.get(k);
    if (!lw) {
      if (this.loading.has(k)) this.dirty.add(k);
      return undefined;
    }
    if ((state.version ?? 0) >= (lw.state.version ?? 0)) (lw.state = state), (lw.committed = undefined);
    return lw;
  }

  forget(org: string, workerId: string): void {
    this.byKey.delete(key(org, workerId));
  }

  clear(): void {
    this.byKey.clear();
  }
}
