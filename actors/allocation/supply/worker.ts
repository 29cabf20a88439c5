/**
 * Worker (allocation), one per organisation and worker_id. Spec 2.8, 3 (Integrity flag "Also"), 4.7.
 * A worker_id is the caller's own subject_ref, so two organisations may mean two people by one
 * string: the actor id is workerActorId(org, worker_id) and the record keeps the worker_id as given.
 * Availability changes only through PUT /v1/allocation/availability/{worker_id}; a reading's
 * availability is read for drift detection and never changes it. Heartbeat readings themselves do
 * not pass through this actor (they are soft state: see live.ts); only transitions do.
 *
 * command            condition                                      event                                next
 * -----------------  ---------------------------------------------  -----------------------------------  ------------------------
 * any (creating)     no record yet                                  worker.registered, then its own      worker_id, livemode
 * adopt              no record yet (old-scheme record found)        worker.adopted                       the old record's state
 * adopt              a record exists                                -                                    -
 * set_availability   availability differs (or first call)          worker.availability_changed          availability, history
 * set_availability   same availability                              -                                    -
 * set_assignment     on_assignment differs                          worker.assignment_changed            on_assignment, history
 * record_presence    presence differs from the recorded one         worker.presence_changed              presence
 * report_drift       no drift recorded since availability changed   worker.availability_drift_detected   drift_reported
 * report_signals     no open flag                                   worker.integrity_flag_opened         open_flag_id, sources
 * report_signals     open flag, a source not yet reported to it     worker.integrity_signals_reported    sources
 * report_signals     every source already reported                  -                                    -
 * settle_assignment  (reaction) an assignment completed or failed  worker.assignment_settled            assignments count + 1
 * close_flag         flag upheld and suspends                       worker.integrity_flag_closed         suspended_by = flag
 * close_flag         flag upheld (one signal) or dismissed          worker.integrity_flag_closed         open flag cleared
 * close_flag         neither open nor a suspension still to record  -                                    -
 * exclude            reason not already held                        worker.excluded                      exclusions + reason
 * readmit            reason held                                    worker.readmitted                    exclusions - reason
 *
 * Any but set_availability / report_signals / exclude / adopt on a worker never seen: 404 not_found
 */
import { derivedId } from '../../../kernel/index.ts';
import { PASSPORT_ENDED, PASSPORT_KIND, PASSPORT_RESTORED } from '../../identity/index.ts';
import { defineActor, type CommandContext, type Decision } from '../../../runtime/index.ts';
import type { AvailabilityState } from './heartbeat.ts';
import type { Presence } from './presence.ts';
import type { SignalSource } from './validation.ts';

const WORKER_PREFIX = 'worker_';
export const INTEGRITY_FLAG_PREFIX = 'match_geo_aware_workforce_orchestrator_integrity_flag_';

/**
 * Exclusions other areas place on a worker (spec 6 cascade rule: a revocation of identity or a
 * lapse of legal standing removes the worker from every live allocation cascade). Durable: they
 * hold until readmitted, across restarts and before the worker ever reports.
 */
export const EXTERNAL_EXCLUSIONS = ['identity_revoked', 'legal_standing_lapsed'] as const;
export type ExternalExclusion = (typeof EXTERNAL_EXCLUSIONS)[number];
/** Availability history entries kept (older ones fall outside any retention window that matters). */
const HISTORY_CAP = 256;

export interface HistoryEntry {
  at: number;
  availability: AvailabilityState;
  on_assignment: boolean;
}

export interface WorkerState {
  /** The actor id, workerActorId(org, worker_id). */
  id: string;
  org: string;
  /** The caller's reference as given (spec 4.7); '' only in a record of the old scheme (worker-directory.ts). */
  worker_id: string;
  livemode: boolean;
  availability: AvailabilityState;
  on_assignment: boolean;
  /** When the current availability began. */
  since: number | undefined;
  history: HistoryEntry[];
  presence: Presence | undefined;
  drift_reported: boolean;
  open_flag_id: string | null;
  open_flag_sources: SignalSource[];
  /** The upheld flag that suspends this worker (spec 2.8: excluded_because integrity_flag_upheld). */
  suspended_by: string | null;
  exclusions: ExternalExclusion[];
  /** Assignments settled: completed (proof sealed) or failed (an exception dismissed); the ranking's reliability. Absent in older snapshots. */
  assignments?: { completed: number; failed: number };
  created_at: number;
  updated_at: number;
  /** The version of the last event applied (absent in older snapshots until the next event); the supply replica orders committed facts by it. */
  version?: number;
}

