/**
 * Blocklist entry (spec 3 "Identity verification": a blocklisted subject's verifications are
 * blocked, subject_blocklisted; 4.3 POST /v1/identity/blocklist_entries and .../reverse). A staff
 * decision about one subject in one organisation; while active the subject's passport is not live
 * (passport.ts reacts) and no source is queried for them. A confirmed forgery found by the
 * credentials module only proposes an entry: a person confirms or declines it (spec 4.4: "the
 * identity module ... decides on blocklisting"). The record shape is a gap (docs/gaps.md#identity).
 *
 * status    command  condition  event                         next
 * --------  -------  ---------  ----------------------------  --------
 * (none)    create   -          blocklist_entry.activated     active
 * (none)    propose  -          blocklist_entry.proposed      proposed
 * proposed  confirm  -          blocklist_entry.activated     active
 * proposed  decline  -          blocklist_entry.declined      declined
 * active    reverse  -          blocklist_entry.reversed      reversed
 * other     confirm, decline, reverse                         409 conflict
 * any       propose  (again)    -                             (unchanged)
 */
import { defineActor, type IndexEntry, iso, type Reaction, sortKeyTime } from '../../runtime/index.ts';
import { ApiError, assertNever, derivedId, recordView } from '../../kernel/index.ts';
import { BLOCKLIST_PREFIX, passportIdOf } from './ids.ts';
import type { BlockScope } from './verification.ts';

export const BLOCKLIST_STATUSES = ['proposed', 'active', 'declined', 'reversed'] as const;
export type BlocklistStatus = (typeof BLOCKLIST_STATUSES)[number];
export const BLOCKLIST_ORIGINS = ['staff', 'verification_block', 'forgery_escalation'] as const;
export type BlocklistOrigin = (typeof BLOCKLIST_ORIGINS)[number];

export interface Decided {
  by: string;
  at: string;
  reason: string;
}

export interface BlocklistState {
  id: string;
  org: string;
  livemode: boolean;
  subject_ref: string;
  passport_id: string;
  status: BlocklistStatus;
  origin: BlocklistOrigin;
  scope: BlockScope;
  reason: string;
  verification_id: string | null;
  document_analysis_id: string | null;
  decided: Decided | null;
  reversed: Decided | null;
  created_at: number;
}

export interface CreateEntry {
  subject_ref: string;
  reason: string;
  scope: BlockScope;
  origin: BlocklistOrigin;
  verification_id: string | null;
  livemode: boolean;
}

export type BlocklistEvent =
  | { type: 'blocklist_entry.proposed'; subject_ref: string; passport_id: string; reason: string; document_analysis_id: string | null; livemode: boolean }
  | ({ type: 'blocklist_entry.activated'; passport_id: string; decided: Decided } & Partial<CreateEntry>)
  | { type: 'blocklist_entry.declined'; subject_ref: string; passport_id: string; decided: Decided }
  | { type: 'blocklist_entry.reversed'; subject_ref: string; passport_id: string; decided: Decided };

const decided = (principal: string | undefined, now: number, reason: string): Decided => ({ by: principal ?? 'system', at: iso(now), reason });

