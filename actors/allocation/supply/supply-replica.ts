/**
 * The supply map of the whole cluster, held on every node (DESIGN "The supply map";
 * docs/architecture.md "One supply map for the cluster" says why a replica and not regions). Per
 * organisation and worker_id one record of two parts, each from the one place that knows it:
 *
 *   committed  what the Worker actor committed (availability, assignment, flag, suspension,
 *              exclusions, settled assignments), stamped with the actor's version; sent by the
 *              node that owns the actor, from the committed state (never re-evolved)
 *   report     the latest accepted reading's time and the latest position, stamped with that
 *              time; sent by the node whose heartbeat path accepted the batch
 *
 * A part is taken only when it is newer than the one held (a higher version, a later report), so
 * updates may arrive in any order, twice, or from two nodes, and every node converges on the same
 * record. Presence is a function of the clock (presence.ts), so each node computes it from the
 * record with its own volatile timers and keeps its SupplyMap (the exact nearest-N index) in step:
 * a ranking asked on any node is a read of memory there and sees every worker in the cluster.
 *
 * A record holds its worker's subject number (kernel SubjectNumbers) and the map answers it, so a
 * ranking reads presence and reliability from the replica's columns by number (reportAt,
 * completedAt, failedAt), the gates' columns likewise, and hashes no string per candidate.
 *
 * A record leaves when its worker is out of the map with no presence change left to time (the
 * soft state is held only for workers who are around), as live.ts drops its entry. What it held is
 * forgotten with it; the node taking the worker's heartbeats sends both parts with every batch, so
 * the worker's next batch restores the record on every node (a lost message is repaired the same way).
 */
import type { PolicyPack } from '../policy.ts';
import { nextPresenceChange, presenceAt, PresenceTimers, type Presence, type PresenceInput } from './presence.ts';
import { SupplyMap, excludedBecause, type ExclusionReason, type SupplyChange, type SupplyFacts } from './supply-map.ts';
import { CountColumn, NumberColumn, type SubjectNumbers } from '../../../kernel/index.ts';
import type { Clock } from '../../../runtime/index.ts';
import type { ExternalExclusion, WorkerState } from './worker.ts';

/** The committed part: the Worker actor's state as the supply map needs it. */
export interface CommittedFacts {
  /** The actor's version after the commit these facts come from. */
  version: number;
  available: boolean;
  /** When the current availability began (ms). */
  since: number | null;
  onAssignment: boolean;
  /** The open integrity flag, if any. */
  openFlag: string | null;
  suspended: boolean;
  external: ExternalExclusion[];
  completed: number;
  failed: number;
}

/** The report part: the latest accepted reading (clamped to arrival) and the latest position. */
export interface ReportFacts {
  at: number;
  latitude: number | null;
  longitude: number | null;
}

/** One update as it travels between nodes: either part may be absent. */
export interface SupplyUpdate {
  org: string;
  workerId: string;
  committed: CommittedFacts | null;
  report: ReportFacts | null;
}

export interface SupplyRecord {
  /** org NUL worker_id: the same key live.ts and the presence timers use. */
  readonly key: string;
  readonly org: string;
  readonly workerId: string;
  /** The worker's subject number on this node. */
  readonly subject: number;
  committed: CommittedFacts | null;
  report: ReportFacts | null;
  /** Presence last computed here (what the map holds). */
  presence: Presence;
  excludedBecause: ExclusionReason | null;
}

export function committedFacts(s: WorkerState): CommittedFacts {
  return {
    version: s.version ?? 0,
    available: s.availability === 'available',
    since: s.since ?? null,
    onAssignment: s.on_assignment,
    openFlag: s.open_flag_id,
    suspended: s.suspended_by !== null,
    external: s.exclusions,
    completed: s.assignments?.completed ?? 0,
    failed: s.assignments?.failed ?? 0,
  };
}

export const supplyKey = (org: string, workerId: string) => `${org}\u0000${workerId}`;

export class SupplyReplica {
  readonly map: SupplyMap;
  private readonly records = new Map<string, SupplyRecord>();
  private readonly timers: PresenceTimers;
  /** By subject number, for the workers in the map: the report's time, the settled assignments. */
  private readonly reportAtColumn = new NumberColumn();
  private readonly completedColumn = new CountColumn();
  private readonly failedColumn = new CountColumn();

