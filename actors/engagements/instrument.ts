/**
 * Instrument (engagements). Spec 2.6 Instrument, 3 (Instrument), 4.5. The written terms of an
 * engagement, drafted from an approved template and clause library, assented by both parties and
 * sealed into the organisation's chain (seal-chain.ts). The spec's table gives expiry, execute and
 * supersede; submit and assent are ours (docs/gaps.md#engagements).
 *
 * status           command          condition                                         event                  next
 * ---------------  ---------------  ------------------------------------------------  ---------------------  ---------------
 * (none)           draft            template may paper the class (checked before)     instrument.drafted     drafted
 * (none)           draft            a variation (supersedes set): submitted at once   instrument.drafted,    awaiting_assent
 *                                                                                     instrument.submitted
 * drafted          submit           the engagement papers it                          instrument.submitted   awaiting_assent
 * awaiting_assent  assent           the party has not assented; its passport is live  instrument.assented    awaiting_assent
 * awaiting_assent  execute          assent of both parties complete; sealed           instrument.executed    executed (seal, executed_at)
 * drafted,         expire           expires_at passed, not executed (reminder)        instrument.expired     expired
 *  awaiting_assent
 * executed         mark_superseded  a variation was drafted                           instrument.superseded  superseded (superseded_by)
 * anything else    any              -                                                 409 conflict
 *
 * An unexecuted instrument binds no one (spec 3): only instrument.executed moves an engagement.
 */
import { defineActor, type IndexEntry, sortKeyTime, type TimerWish } from '../../runtime/index.ts';
import { ApiError, assertNever, filterLists, recordView } from '../../kernel/index.ts';
import { HOW_TO_GET_A_PASSPORT } from '../identity/index.ts';
import { INSTRUMENT_PREFIX } from './ids.ts';
import { type AssentRecord, draftHash, type Seal, type SealedFields } from './seal.ts';

export const INSTRUMENT_STATUSES = ['drafted', 'awaiting_assent', 'executed', 'expired', 'superseded'] as const;
export type InstrumentStatus = (typeof INSTRUMENT_STATUSES)[number];
export const ASSENT_PARTIES = ['worker', 'engaging_party'] as const;
export type AssentParty = (typeof ASSENT_PARTIES)[number];
/** How an assent was given (assent's channel). */
export const ASSENT_CHANNELS = ['api', 'self_serve', 'assisted'] as const;

export interface InstrumentState extends SealedFields {
  org: string;
  status: InstrumentStatus;
  seal: Seal | null;
  superseded_by: string | null;
  executed_at: string | null;
  created_at: number;
}

export type DraftCommand = Omit<SealedFields, 'id' | 'assents'> & { submit: boolean };

interface Ref {
  instrument_id: string;
  engagement_id: string;
}

export type InstrumentEvent =
  | ({ type: 'instrument.drafted'; draft: Omit<SealedFields, 'id' | 'assents'> } & Ref)
  | ({ type: 'instrument.submitted' } & Ref)
  | ({ type: 'instrument.assented'; assent: AssentRecord } & Ref)
  | ({ type: 'instrument.executed'; seal: Seal; supersedes: string | null } & Ref)
  | ({ type: 'instrument.expired'; expires_at: string } & Ref)
  | ({ type: 'instrument.superseded'; superseded_by: string } & Ref);

const ref = (s: InstrumentState): Ref => ({ instrument_id: s.id, engagement_id: s.engagement_id });

export const hasBothAssents = (s: { assents: AssentRecord[] }): boolean => ASSENT_PARTIES.every((p) => s.assents.some((a) => a.party === p));

function needStatus(s: InstrumentState, allowed: readonly InstrumentStatus[], what: string): void {
  if (!allowed.includes(s.status)) throw new ApiError('conflict', `Instrument ${s.id} is ${s.status}; ${what} needs it ${allowed.join(' or ')}.`);
}