export const BlocklistEntry = defineActor({
  kind: 'identity_blocklist_entry',
  prefix: BLOCKLIST_PREFIX,
  creates: ['create', 'propose'],
  initial: (id: string, org: string): BlocklistState => ({
    id,
    org,
    livemode: false,
    subject_ref: '',
    passport_id: '',
    status: 'proposed',
    origin: 'staff',
    scope: 'subject',
    reason: '',
    verification_id: null,
    document_analysis_id: null,
    decided: null,
    reversed: null,
    created_at: 0,
  }),
  decide: {
    create(_s: BlocklistState, cmd: CreateEntry, ctx): BlocklistEvent[] {
      if (ctx.version > 0) return [];
      return [{ type: 'blocklist_entry.activated', ...cmd, passport_id: passportIdOf(ctx.org, cmd.subject_ref), decided: decided(ctx.principal, ctx.now, cmd.reason) }];
    },
    propose(_s: BlocklistState, cmd: { subject_ref: string; reason: string; document_analysis_id: string | null; livemode: boolean }, ctx): BlocklistEvent[] {
      if (ctx.version > 0) return [];
      return [{ type: 'blocklist_entry.proposed', subject_ref: cmd.subject_ref, passport_id: passportIdOf(ctx.org, cmd.subject_ref), reason: cmd.reason, document_analysis_id: cmd.document_analysis_id, livemode: cmd.livemode }];
    },
    confirm(s: BlocklistState, cmd: { reason: string }, ctx): BlocklistEvent[] {
      if (s.status !== 'proposed') throw new ApiError('conflict', `Blocklist entry ${s.id} is ${s.status}; only a proposed entry can be confirmed.`);
      return [{ type: 'blocklist_entry.activated', subject_ref: s.subject_ref, passport_id: s.passport_id, decided: decided(ctx.principal, ctx.now, cmd.reason) }];
    },
    decline(s: BlocklistState, cmd: { reason: string }, ctx): BlocklistEvent[] {
      if (s.status !== 'proposed') throw new ApiError('conflict', `Blocklist entry ${s.id} is ${s.status}; only a proposed entry can be declined.`);
      return [{ type: 'blocklist_entry.declined', subject_ref: s.subject_ref, passport_id: s.passport_id, decided: decided(ctx.principal, ctx.now, cmd.reason) }];
    },
    reverse(s: BlocklistState, cmd: { reason: string }, ctx): BlocklistEvent[] {
      if (s.status !== 'active') throw new ApiError('conflict', `Blocklist entry ${s.id} is ${s.status}; only an active entry can be reversed.`);
      return [{ type: 'blocklist_entry.reversed', subject_ref: s.subject_ref, passport_id: s.passport_id, decided: decided(ctx.principal, ctx.now, cmd.reason) }];
    },
  },
  evolve(s: BlocklistState, e: BlocklistEvent, meta): BlocklistState {
    switch (e.type) {
      case 'blocklist_entry.proposed':
        return { ...s, subject_ref: e.subject_ref, passport_id: e.passport_id, reason: e.reason, document_analysis_id: e.document_analysis_id, livemode: e.livemode, origin: 'forgery_escalation', status: 'proposed', created_at: meta.at };
      case 'blocklist_entry.activated': {
        const created = s.created_at === 0;
        return {
          ...s,
          subject_ref: e.subject_ref ?? s.subject_ref,
          passport_id: e.passport_id,
          reason: e.reason ?? s.reason,
          scope: e.scope ?? s.scope,
          origin: e.origin ?? s.origin,
          verification_id: e.verification_id ?? s.verification_id,
          livemode: e.livemode ?? s.livemode,
          status: 'active',
          decided: e.decided,
          created_at: created ? meta.at : s.created_at,
        };
      }
      case 'blocklist_entry.declined':
        return { ...s, status: 'declined', decided: e.decided };
      case 'blocklist_entry.reversed':
        return { ...s, status: 'reversed', reversed: e.decided };
      default:
        return assertNever(e);
    }
  },
  view: (s: BlocklistState) => (recordView('blocklist_entry', s.id, s.livemode, false, {
    subject_ref: s.subject_ref,
    passport_id: s.passport_id,
    status: s.status,
    origin: s.origin,
    scope: s.scope,
    reason: s.reason,
    verification_id: s.verification_id,
    document_analysis_id: s.document_analysis_id,
    decision: s.decided,
    reversal: s.reversed,
    created_at: iso(s.created_at),
  })),
  indexes(s: BlocklistState): IndexEntry[] {
    const k = sortKeyTime(s.created_at);
    const lists: IndexEntry[] = [
      { list: 'all', sortKey: k },
      { list: `status:${s.status}`, sortKey: k },
    ];
    if (s.status === 'active') lists.push({ list: `active_subject:${s.passport_id}`, sortKey: k });
    return lists;
  },
  reactions: [
    {
      // Spec 4.4: a confirmed forgery is escalated to identity, which decides on blocklisting.
      from: 'credentials_document_analysis',
      events: ['document_analysis.forgery_confirmed'],
      command: 'propose',
      target(e, src) {
        const d = e.data as { subject_ref?: unknown; document_analysis_id?: unknown; detail?: unknown; livemode?: unknown };
        if (typeof d.subject_ref !== 'string' || d.subject_ref.length === 0) return undefined;
        const analysis = typeof d.document_analysis_id === 'string' ? d.document_analysis_id : src.id;
        return {
          id: derivedId(BLOCKLIST_PREFIX, [e.org, 'forgery', analysis]),
          payload: { subject_ref: d.subject_ref, reason: `Forgery confirmed by document analysis ${analysis}${typeof d.detail === 'string' ? `: ${d.detail}` : ''}.`, document_analysis_id: analysis, livemode: d.livemode === true },
        };
      },
    },
  ] satisfies Reaction[],
});