export interface WireSignal {
  source: SignalSource;
  fired_at: string;
  detail: string;
}

/** What an old-scheme record carries into its adopter (worker-directory.ts). */
export type AdoptedFacts = Omit<WorkerState, 'id' | 'org' | 'worker_id'>;

export type WorkerEvent =
  | { type: 'worker.registered'; worker_id: string; livemode: boolean }
  | { type: 'worker.adopted'; worker_id: string; facts: AdoptedFacts }
  | { type: 'worker.availability_changed'; availability: AvailabilityState; previous: AvailabilityState | null; livemode: boolean }
  | { type: 'worker.assignment_changed'; on_assignment: boolean }
  | { type: 'worker.presence_changed'; presence: Presence; previous: Presence | null }
  | { type: 'worker.availability_drift_detected'; reported: AvailabilityState; recorded: AvailabilityState; recorded_at: string }
  | { type: 'worker.integrity_flag_opened'; worker_id: string; flag_id: string; signals: WireSignal[]; livemode: boolean; mocked: boolean }
  | { type: 'worker.integrity_signals_reported'; worker_id: string; flag_id: string; signals: WireSignal[]; livemode: boolean; mocked: boolean }
  | { type: 'worker.integrity_flag_closed'; flag_id: string; outcome: 'upheld' | 'dismissed'; suspends: boolean }
  | { type: 'worker.excluded'; reason: ExternalExclusion }
  | { type: 'worker.readmitted'; reason: ExternalExclusion }
  | { type: 'worker.assignment_settled'; assignment_id: string; outcome: 'completed' | 'failed' };

export function stateAt(s: Pick<WorkerState, 'history'>, at: number): { availability: AvailabilityState; onAssignment: boolean } {
  const h = s.history;
  for (let i = h.length - 1; i >= 0; i--) if (h[i].at <= at) return { availability: h[i].availability, onAssignment: h[i].on_assignment };
  return { availability: 'unavailable', onAssignment: false };
}

/**
 * The actor id of an organisation's worker: bounded, base62, safe as a journal stream, a NATS
 * subject and a ReadingStore key, whatever the caller's reference holds.
 */
export const workerActorId = (org: string, workerId: string): string => derivedId(WORKER_PREFIX, [org, workerId]);

/** A creating command's events, after the event that names the new record's worker_id. */
function opening(ctx: CommandContext, cmd: { worker_id: string }, livemode: boolean, events: WorkerEvent[]): WorkerEvent[] {
  return ctx.version === 0 && events.length > 0 ? [{ type: 'worker.registered', worker_id: cmd.worker_id, livemode }, ...events] : events;
}

function pushHistory(s: WorkerState, e: HistoryEntry): HistoryEntry[] {
  const h = [...s.history, e];
  return h.length > HISTORY_CAP ? h.slice(h.length - HISTORY_CAP) : h;
}

