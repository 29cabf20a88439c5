/**
 * Remediation case (engagements). Spec 4.5 names GET /v1/rail/remediation_cases, /{id} and
 * POST .../resolve; its fields are not shown (docs/gaps.md#engagements). A case is opened by a
 * dispute (a reaction to engagement.disputed) or by reconcile (a standing that disagrees with its
 * instruments or passports), once per finding: its id is derived from what it is about, so the
 * same finding never opens two cases. A person resolves it once; the resolution is never edited.
 *
 * status    command  condition          event                        next
 * --------  -------  -----------------  ---------------------------  --------
 * (none)    open     -                  remediation_case.opened      open
 * open      open     -                  -                            open
 * resolved  open     -                  -                            resolved
 * open      resolve  -                  remediation_case.resolved    resolved
 * resolved  resolve  -                  409 conflict                 resolved
 */
import { defineActor, type IndexEntry, sortKeyTime } from '../../runtime/index.ts';
import { ApiError, assertNever, derivedId, recordView } from '../../kernel/index.ts';
import { REMEDIATION_CASE_PREFIX } from './ids.ts';

export const CASE_SOURCES = ['dispute', 'reconcile'] as const;
export const CASE_STATUSES = ['open', 'resolved'] as const;
export type CaseStatus = (typeof CASE_STATUSES)[number];

export interface CaseOpen {
  engagement_id: string;
  source: (typeof CASE_SOURCES)[number];
  code: string;
  detail: string;
  dispute_id: string | null;
  livemode: boolean;
}

export interface CaseState extends CaseOpen {
  id: string;
  org: string;
  status: CaseStatus;
  resolution: { note: string; resolved_at: string; resolved_by: string } | null;
  opened_at: number;
}

type CaseEvent = ({ type: 'remediation_case.opened' } & CaseOpen) | { type: 'remediation_case.resolved'; engagement_id: string; resolution: NonNullable<CaseState['resolution']> };

/** The case of one finding: a dispute, or a reconcile code about an engagement and what it rests on. */
export const remediationCaseId = (org: string, parts: string[]) => derivedId(REMEDIATION_CASE_PREFIX, ['remediation_case', org, ...parts]);

export const RemediationCase = defineActor({
  kind: 'engagements_remediation_case',
  prefix: REMEDIATION_CASE_PREFIX,
  creates: ['open'],
  initial: (id: string, org: string): CaseState => ({
    id, org, engagement_id: '', source: 'reconcile', code: '', detail: '', dispute_id: null, livemode: false, status: 'open', resolution: null, opened_at: 0,
  }),
  decide: {
    open(_s: CaseState, cmd: CaseOpen, ctx): CaseEvent[] {
      return ctx.version > 0 ? [] : [{ type: 'remediation_case.opened', ...cmd }];
    },
    resolve(s: CaseState, cmd: { note: string }, ctx): CaseEvent[] {
      if (s.status === 'resolved') throw new ApiError('conflict', `Remediation case ${s.id} is resolved; its resolution is never edited.`);
      return [{ type: 'remediation_case.resolved', engagement_id: s.engagement_id, resolution: { note: cmd.note, resolved_at: new Date(ctx.now).toISOString(), resolved_by: ctx.principal ?? 'unknown' } }];
    },
  },
  evolve(s: CaseState, e: CaseEvent, meta): CaseState {
    switch (e.type) {
      case 'remediation_case.opened': {
        const { type: _t, ...open } = e;
        return { ...s, ...open, status: 'open', opened_at: meta.at };
      }
      case 'remediation_case.resolved':
        return { ...s, status: 'resolved', resolution: e.resolution };
      default:
        return assertNever(e);
    }
  },
  view: (s: CaseState) => (recordView('remediation_case', s.id, s.livemode, false, {
    engagement_id: s.engagement_id,
    status: s.status,
    source: s.source,
    code: s.code,
    detail: s.detail,
    dispute_id: s.dispute_id,
    resolution: s.resolution,
    opened_at: new Date(s.opened_at).toISOString(),
  })),
  indexes(s: CaseState): IndexEntry[] {
    const k = sortKeyTime(s.opened_at);
    return [
      { list: 'all', sortKey: k },
      { list: `status:${s.status}`, sortKey: k },
      { list: `engagement:${s.engagement_id}`, sortKey: k },
    ];
  },
  reactions: [
    {
      from: 'engagements_engagement',
      events: ['engagement.disputed'],
      command: 'open',
      target(e, source) {
        const d = e.data as { dispute: { id: string; reason: string; raised_by: string; contests_classification: boolean } };
        const payload: CaseOpen = {
          engagement_id: source.id,
          source: 'dispute',
          code: d.dispute.contests_classification ? 'classification_contested' : 'dispute_opened',
          detail: `Dispute ${d.dispute.id} raised by the ${d.dispute.raised_by}: ${d.dispute.reason}`,
          dispute_id: d.dispute.id,
          livemode: (e.data as { livemode?: boolean }).livemode ?? false,
        };
        return { id: remediationCaseId(e.org, ['dispute', d.dispute.id]), payload };
      },
    },
  ],
});
