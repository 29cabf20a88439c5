/**
 * Party (engagements): one per subject_ref within an organisation, the engagements in which it is
 * the worker or the engaging party. It exists to fan a passport change out: a reaction targets one
 * actor (runtime Reaction), so the identity module's passport.ended reaches this record, which
 * records one lapse request per engagement; each engagement reacts to its own (engagement.ts,
 * lapse_for_passport). Spec 3 ("both parties need a live passport"), 6 (a revocation of identity
 * or a lapse of standing removes the worker from live cascades within 60 seconds).
 *
 * status  command                 condition                                 event                                    next
 * ------  ----------------------  ----------------------------------------  ---------------------------------------  ----
 * any     enrol_worker,           engagement not on the record              party.enrolled                           same
 *         enrol_engaging_party
 * any     enrol_worker,           engagement already on the record          -                                        same
 *         enrol_engaging_party
 * any     release_worker,         engagement on the record                  party.released                           same
 *         release_engaging_party
 * any     passport_ended          the passport ends (identity's journal)     party.passport_ended, and one            same
 *                                                                           party.lapse_requested per engagement
 */
import { defineActor } from '../../runtime/index.ts';
import { assertNever } from '../../kernel/index.ts';
import { PASSPORT_ENDED, PASSPORT_KIND } from '../identity/index.ts';
import { PARTY_PREFIX, partyId } from './ids.ts';

export interface PartyState {
  org: string;
  subject_ref: string;
  engagements: string[];
}

export type PartyEvent =
  | { type: 'party.enrolled'; subject_ref: string; engagement_id: string }
  | { type: 'party.released'; subject_ref: string; engagement_id: string }
  | { type: 'party.passport_ended'; subject_ref: string; passport_id: string; reasons: string[]; engagements: number }
  | { type: 'party.lapse_requested'; subject_ref: string; passport_id: string; reasons: string[]; engagement_id: string };

type Opened = { worker_ref: string; engaging_party_ref: string };

const enrol = (s: PartyState, cmd: { subject_ref: string; engagement_id: string }): PartyEvent[] =>
  s.engagements.includes(cmd.engagement_id) ? [] : [{ type: 'party.enrolled', ...cmd }];
const release = (s: PartyState, cmd: { subject_ref: string; engagement_id: string }): PartyEvent[] =>
  s.engagements.includes(cmd.engagement_id) ? [{ type: 'party.released', ...cmd }] : [];

/** The party record of the worker or the engaging party of an engagement event. */
function partyOf(role: 'worker_ref' | 'engaging_party_ref', e: { org: string; data: unknown }, source: { id: string }) {
  const d = e.data as Opened;
  // an engagement whose two parties are one subject is on one record, enrolled once
  if (role === 'engaging_party_ref' && d.engaging_party_ref === d.worker_ref) return undefined;
  return { id: partyId(e.org, d[role]), payload: { subject_ref: d[role], engagement_id: source.id } };
}

// Two command names per move: a reaction's dedupe id is per kind, command and event, and one
// engagement event reaches two party records.
export const Party = defineActor({
  kind: 'engagements_party',
  prefix: PARTY_PREFIX,
  creates: ['enrol_worker', 'enrol_engaging_party', 'passport_ended'],
  initial: (_id: string, org: string): PartyState => ({ org, subject_ref: '', engagements: [] }),
  decide: {
    enrol_worker: enrol,
    enrol_engaging_party: enrol,
    release_worker: release,
    release_engaging_party: release,
    passport_ended(s: PartyState, cmd: { subject_ref: string; passport_id: string; reasons: string[] }): PartyEvent[] {
      if (s.engagements.length === 0) return [];
      return [
        { type: 'party.passport_ended', ...cmd, engagements: s.engagements.length },
        ...s.engagements.map((engagement_id) => ({ type: 'party.lapse_requested' as const, ...cmd, engagement_id })),
      ];
    },
  },
  evolve(s: PartyState, e: PartyEvent): PartyState {
    switch (e.type) {
      case 'party.enrolled':
        return { ...s, subject_ref: e.subject_ref, engagements: [...s.engagements, e.engagement_id] };
      case 'party.released':
        return { ...s, engagements: s.engagements.filter((x) => x !== e.engagement_id) };
      case 'party.passport_ended':
      case 'party.lapse_requested':
        return s;
      default:
        return assertNever(e);
    }
  },
  view: (s: PartyState) => ({ object: 'engagement_party', subject_ref: s.subject_ref, engagements: s.engagements }),
  reactions: [
    { from: 'engagements_engagement', events: ['engagement.opened'], command: 'enrol_worker', target: (e, src) => partyOf('worker_ref', e, src) },
    { from: 'engagements_engagement', events: ['engagement.opened'], command: 'enrol_engaging_party', target: (e, src) => partyOf('engaging_party_ref', e, src) },
    { from: 'engagements_engagement', events: ['engagement.terminated'], command: 'release_worker', target: (e, src) => partyOf('worker_ref', e, src) },
    { from: 'engagements_engagement', events: ['engagement.terminated'], command: 'release_engaging_party', target: (e, src) => partyOf('engaging_party_ref', e, src) },
    {
      from: PASSPORT_KIND,
      events: [PASSPORT_ENDED],
      command: 'passport_ended',
      target: (e) => {
        const d = e.data as { subject_ref?: string; passport_id?: string; reasons?: string[] };
        if (typeof d.subject_ref !== 'string' || typeof d.passport_id !== 'string') return undefined;
        return { id: partyId(e.org, d.subject_ref), payload: { subject_ref: d.subject_ref, passport_id: d.passport_id, reasons: Array.isArray(d.reasons) ? d.reasons : [] } };
      },
    },
  ],
});
