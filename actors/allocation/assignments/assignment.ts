/**
 * Assignment (spec 3 "Work orders, offers, assignments, exceptions", 4.7; shape a gap,
 * docs/gaps.md#allocation). One actor per accepted offer (the id is derived from the offer's), so
 * an offer is assigned once. Two passcodes are issued at creation and shown once: the start
 * passcode the site holds (corroborates arrival) and the completion passcode (corroborates
 * completion); only their digests are kept. The service (proof.ts) turns the worker's readings
 * into the facts each step needs; this actor decides.
 *
 * Arrival needs the start passcode and a geofence entry in the worker's readings; completion
 * needs the completion passcode, enough dwell inside the geofence and telemetry without a gap
 * longer than the policy allows; both need an engagement executed and current (422
 * engagement_not_current) and a live passport (409). Signals that disagree (a passcode with no
 * geofence entry, short dwell, a telemetry gap, an integrity signal during the assignment) send
 * the assignment to an exception, which does not settle: a person adjudicates it (upheld seals
 * the proof, dismissed closes the assignment without one).
 *
 * status      command             condition                                       event                          next
 * ----------  ------------------  ----------------------------------------------  -----------------------------  ----------
 * (none)      create              -                                               assignment.created             assigned
 * assigned    start               -                                               assignment.started             started
 * assigned,   arrive              passcode right, geofence entered, no signal     assignment.arrived             arrived
 *  started    arrive              passcode right, signals disagree                assignment.exception_raised    exception
 * arrived     depart              -                                               assignment.departed            departed
 * arrived,    complete            passcode right, dwell and continuity hold       assignment.completed (sealed)  completed
 *  departed   complete            passcode right, signals disagree                assignment.exception_raised    exception
 * any open    arrive/complete     passcode wrong                                  400 (nothing recorded)
 * any open    arrive/complete     engagement not current / passport not live      422 / 409
 * assigned,   cancel              -                                               assignment.cancelled           cancelled
 *  started
 * assigned    cancel_for_removal  (reaction) the worker left supply (spec 6)      assignment.cancelled           cancelled
 * (none),     cancel_for_removal  -                                               -                              (same)
 *  other
 * started..   raise_exception     a person                                        assignment.exception_raised    exception
 * exception   adjudicate          upheld                                          assignment.completed (sealed)  completed
 * exception   adjudicate          dismissed                                       assignment.closed              closed
 * otherwise   any                                                                 409 conflict
 */
import { createHash } from 'node:crypto';
import { defineActor, type IndexEntry, iso, sortKeyTime } from '../../../runtime/index.ts';
import { ApiError, assertNever, contentHash, errorEntry, fieldError, nextAction, recordView, type ValidationEntry, validationError } from '../../../kernel/index.ts';
import { workerActorId } from '../supply/worker.ts';

export const ASSIGNMENT_PREFIX = 'match_assignment_';
export const EXCEPTION_PREFIX = 'match_exception_';
export const ASSIGNMENT_STATUSES = ['assigned', 'started', 'arrived', 'departed', 'completed', 'cancelled', 'exception', 'closed'] as const;
export type AssignmentStatus = (typeof ASSIGNMENT_STATUSES)[number];

export const exceptionIdOf = (assignmentId: string) => `${EXCEPTION_PREFIX}${assignmentId.slice(ASSIGNMENT_PREFIX.length)}`;
export const assignmentIdOfException = (exceptionId: string) => `${ASSIGNMENT_PREFIX}${exceptionId.slice(EXCEPTION_PREFIX.length)}`;

/** A passcode's digest, salted with its assignment and step so two assignments' codes never compare. */
export const passcodeDigest = (assignmentId: string, step: 'start' | 'completion', passcode: string) =>
  `sha256:${createHash('sha256').update(`${assignmentId}\u0000${step}\u0000${passcode}`).digest('hex')}`;

export interface Signal {
  name: string;
  detail: string;
}

export interface ProofReading {
  recorded_at: string;
  latitude: number;
  longitude: number;
  accuracy_metres: number;
  inside: boolean;
}

/** What the readings say for one step (proof.ts computes it). */
export interface StepFacts {
  passcode_digest: string;
  engagement_current: boolean;
  passport_live: boolean;
  signals: Signal[];
  readings: ProofReading[];
  crossings: { direction: 'entered' | 'left'; at: string }[];
  entered_at: string | null;
  dwell_seconds: number;
  max_gap_seconds: number;
}

export interface AssignmentFacts {
  work_order_id: string;
  offer_id: string;
  worker_id: string;
  location: { latitude: number; longitude: number; radius_metres: number };
  start_digest: string;
  completion_digest: string;
  policy_version: string;
  livemode: boolean;
}

