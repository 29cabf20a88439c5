/**
 * Data-subject request (spec 4.3 subject_requests; NDPA ss.34-38 in reference 1.7: access,
 * rectification, erasure, restriction, objection, portability). The Act sets no day count; the due
 * date comes from the policy pack (30 days by default, a [U] parameter). Access and portability
 * are answered at once with what identity holds (masked); erasure removes the subject's personal
 * data (the vault entries and digest memberships) and ends the passport, keeping the decision
 * records (spec rule 4); rectification, objection and restriction wait for a person to complete or
 * refuse them. A request still open at its due date is marked overdue (an event), not closed.
 *
 * status    command      condition                event                                   next
 * --------  -----------  -----------------------  --------------------------------------  ---------
 * (none)    open         -                        subject_request.received                received
 * received  fulfil       access, portability      subject_request.fulfilled               completed
 * received  erase        erasure                  subject_request.erasure_carried_out     completed
 * received  complete     a person decides         subject_request.completed / .refused    completed / refused
 * received  overdue      due_at reached           subject_request.overdue                 received (overdue)
 * other     fulfil, erase, complete               409 conflict
 */
import { defineActor, type IndexEntry, iso, sortKeyTime } from '../../runtime/index.ts';
import { ApiError, assertNever, factsOf, recordView } from '../../kernel/index.ts';
import { passportIdOf, SUBJECT_REQUEST_PREFIX } from './ids.ts';
import type { SubjectRequestKind } from './policy.ts';

export const SUBJECT_REQUEST_STATUSES = ['received', 'completed', 'refused'] as const;
export type SubjectRequestStatus = (typeof SUBJECT_REQUEST_STATUSES)[number];
/** How a person completes a request left to them. */
export const COMPLETION_OUTCOMES = ['completed', 'refused'] as const;
export type CompletionOutcome = (typeof COMPLETION_OUTCOMES)[number];

export interface RequestFacts {
  subject_ref: string;
  kind: SubjectRequestKind;
  detail: string | null;
  due_at: number;
  policy_version: string;
  livemode: boolean;
}

export interface SubjectRequestState extends RequestFacts {
  id: string;
  org: string;
  status: SubjectRequestStatus;
  overdue: boolean;
  response: unknown;
  decision: { by: string; at: string; reason: string } | null;
  created_at: number;
  completed_at: number | null;
}

export type SubjectRequestEvent =
  | ({ type: 'subject_request.received' } & RequestFacts)
  | { type: 'subject_request.fulfilled'; response: unknown }
  | { type: 'subject_request.erasure_carried_out'; subject_ref: string; passport_id: string; erased: { verifications: number } }
  | { type: 'subject_request.completed'; decision: { by: string; at: string; reason: string } }
  | { type: 'subject_request.refused'; decision: { by: string; at: string; reason: string } }
  | { type: 'subject_request.overdue' };

const open = (s: SubjectRequestState, what: string) => {
  if (s.status !== 'received') throw new ApiError('conflict', `Subject request ${s.id} is ${s.status}; it cannot be ${what}.`);
};

export const SubjectRequest = defineActor({
  kind: 'identity_subject_request',
  prefix: SUBJECT_REQUEST_PREFIX,
  creates: ['open'],
  initial: (id: string, org: string): SubjectRequestState => ({
    id, org, subject_ref: '', kind: 'access', detail: null, due_at: 0, policy_version: '', livemode: false,
    status: 'received', overdue: false, response: null, decision: null, created_at: 0, completed_at: null,
  }),
  decide: {
    open(_s: SubjectRequestState, cmd: RequestFacts, ctx): SubjectRequestEvent[] {
      return ctx.version > 0 ? [] : [{ type: 'subject_request.received', ...cmd }];
    },
    fulfil(s: SubjectRequestState, cmd: { response: unknown }): SubjectRequestEvent[] {
      if (s.status !== 'received' && s.response !== null) return [];
      open(s, 'fulfilled');
      if (s.kind !== 'access' && s.kind !== 'portability') throw new ApiError('conflict', `A ${s.kind} request is not answered with a copy of the data.`);
      return [{ type: 'subject_request.fulfilled', response: cmd.response }];
    },
    erase(s: SubjectRequestState, cmd: { verifications: number }): SubjectRequestEvent[] {
      if (s.kind !== 'erasure') throw new ApiError('conflict', `Subject request ${s.id} is a ${s.kind} request, not erasure.`);
      if (s.status === 'completed') return [];
      open(s, 'carried out');
      return [{ type: 'subject_request.erasure_carried_out', subject_ref: s.subject_ref, passport_id: passportIdOf(s.org, s.subject_ref), erased: { verifications: cmd.verifications } }];
    },
    complete(s: SubjectRequestState, cmd: { outcome: CompletionOutcome; reason: string }, ctx): SubjectRequestEvent[] {
      open(s, 'completed');
      if (s.kind === 'erasure' || s.kind === 'access' || s.kind === 'portability') throw new ApiError('conflict', `A ${s.kind} request is carried out by the platform when it is made, not completed by hand.`);
      const decision = { by: ctx.principal ?? 'unknown', at: iso(ctx.now), reason: cmd.reason };
      return [cmd.outcome === 'refused' ? { type: 'subject_request.refused', decision } : { type: 'subject_request.completed', decision }];
    },
    overdue(s: SubjectRequestState, _c: unknown, ctx): SubjectRequestEvent[] {
      return s.status === 'received' && !s.overdue && ctx.now >= s.due_at ? [{ type: 'subject_request.overdue' }] : [];
    },
  },
  evolve(s: SubjectRequestState, e: SubjectRequestEvent, meta): SubjectRequestState {
    switch (e.type) {
      case 'subject_request.received':
        return { ...s, ...factsOf(e), status: 'received', created_at: meta.at };
      case 'subject_request.fulfilled':
        return { ...s, status: 'completed', response: e.response, completed_at: meta.at };
      case 'subject_request.erasure_carried_out':
        return { ...s, status: 'completed', response: { erased: e.erased, kept: 'decision records (outcomes, assurance levels, which sources answered), spec rule 4' }, completed_at: meta.at };
      case 'subject_request.completed':
        return { ...s, status: 'completed', decision: e.decision, completed_at: meta.at };
      case 'subject_request.refused':
        return { ...s, status: 'refused', decision: e.decision, completed_at: meta.at };
      case 'subject_request.overdue':
        return { ...s, overdue: true };
      default:
        return assertNever(e);
    }
  },
  view: (s: SubjectRequestState) => (recordView('subject_request', s.id, s.livemode, false, {
    subject_ref: s.subject_ref,
    kind: s.kind,
    detail: s.detail,
    status: s.status,
    due_at: iso(s.due_at),
    overdue: s.overdue,
    response: s.response,
    decision: s.decision,
    policy_version: s.policy_version,
    created_at: iso(s.created_at),
    completed_at: s.completed_at === null ? null : iso(s.completed_at),
  })),
  timers: (s: SubjectRequestState) => (s.status === 'received' && !s.overdue ? [{ name: 'due', dueAt: s.due_at, command: 'overdue' }] : []),
  indexes: (s: SubjectRequestState): IndexEntry[] => [
    { list: 'all', sortKey: sortKeyTime(s.created_at) },
    { list: `status:${s.status}`, sortKey: sortKeyTime(s.created_at) },
  ],
});
