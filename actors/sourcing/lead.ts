/**
 * Lead (spec 4.6 POST /v1/sourcing/leads, POST .../leads/{lead_id}/promote; fields "not shown",
 * docs/gaps.md#sourcing). A candidate a channel delivered for one requisition, kept on the
 * requisition version of the broadcast they answered (spec 3, 9) and screened against that
 * version's requirements (lead-screening.ts). Promotion makes the lead a subject: it gets a
 * subject_ref, the opaque reference the identity, credentials, engagements and allocation modules
 * take (spec 2.4 ConsentToken.subject_ref, 2.6 worker_ref, 4.7 worker_id).
 *
 * status    command  condition                                                event           next
 * --------  -------  -------------------------------------------------------  --------------  --------
 * (none)    receive  -                                                        lead.received   screened
 * screened  promote  screening meets, or an override_reason is given          lead.promoted   promoted
 * screened  promote  screening does_not_meet or incomplete, no override       409 conflict    screened
 * promoted  promote  -                                                        409 conflict    promoted
 * promoted  receive  (a channel delivering the same lead again)              -               promoted
 */
import { defineActor, type IndexEntry, iso, sortKeyTime } from '../../runtime/index.ts';
import { assertNever, conflict, recordView } from '../../kernel/index.ts';
import { LEAD_PREFIX } from './ids.ts';
import type { Candidate, LeadScreening } from './lead-screening.ts';

export const LEAD_STATUSES = ['screened', 'promoted'] as const;
export type LeadStatus = (typeof LEAD_STATUSES)[number];

export interface LeadSeed {
  livemode: boolean;
  requisition_id: string;
  requisition_version: number;
  broadcast_id: string | null;
  delivery_id: string | null;
  channel_id: string | null;
  external_ref: string | null;
  candidate: Candidate;
  screening: LeadScreening;
}

export interface Promotion {
  subject_ref: string;
  promoted_by: string;
  promoted_at: string;
  override_reason: string | null;
}

export interface LeadState {
  id: string;
  org: string;
  seed: LeadSeed | null;
  status: LeadStatus;
  promotion: Promotion | null;
  created_at: number;
}

export type LeadEvent = { type: 'lead.received'; seed: LeadSeed } | { type: 'lead.promoted'; requisition_id: string; promotion: Promotion };

export const Lead = defineActor({
  kind: 'sourcing_lead',
  prefix: LEAD_PREFIX,
  creates: ['receive'],
  initial: (id: string, org: string): LeadState => ({ id, org, seed: null, status: 'screened', promotion: null, created_at: 0 }),
  decide: {
    receive(_s: LeadState, cmd: LeadSeed, ctx): LeadEvent[] {
      if (ctx.version > 0) return [];
      return [{ type: 'lead.received', seed: cmd }];
    },
    promote(s: LeadState, cmd: { subject_ref: string; override_reason?: string | null }, ctx): LeadEvent[] {
      switch (s.status) {
        case 'promoted':
          throw conflict(`Lead ${s.id} was promoted already; its subject_ref is ${s.promotion!.subject_ref}.`);
        case 'screened':
          break;
        default:
          return assertNever(s.status);
      }
      const outcome = s.seed!.screening.outcome;
      if (outcome !== 'meets' && !cmd.override_reason) {
        throw conflict(`Lead ${s.id} was screened ${outcome} against version ${s.seed!.requisition_version} of the requisition; promote it with an override_reason, or not at all.`);
      }
      return [{
        type: 'lead.promoted',
        requisition_id: s.seed!.requisition_id,
        promotion: { subject_ref: cmd.subject_ref, promoted_by: ctx.principal ?? 'unknown', promoted_at: iso(ctx.now), override_reason: cmd.override_reason ?? null },
      }];
    },
  },
  evolve(s: LeadState, e: LeadEvent, meta): LeadState {
    switch (e.type) {
      case 'lead.received':
        return { ...s, seed: e.seed, created_at: meta.at };
      case 'lead.promoted':
        return { ...s, status: 'promoted', promotion: e.promotion };
      default:
        return assertNever(e);
    }
  },
  view: (s: LeadState) => {
    const d = s.seed!;
    return recordView('lead', s.id, d.livemode, false, {
      status: s.status,
      requisition_id: d.requisition_id,
      requisition_version: d.requisition_version,
      broadcast_id: d.broadcast_id,
      delivery_id: d.delivery_id,
      channel_id: d.channel_id,
      external_ref: d.external_ref,
      candidate: d.candidate,
      screening: d.screening,
      subject_ref: s.promotion?.subject_ref ?? null,
      promotion: s.promotion,
      created_at: iso(s.created_at),
    });
  },
  indexes(s: LeadState): IndexEntry[] {
    if (!s.seed) return [];
    const k = sortKeyTime(s.created_at);
    return [
      { list: 'all', sortKey: k },
      { list: `status:${s.status}`, sortKey: k },
      { list: `requisition:${s.seed.requisition_id}`, sortKey: k },
    ];
  },
});