export const Instrument = defineActor({
  kind: 'engagements_instrument',
  prefix: INSTRUMENT_PREFIX,
  creates: ['draft'],
  initial: (id: string, org: string): InstrumentState => ({
    id,
    org,
    livemode: false,
    status: 'drafted',
    engagement_id: '',
    engaging_party_ref: '',
    worker_ref: '',
    classification: '',
    starts_on: '',
    ends_on: null,
    template_code: '',
    clauses: [],
    clause_library_version: '',
    rule_pack_version: '',
    legal_approval_reference: '',
    supersedes: null,
    expires_at: null,
    assents: [],
    seal: null,
    superseded_by: null,
    executed_at: null,
    created_at: 0,
  }),
  decide: {
    draft(_s: InstrumentState, cmd: DraftCommand, ctx): InstrumentEvent[] {
      if (ctx.version > 0) return [];
      const { submit, ...draft } = cmd;
      const r = { instrument_id: ctx.id, engagement_id: cmd.engagement_id };
      const out: InstrumentEvent[] = [{ type: 'instrument.drafted', ...r, draft }];
      if (submit) out.push({ type: 'instrument.submitted', ...r });
      return out;
    },
    submit(s: InstrumentState): InstrumentEvent[] {
      if (s.status === 'awaiting_assent') return [];
      needStatus(s, ['drafted'], 'submit');
      return [{ type: 'instrument.submitted', ...ref(s) }];
    },
    assent(s: InstrumentState, cmd: { id: string; party: AssentParty; subject_ref: string; passport_id: string | null; channel: string }, ctx): InstrumentEvent[] {
      if (s.assents.some((a) => a.id === cmd.id)) return [];
      needStatus(s, ['awaiting_assent'], 'assent');
      const expected = cmd.party === 'worker' ? s.worker_ref : s.engaging_party_ref;
      if (cmd.subject_ref !== expected) throw new ApiError('conflict', `The ${cmd.party} of instrument ${s.id} is ${expected}, not ${cmd.subject_ref}.`);
      if (s.assents.some((a) => a.party === cmd.party)) throw new ApiError('conflict', `The ${cmd.party} has already assented to instrument ${s.id}.`);
      if (cmd.passport_id === null) throw new ApiError('conflict', `The ${cmd.party}'s passport (${cmd.subject_ref}) is not live; assent is bound to a live passport (spec 3). ${HOW_TO_GET_A_PASSPORT}`);
      if (s.expires_at !== null && ctx.now >= s.expires_at) throw new ApiError('conflict', `Instrument ${s.id} passed its expires_at.`);
      const assent: AssentRecord = {
        id: cmd.id, object: 'instrument_assent', instrument_id: s.id, party: cmd.party, subject_ref: cmd.subject_ref, passport_id: cmd.passport_id,
        channel: cmd.channel, document_hash: draftHash(s), assented_at: new Date(ctx.now).toISOString(),
      };
      return [{ type: 'instrument.assented', ...ref(s), assent }];
    },
    execute(s: InstrumentState, cmd: { seal: Seal }): InstrumentEvent[] {
      if (s.status === 'executed' && s.seal?.hash === cmd.seal.hash) return [];
      needStatus(s, ['awaiting_assent'], 'execute');
      if (!hasBothAssents(s)) throw new ApiError('conflict', `Instrument ${s.id} cannot execute: the assent of both parties is not complete (spec 3).`);
      return [{ type: 'instrument.executed', ...ref(s), seal: cmd.seal, supersedes: s.supersedes }];
    },
    expire(s: InstrumentState, _cmd: unknown, ctx): InstrumentEvent[] {
      if ((s.status !== 'drafted' && s.status !== 'awaiting_assent') || s.expires_at === null || ctx.now < s.expires_at) return [];
      return [{ type: 'instrument.expired', ...ref(s), expires_at: new Date(s.expires_at).toISOString() }];
    },
    mark_superseded(s: InstrumentState, cmd: { superseded_by: string }): InstrumentEvent[] {
      if (s.superseded_by === cmd.superseded_by) return [];
      if (s.superseded_by !== null) throw new ApiError('conflict', `Instrument ${s.id} is already superseded by ${s.superseded_by}.`);
      needStatus(s, ['executed'], 'supersede');
      return [{ type: 'instrument.superseded', ...ref(s), superseded_by: cmd.superseded_by }];
    },
  },
  evolve(s: InstrumentState, e: InstrumentEvent, meta): InstrumentState {
    switch (e.type) {
      case 'instrument.drafted':
        return { ...s, ...e.draft, id: s.id, status: 'drafted', created_at: meta.at };
      case 'instrument.submitted':
        return { ...s, status: 'awaiting_assent' };
      case 'instrument.assented':
        return { ...s, assents: [...s.assents, e.assent] };
      case 'instrument.executed':
        return { ...s, status: 'executed', seal: e.seal, executed_at: e.seal.sealed_at };
      case 'instrument.expired':
        return { ...s, status: 'expired' };
      case 'instrument.superseded':
        return { ...s, status: 'superseded', superseded_by: e.superseded_by };
      default:
        return assertNever(e);
    }
  },
  view: (s: InstrumentState) => instrumentView(s),
  timers(s: InstrumentState): TimerWish[] {
    if ((s.status !== 'drafted' && s.status !== 'awaiting_assent') || s.expires_at === null) return [];
    return [{ name: 'expiry', dueAt: s.expires_at, command: 'expire' }];
  },
  indexes(s: InstrumentState): IndexEntry[] {
    const k = sortKeyTime(s.created_at);
    const out = filterLists({ engagement: s.engagement_id, status: s.status }, k);
    if (s.seal) {
      out.push({ list: `seal:${s.seal.hash}`, sortKey: k });
      out.push({ list: `prev:${s.seal.previous_hash}`, sortKey: k });
    }
    return out;
  },
});

/** The Instrument record of spec 2.6. */
export function instrumentView(s: InstrumentState) {
  return recordView('instrument', s.id, s.livemode, false, {
    engagement_id: s.engagement_id,
    status: s.status,
    template_code: s.template_code,
    clauses: s.clauses,
    clause_library_version: s.clause_library_version,
    rule_pack_version: s.rule_pack_version,
    legal_approval_reference: s.legal_approval_reference,
    seal: s.seal,
    supersedes: s.supersedes,
    superseded_by: s.superseded_by,
    expires_at: s.expires_at === null ? null : new Date(s.expires_at).toISOString(),
    executed_at: s.executed_at,
    created_at: new Date(s.created_at).toISOString(),
  });
}
