/**
 * Appeal (credentials). Spec 3 (Credential verification: contradicted is a finding about the person;
 * Competence claim decay: lapsed), 4.4 (POST /v1/credentials/appeals, GET /{id}); fields and the way
 * an appeal is decided are not shown (docs/gaps.md#credentials). A subject appeals a contradicted
 * verification or a lapsed claim; a person decides it once, and the decision is recorded and never
 * edited. Nothing appealed is changed by the decision (spec 1 rule 4): an upheld appeal is the
 * record on which a new verification or re-attestation is made.
 *
 * status   command  condition  event            next
 * -------  -------  ---------  ---------------  -------
 * (none)   file     -          appeal.filed     open
 * open     decide   -          appeal.decided   decided
 * decided  decide   -          409 conflict
 */
import { defineActor, type IndexEntry, iso, sortKeyTime } from '../../runtime/index.ts';
import { ApiError, assertNever, factsOf, recordView } from '../../kernel/index.ts';
import { APPEAL_PREFIX } from './ids.ts';

export const APPEAL_STATUSES = ['open', 'decided'] as const;
export type AppealStatus = (typeof APPEAL_STATUSES)[number];
export const APPEAL_GROUNDS = ['contradiction', 'lapse'] as const;
export type AppealGround = (typeof APPEAL_GROUNDS)[number];
export const APPEAL_OUTCOMES = ['upheld', 'dismissed'] as const;
export type AppealOutcome = (typeof APPEAL_OUTCOMES)[number];

export interface FileAppeal {
  subject_ref: string;
  ground: AppealGround;
  verification_id: string | null;
  claim_id: string | null;
  statement: string;
  livemode: boolean;
}

export interface AppealDecision {
  outcome: AppealOutcome;
  reason: string;
  decided_by: string;
  decided_at: string;
}

export interface AppealState extends FileAppeal {
  id: string;
  org: string;
  status: AppealStatus;
  decision: AppealDecision | null;
  created_at: number;
}

export type AppealEvent =
  | ({ type: 'appeal.filed' } & FileAppeal)
  | { type: 'appeal.decided'; subject_ref: string; decision: AppealDecision };

export const Appeal = defineActor({
  kind: 'credentials_appeal',
  prefix: APPEAL_PREFIX,
  creates: ['file'],
  initial: (id: string, org: string): AppealState => ({
    id, org, subject_ref: '', ground: 'contradiction', verification_id: null, claim_id: null, statement: '', livemode: false, status: 'open', decision: null, created_at: 0,
  }),
  decide: {
    file(_s: AppealState, cmd: FileAppeal, ctx): AppealEvent[] {
      return ctx.version > 0 ? [] : [{ type: 'appeal.filed', ...cmd }];
    },
    decide(s: AppealState, cmd: { outcome: AppealOutcome; reason: string }, ctx): AppealEvent[] {
      if (s.status !== 'open') throw new ApiError('conflict', `Appeal ${s.id} is ${s.status}; its decision is never edited.`);
      return [{ type: 'appeal.decided', subject_ref: s.subject_ref, decision: { outcome: cmd.outcome, reason: cmd.reason, decided_by: ctx.principal ?? 'unknown', decided_at: iso(ctx.now) } }];
    },
  },
  evolve(s: AppealState, e: AppealEvent, meta): AppealState {
    switch (e.type) {
      case 'appeal.filed':
        return { ...s, ...factsOf(e), status: 'open', created_at: meta.at };
      case 'appeal.decided':
        return { ...s, status: 'decided', decision: e.decision };
      default:
        return assertNever(e);
    }
  },
  view: (s: AppealState) => (recordView('appeal', s.id, s.livemode, false, {
    subject_ref: s.subject_ref,
    ground: s.ground,
    verification_id: s.verification_id,
    claim_id: s.claim_id,
    statement: s.statement,
    status: s.status,
    decision: s.decision,
    created_at: iso(s.created_at),
  })),
  indexes(s: AppealState): IndexEntry[] {
    const k = sortKeyTime(s.created_at);
    return [
      { list: 'all', sortKey: k },
      { list: `status:${s.status}`, sortKey: k },
      { list: `subject:${s.subject_ref}`, sortKey: k },
    ];
  },
});