export const Worker = defineActor({
  kind: 'allocation_worker',
  prefix: WORKER_PREFIX,
  creates: ['set_availability', 'report_signals', 'exclude', 'readmit', 'adopt'],
  initial: (id: string, org: string): WorkerState => ({
    id,
    org,
    worker_id: '',
    livemode: false,
    availability: 'unavailable',
    on_assignment: false,
    since: undefined,
    history: [],
    presence: undefined,
    drift_reported: false,
    open_flag_id: null,
    open_flag_sources: [],
    suspended_by: null,
    exclusions: [],
    created_at: 0,
    updated_at: 0,
  }),
  decide: {
    adopt(s: WorkerState, cmd: { worker_id: string; legacy: WorkerState }, ctx): Decision<WorkerEvent> {
      if (ctx.version > 0) return { events: [], reply: false };
      const { id: _id, org: _org, worker_id: _ref, ...facts } = cmd.legacy;
      return { events: [{ type: 'worker.adopted', worker_id: cmd.worker_id, facts }], reply: true };
    },
    set_availability(s: WorkerState, cmd: { worker_id: string; availability: AvailabilityState; livemode: boolean }, ctx): WorkerEvent[] {
      if (ctx.version > 0 && s.availability === cmd.availability) return [];
      return opening(ctx, cmd, cmd.livemode, [{ type: 'worker.availability_changed', availability: cmd.availability, previous: ctx.version > 0 ? s.availability : null, livemode: cmd.livemode }]);
    },
    set_assignment(s: WorkerState, cmd: { on_assignment: boolean }): WorkerEvent[] {
      return s.on_assignment === cmd.on_assignment ? [] : [{ type: 'worker.assignment_changed', on_assignment: cmd.on_assignment }];
    },
    record_presence(s: WorkerState, cmd: { presence: Presence }): WorkerEvent[] {
      return s.presence === cmd.presence ? [] : [{ type: 'worker.presence_changed', presence: cmd.presence, previous: s.presence ?? null }];
    },
    report_drift(s: WorkerState, cmd: { reported: AvailabilityState; recorded: AvailabilityState; recorded_at: string }): WorkerEvent[] {
      return s.drift_reported ? [] : [{ type: 'worker.availability_drift_detected', ...cmd }];
    },
    report_signals(s: WorkerState, cmd: { worker_id: string; signals: WireSignal[]; livemode: boolean; mocked: boolean }, ctx): WorkerEvent[] {
      const open = s.open_flag_id !== null;
      const seen = new Set(open ? s.open_flag_sources : []);
      const fresh: WireSignal[] = [];
      for (const sig of cmd.signals) if (!seen.has(sig.source)) seen.add(sig.source), fresh.push(sig);
      if (fresh.length === 0) return [];
      const worker_id = s.worker_id || cmd.worker_id;
      if (!open) return opening(ctx, cmd, cmd.livemode, [{ type: 'worker.integrity_flag_opened', worker_id, flag_id: ctx.newId(INTEGRITY_FLAG_PREFIX), signals: fresh, livemode: cmd.livemode, mocked: cmd.mocked }]);
      return [{ type: 'worker.integrity_signals_reported', worker_id, flag_id: s.open_flag_id!, signals: fresh, livemode: cmd.livemode, mocked: cmd.mocked }];
    },
    exclude(s: WorkerState, cmd: { worker_id: string; reason: ExternalExclusion }, ctx): WorkerEvent[] {
      return s.exclusions.includes(cmd.reason) ? [] : opening(ctx, cmd, false, [{ type: 'worker.excluded', reason: cmd.reason }]);
    },
    readmit(s: WorkerState, cmd: { reason: ExternalExclusion }): WorkerEvent[] {
      return s.exclusions.includes(cmd.reason) ? [{ type: 'worker.readmitted', reason: cmd.reason }] : [];
    },
    settle_assignment(s: WorkerState, cmd: { assignment_id: string; outcome: 'completed' | 'failed' }): WorkerEvent[] {
      return [{ type: 'worker.assignment_settled', assignment_id: cmd.assignment_id, outcome: cmd.outcome }];
    },
    close_flag(s: WorkerState, cmd: { flag_id: string; outcome: 'upheld' | 'dismissed'; suspends: boolean }): WorkerEvent[] {
      // sent twice (by the service at the decision and by the reaction): the second changes nothing
      if (s.open_flag_id !== cmd.flag_id && (!cmd.suspends || s.suspended_by === cmd.flag_id)) return [];
      return [{ type: 'worker.integrity_flag_closed', ...cmd }];
    },
  },
  evolve(s: WorkerState, e: WorkerEvent, meta): WorkerState {
    const base = { ...s, updated_at: meta.at, created_at: s.created_at || meta.at, version: meta.version };
    switch (e.type) {
      case 'worker.registered':
        return { ...base, worker_id: e.worker_id, livemode: e.livemode };
      case 'worker.adopted':
        // the record as it was: adoption is not a change the API shows (updated_at stays)
        return { ...s, ...e.facts, worker_id: e.worker_id, version: meta.version };
      case 'worker.availability_changed':
        return {
          ...base,
          // an old-scheme record opened with this event, with no worker.registered before it
          livemode: meta.version === 1 ? e.livemode : s.livemode,
          availability: e.availability,
          since: meta.at,
          drift_reported: false,
          history: pushHistory(s, { at: meta.at, availability: e.availability, on_assignment: s.on_assignment }),
        };
      case 'worker.assignment_changed':
        return { ...base, on_assignment: e.on_assignment, history: pushHistory(s, { at: meta.at, availability: s.availability, on_assignment: e.on_assignment }) };
      case 'worker.presence_changed':
        return { ...base, presence: e.presence };
      case 'worker.availability_drift_detected':
        return { ...base, drift_reported: true };
      case 'worker.integrity_flag_opened':
        return { ...base, open_flag_id: e.flag_id, open_flag_sources: e.signals.map((x) => x.source) };
      case 'worker.integrity_signals_reported':
        return { ...base, open_flag_sources: [...s.open_flag_sources, ...e.signals.map((x) => x.source)] };
      case 'worker.excluded':
        return { ...base, exclusions: [...s.exclusions, e.reason] };
      case 'worker.readmitted':
        return { ...base, exclusions: s.exclusions.filter((r) => r !== e.reason) };
      case 'worker.assignment_settled': {
        const a = s.assignments ?? { completed: 0, failed: 0 };
        return { ...base, assignments: e.outcome === 'completed' ? { ...a, completed: a.completed + 1 } : { ...a, failed: a.failed + 1 } };
      }
      case 'worker.integrity_flag_closed': {
        const open = s.open_flag_id === e.flag_id;
        return {
          ...base,
          open_flag_id: open ? null : s.open_flag_id,
          open_flag_sources: open ? [] : s.open_flag_sources,
          suspended_by: e.suspends ? e.flag_id : s.suspended_by,
        };
      }
      default:
        return assertNeverEvent(e);
    }
  },
  view: (s: WorkerState) => ({
    object: 'worker_availability',
    worker_id: s.worker_id,
    livemode: s.livemode,
    mocked: false,
    availability: s.availability,
    on_assignment: s.on_assignment,
    updated_at: new Date(s.updated_at).toISOString(),
  }),
  reactions: [
    {
      from: 'allocation_integrity_flag',
      events: ['integrity_flag.upheld', 'integrity_flag.dismissed'],
      command: 'close_flag',
      target(event, source) {
        const d = event.data as { worker_id: string; suspends?: boolean };
        return { id: workerActorId(event.org, d.worker_id), payload: { flag_id: source.id, outcome: event.type === 'integrity_flag.upheld' ? 'upheld' : 'dismissed', suspends: d.suspends === true } };
      },
    },
    // A worker with an assignment is on assignment (out of the supply map, readings still collected) until it settles.
    {
      from: 'allocation_assignment',
      events: ['assignment.created', 'assignment.completed', 'assignment.closed', 'assignment.cancelled'],
      command: 'set_assignment',
      target: (event) => {
        const d = event.data as { worker_id: string };
        return { id: workerActorId(event.org, d.worker_id), payload: { on_assignment: event.type === 'assignment.created' } };
      },
    },
    // The ranking's reliability counts settled assignments (docs/gaps.md#allocation).
    {
      from: 'allocation_assignment',
      events: ['assignment.completed', 'assignment.closed'],
      command: 'settle_assignment',
      target: (event, source) => {
        const d = event.data as { worker_id: string };
        return { id: workerActorId(event.org, d.worker_id), payload: { assignment_id: source.id, outcome: event.type === 'assignment.completed' ? 'completed' : 'failed' } };
      },
    },
    // Spec 6, 8: a revocation of identity removes the worker from the supply the moment the
    // passport stops being live (the worker_id is the subject_ref the passport names).
    {
      from: PASSPORT_KIND,
      events: [PASSPORT_ENDED],
      command: 'exclude',
      target: (event) => {
        const d = event.data as { subject_ref: string };
        return { id: workerActorId(event.org, d.subject_ref), payload: { worker_id: d.subject_ref, reason: 'identity_revoked' } };
      },
    },
    {
      from: PASSPORT_KIND,
      events: [PASSPORT_RESTORED],
      command: 'readmit',
      target: (event) => {
        const d = event.data as { subject_ref: string };
        return { id: workerActorId(event.org, d.subject_ref), payload: { reason: 'identity_revoked' } };
      },
    },
  ],
});

function assertNeverEvent(e: never): never {
  throw new Error(`unknown worker event ${JSON.stringify(e)}`);
}