export interface Exception {
  id: string;
  step: 'arrival' | 'completion' | 'raised';
  conflicting_signals: Signal[];
  raised_at: number;
  decision: { outcome: 'upheld' | 'dismissed'; decided_by: string; decided_at: string; reason: string; accepted_signals: string[] } | null;
}

export interface AssignmentState extends AssignmentFacts {
  id: string;
  org: string;
  status: AssignmentStatus;
  arrival: StepFacts | null;
  completion: StepFacts | null;
  exception: Exception | null;
  seal: { hash: string; algorithm: 'sha256'; sealed_at: string } | null;
  created_at: number;
  started_at: number | null;
  arrived_at: number | null;
  departed_at: number | null;
  completed_at: number | null;
  cancelled: { reason: string; at: number } | null;
}

export type AssignmentEvent =
  | ({ type: 'assignment.created' } & AssignmentFacts)
  | { type: 'assignment.started' }
  | { type: 'assignment.arrived'; facts: StepFacts }
  | { type: 'assignment.departed' }
  | { type: 'assignment.completed'; worker_id: string; facts: StepFacts | null; seal: { hash: string; algorithm: 'sha256'; sealed_at: string }; decision: Exception['decision'] }
  | { type: 'assignment.exception_raised'; step: Exception['step']; signals: Signal[]; facts: StepFacts | null }
  | { type: 'assignment.cancelled'; reason: string; worker_id: string }
  | { type: 'assignment.closed'; worker_id: string; decision: NonNullable<Exception['decision']> };

export interface StepCommand {
  passcode: string;
  facts: StepFacts;
}

function refuseState(s: AssignmentState, what: string): never {
  throw new ApiError('conflict', `Assignment ${s.id} is ${s.status}; ${what}.`);
}

/** Passcode, standing and passport, in that order (spec 3, 7). */
function checkStep(s: AssignmentState, step: 'start' | 'completion', cmd: StepCommand): void {
  const expected = step === 'start' ? s.start_digest : s.completion_digest;
  if (typeof cmd.passcode !== 'string' || cmd.facts.passcode_digest !== expected) {
    throw fieldError('/passcode', 'passcode_mismatch', `The ${step} passcode does not match.`);
  }
  if (!cmd.facts.engagement_current) throw new ApiError('engagement_not_current', `Worker ${s.worker_id} has no engagement with this organisation that is executed and current.`);
  if (!cmd.facts.passport_live) throw new ApiError('conflict', `Worker ${s.worker_id} holds no live passport.`);
}

/** The proof bundle's content and its seal (spec 4.7 GET .../proof): what was used, how it was judged. */
export function proofBody(s: Pick<AssignmentState, 'id' | 'work_order_id' | 'worker_id' | 'location' | 'arrival' | 'completion' | 'policy_version' | 'exception'>) {
  return {
    assignment_id: s.id,
    work_order_id: s.work_order_id,
    worker_id: s.worker_id,
    geofence: s.location,
    readings_used: [...(s.arrival?.readings ?? []), ...(s.completion?.readings ?? [])],
    geofence_crossings: [...(s.arrival?.crossings ?? []), ...(s.completion?.crossings ?? [])],
    dwell_seconds: s.completion?.dwell_seconds ?? null,
    continuity: { max_gap_seconds: s.completion?.max_gap_seconds ?? null },
    passcode_checks: [
      ...(s.arrival ? [{ step: 'start', digest: s.arrival.passcode_digest, matched: true }] : []),
      ...(s.completion ? [{ step: 'completion', digest: s.completion.passcode_digest, matched: true }] : []),
    ],
    exception: s.exception ? { id: s.exception.id, conflicting_signals: s.exception.conflicting_signals, decision: s.exception.decision } : null,
    policy_version: s.policy_version,
  };
}

function sealOf(s: AssignmentState, now: number) {
  return { hash: contentHash(proofBody(s)), algorithm: 'sha256' as const, sealed_at: iso(now) };
}