  constructor(
    private readonly policy: PolicyPack,
    private readonly clock: Clock,
    private readonly numbers: SubjectNumbers,
    /** Told of each record's presence and membership after every refresh (the service records presence and drops soft state). */
    private readonly refreshed: (r: SupplyRecord, change: SupplyChange, next: number | undefined) => void,
  ) {
    this.map = new SupplyMap(policy.supply.h3_resolution, policy.supply.region_resolution);
    this.timers = new PresenceTimers(clock, (k, now) => {
      const r = this.records.get(k);
      if (r) this.refresh(r, now);
    });
  }

  start(): void {
    this.timers.start();
  }

  stop(): void {
    this.timers.stop();
    this.records.clear();
    this.map.clear();
  }

  get size(): number {
    return this.records.size;
  }

  get(org: string, workerId: string): SupplyRecord | undefined {
    return this.records.get(supplyKey(org, workerId));
  }

  /** The latest report's time of a worker in the map, by subject number (what get(...).report.at says). */
  reportAt(subject: number): number {
    return this.reportAtColumn.get(subject);
  }

  /** Completed assignments of a worker in the map, by subject number (get(...).committed.completed). */
  completedAt(subject: number): number {
    return this.completedColumn.get(subject);
  }

  /** Failed assignments of a worker in the map, by subject number (get(...).committed.failed). */
  failedAt(subject: number): number {
    return this.failedColumn.get(subject);
  }

  /** By supplyKey(org, worker_id), for a caller that holds the key already. */
  at(key: string): SupplyRecord | undefined {
    return this.records.get(key);
  }

  *all(): IterableIterator<SupplyRecord> {
    yield* this.records.values();
  }

  /**
   * Takes the newer of each part and refreshes the record; returns it (possibly no longer held, when
   * it left) and whether anything was newer (an update that changes nothing changes nothing).
   */
  apply(u: SupplyUpdate, key?: string): { record: SupplyRecord; newer: boolean } {
    const k = key ?? supplyKey(u.org, u.workerId);
    let r = this.records.get(k);
    let newer = false;
    if (!r) {
      r = { key: k, org: u.org, workerId: u.workerId, subject: this.numbers.of(u.org, u.workerId), committed: null, report: null, presence: 'stale', excludedBecause: null };
      this.records.set(k, r);
      newer = true;
    }
    if (u.committed && (!r.committed || u.committed.version > r.committed.version)) {
      r.committed = u.committed;
      this.completedColumn.set(r.subject, u.committed.completed);
      this.failedColumn.set(r.subject, u.committed.failed);
      newer = true;
    }
    if (u.report && (!r.report || u.report.at > r.report.at || (u.report.at === r.report.at && (u.report.latitude !== r.report.latitude || u.report.longitude !== r.report.longitude)))) {
      r.report = u.report;
      this.reportAtColumn.set(r.subject, u.report.at);
      newer = true;
    }
    if (newer) this.refresh(r, this.clock.now());
    return { record: r, newer };
  }

  /** Recompute presence and map membership of a record now (and schedule its next presence change). */
  refresh(r: SupplyRecord, now: number): void {
    const c = r.committed;
    const input: PresenceInput = { lastReportAt: r.report?.at, available: c?.available ?? false, availableSince: c?.since ?? undefined };
    const presence = presenceAt(input, now, this.policy);
    r.presence = presence;
    const facts = this.facts(r);
    const change = this.map.apply(r.org, r.workerId, facts, r.subject);
    r.excludedBecause = change.excluded_because;
    const k = r.key;
    const next = nextPresenceChange(input, now, this.policy);
    this.timers.schedule(k, next);
    // out of the map with nothing left to time: the record goes (the next update brings it back)
    if (next === undefined && change.excluded_because !== null) this.records.delete(k);
    this.refreshed(r, change, next);
  }

  facts(r: SupplyRecord): SupplyFacts {
    const c = r.committed;
    return {
      available: c?.available ?? false,
      onAssignment: c?.onAssignment ?? false,
      presence: r.presence,
      latitude: r.report?.latitude ?? undefined,
      longitude: r.report?.longitude ?? undefined,
      suspended: c?.suspended ?? false,
      flagOpen: (c?.openFlag ?? null) !== null,
      external: c?.external ?? [],
    };
  }

  /** Why the record is out of the map, as of now. */
  excludedNow(r: SupplyRecord): ExclusionReason | null {
    return excludedBecause(this.facts(r));
  }
}