export const Assignment = defineActor({
  kind: 'allocation_assignment',
  prefix: ASSIGNMENT_PREFIX,
  creates: ['create', 'cancel_for_removal'],
  initial: (id: string, org: string): AssignmentState => ({
    id, org, work_order_id: '', offer_id: '', worker_id: '', location: { latitude: 0, longitude: 0, radius_metres: 0 }, start_digest: '', completion_digest: '',
    policy_version: '', livemode: false, status: 'assigned', arrival: null, completion: null, exception: null, seal: null,
    created_at: 0, started_at: null, arrived_at: null, departed_at: null, completed_at: null, cancelled: null,
  }),
  decide: {
    create(_s: AssignmentState, cmd: AssignmentFacts, ctx): AssignmentEvent[] {
      return ctx.version > 0 ? [] : [{ type: 'assignment.created', ...cmd }];
    },
    start(s: AssignmentState): AssignmentEvent[] {
      if (s.status === 'started') return [];
      if (s.status !== 'assigned') refuseState(s, 'only an assigned (unstarted) assignment can start');
      return [{ type: 'assignment.started' }];
    },
    arrive(s: AssignmentState, cmd: StepCommand): AssignmentEvent[] {
      if (s.status !== 'assigned' && s.status !== 'started') refuseState(s, 'arrival is recorded once, before completion');
      checkStep(s, 'start', cmd);
      const signals = [...cmd.facts.signals];
      if (cmd.facts.entered_at === null) signals.push({ name: 'start_passcode_without_geofence_entry', detail: 'The start passcode was given but no reading shows the worker inside the geofence.' });
      if (signals.length) return [{ type: 'assignment.exception_raised', step: 'arrival', signals, facts: cmd.facts }];
      return [{ type: 'assignment.arrived', facts: cmd.facts }];
    },
    depart(s: AssignmentState): AssignmentEvent[] {
      if (s.status === 'departed') return [];
      if (s.status !== 'arrived') refuseState(s, 'only an arrived assignment can depart');
      return [{ type: 'assignment.departed' }];
    },
    complete(s: AssignmentState, cmd: StepCommand & { min_dwell_seconds: number; max_gap_seconds: number }, ctx): AssignmentEvent[] {
      if (s.status !== 'arrived' && s.status !== 'departed') refuseState(s, 'completion follows arrival');
      checkStep(s, 'completion', cmd);
      const f = cmd.facts;
      const signals = [...f.signals];
      if (f.dwell_seconds < cmd.min_dwell_seconds) signals.push({ name: 'dwell_too_short', detail: `${Math.round(f.dwell_seconds)} s inside the geofence; the policy needs ${cmd.min_dwell_seconds} s.` });
      if (f.max_gap_seconds > cmd.max_gap_seconds) signals.push({ name: 'telemetry_gap', detail: `A gap of ${Math.round(f.max_gap_seconds)} s between readings; the policy allows ${cmd.max_gap_seconds} s.` });
      if (signals.length) return [{ type: 'assignment.exception_raised', step: 'completion', signals, facts: f }];
      const after = { ...s, completion: f };
      return [{ type: 'assignment.completed', worker_id: s.worker_id, facts: f, seal: sealOf(after, ctx.now), decision: null }];
    },
    cancel(s: AssignmentState, cmd: { reason?: string }): AssignmentEvent[] {
      if (s.status === 'cancelled') return [];
      if (s.status !== 'assigned' && s.status !== 'started') refuseState(s, 'only an assignment not yet arrived can be cancelled');
      return [{ type: 'assignment.cancelled', reason: cmd?.reason ?? 'cancelled', worker_id: s.worker_id }];
    },
    /** Cascade removal (spec 6): cancels an unstarted assignment; anything else is left to people. */
    cancel_for_removal(s: AssignmentState, cmd: { reason: string }, ctx): AssignmentEvent[] {
      if (ctx.version === 0 || s.status !== 'assigned') return [];
      return [{ type: 'assignment.cancelled', reason: cmd.reason, worker_id: s.worker_id }];
    },
    raise_exception(s: AssignmentState, cmd: { reason: string }): AssignmentEvent[] {
      if (!['started', 'arrived', 'departed'].includes(s.status)) refuseState(s, 'an exception is raised on an assignment under way');
      return [{ type: 'assignment.exception_raised', step: 'raised', signals: [{ name: 'raised_by_person', detail: cmd.reason }], facts: null }];
    },
    adjudicate(s: AssignmentState, cmd: { outcome: 'upheld' | 'dismissed'; reason: string; accepted_signals?: string[] }, ctx): AssignmentEvent[] {
      if (s.status !== 'exception' || !s.exception) refuseState(s, 'only an assignment in exception is adjudicated');
      const names = new Set(s.exception.conflicting_signals.map((x) => x.name));
      const bad: ValidationEntry[] = [];
      (cmd.accepted_signals ?? []).forEach((n, i) => {
        if (!names.has(n)) bad.push(errorEntry(`/accepted_signals/${i + 1}`, 'signal_not_raised', `${n} is not one of the exception's conflicting_signals.`, i + 1));
      });
      if (bad.length) throw validationError(bad, cmd.accepted_signals!.length);
      const decision = { outcome: cmd.outcome, decided_by: ctx.principal ?? 'unknown', decided_at: iso(ctx.now), reason: cmd.reason, accepted_signals: [...new Set(cmd.accepted_signals ?? [])] };
      if (cmd.outcome === 'dismissed') return [{ type: 'assignment.closed', worker_id: s.worker_id, decision }];
      const after = { ...s, exception: { ...s.exception, decision } };
      return [{ type: 'assignment.completed', worker_id: s.worker_id, facts: null, seal: sealOf(after, ctx.now), decision }];
    },
  },
  evolve(s: AssignmentState, e: AssignmentEvent, meta): AssignmentState {
    switch (e.type) {
      case 'assignment.created': {
        const { type: _t, ...facts } = e;
        return { ...s, ...facts, status: 'assigned', created_at: meta.at };
      }
      case 'assignment.started':
        return { ...s, status: 'started', started_at: meta.at };
      case 'assignment.arrived':
        return { ...s, status: 'arrived', arrival: e.facts, arrived_at: meta.at };
      case 'assignment.departed':
        return { ...s, status: 'departed', departed_at: meta.at };
      case 'assignment.completed':
        return {
          ...s,
          status: 'completed',
          completion: e.facts ?? s.completion,
          exception: s.exception && e.decision ? { ...s.exception, decision: e.decision } : s.exception,
          seal: e.seal,
          completed_at: meta.at,
        };
      case 'assignment.exception_raised':
        return {
          ...s,
          status: 'exception',
          arrival: e.step === 'arrival' ? e.facts : s.arrival,
          completion: e.step === 'completion' ? e.facts : s.completion,
          exception: { id: exceptionIdOf(s.id), step: e.step, conflicting_signals: e.signals, raised_at: meta.at, decision: null },
        };
      case 'assignment.cancelled':
        return { ...s, status: 'cancelled', cancelled: { reason: e.reason, at: meta.at } };
      case 'assignment.closed':
        return { ...s, status: 'closed', exception: s.exception ? { ...s.exception, decision: e.decision } : null };
      default:
        return assertNever(e);
    }
  },
  view: (s: AssignmentState) => (recordView('assignment', s.id, s.livemode, false, {
    status: s.status,
    work_order_id: s.work_order_id,
    offer_id: s.offer_id,
    worker_id: s.worker_id,
    geofence: s.location,
    exception_id: s.exception?.id ?? null,
    proof_sealed: s.seal !== null,
    created_at: iso(s.created_at),
    started_at: s.started_at === null ? null : iso(s.started_at),
    arrived_at: s.arrived_at === null ? null : iso(s.arrived_at),
    departed_at: s.departed_at === null ? null : iso(s.departed_at),
    completed_at: s.completed_at === null ? null : iso(s.completed_at),
    cancellation: s.cancelled ? { reason: s.cancelled.reason, at: iso(s.cancelled.at) } : null,
    // an exception does not settle until a person decides it (spec 3); docs/gaps.md "next_action"
    next_action: s.status === 'exception' && s.exception
      ? nextAction('adjudicate_exception', `Signals disagreed at ${s.exception.step}; a person decides the exception: upheld seals the proof, dismissed closes the assignment without one.`,
        { method: 'POST', path: `/v1/allocation/exceptions/${s.exception.id}/adjudicate` }, { conflicting_signals: s.exception.conflicting_signals.map((x) => x.name) })
      : null,
  })),
  indexes(s: AssignmentState): IndexEntry[] {
    const k = sortKeyTime(s.created_at);
    const lists: IndexEntry[] = [
      { list: 'all', sortKey: k },
      { list: `status:${s.status}`, sortKey: k },
      // the worker's own (GET /v1/allocation/assignments with their device credential or worker_id)
      { list: `worker:${workerActorId(s.org, s.worker_id)}`, sortKey: k },
    ];
    if (s.status === 'assigned') lists.push({ list: `unstarted_worker:${workerActorId(s.org, s.worker_id)}`, sortKey: k });
    if (s.status === 'exception') lists.push({ list: 'exceptions:open', sortKey: k });
    return lists;
  },
});

export const exceptionView = (s: AssignmentState) => (recordView('assignment_exception', s.exception!.id, s.livemode, false, {
  assignment_id: s.id,
  worker_id: s.worker_id,
  step: s.exception!.step,
  status: s.exception!.decision ? s.exception!.decision.outcome : 'open',
  conflicting_signals: s.exception!.conflicting_signals,
  decision: s.exception!.decision,
  raised_at: iso(s.exception!.raised_at),
}));
