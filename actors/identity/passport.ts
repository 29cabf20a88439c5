/**
 * Passport (spec 2.4: "what every module checks is live before acting"; its other fields are a
 * gap, docs/gaps.md#identity). One per subject and organisation (the id is derived from both), so
 * the gate, reactions and other modules can name it without a lookup. It is issued when a
 * verification of the subject resolves and stays live until something holds it:
 * - blocklisted: an active blocklist entry of the subject (reversed: the hold goes);
 * - merged: it was superseded by another passport in a merge (reversed: the hold goes);
 * - consent_withdrawn: a consent token it rests on was withdrawn and the policy pack says that
 *   ends it (a later verification under a new active token lifts it);
 * - erased: the subject's erasure request was carried out (never lifted).
 *
 * live    command           condition                         events
 * ------  ----------------  --------------------------------  -------------------------------------------
 * (none)  issue             -                                 passport.issued
 * any     issue             verification already counted      -
 * any     issue             higher assurance                  passport.assurance_raised
 * held    issue             a new consent token lifts the     passport.restored (or passport.hold_released
 *                           consent hold                      when other holds remain)
 * any     issue             nothing new                       - (the verification names the passport)
 * live    hold              -                                 passport.ended (the gate's event: it stops being live)
 * held    hold              a new hold                        passport.hold_added
 * held    release           the last hold goes                passport.restored
 * held    release           other holds remain                passport.hold_released
 * any     hold, release     already so                        -
 * any     link_supersedes   -                                 passport.supersedes_linked / _unlinked
 *
 * Every passport event carries subject_ref and `live` after it, so a read model can follow the
 * journal feed without the state (gate.ts).
 */
import { BoundedMap, defineActor, type IndexEntry, iso, type Reaction, sortKeyTime } from '../../runtime/index.ts';
import { ApiError, assertNever, recordView } from '../../kernel/index.ts';
import { PASSPORT_PREFIX } from './ids.ts';
import { ACTIVE_POLICY, type AssuranceLevel, levelRank, policyVersion } from './policy.ts';

export const HOLD_KINDS = ['blocklisted', 'merged', 'consent_withdrawn', 'erased'] as const;
export type HoldKind = (typeof HOLD_KINDS)[number];
export interface Hold {
  kind: HoldKind;
  /** For a merge: the surviving passport. */
  by?: string;
  /** The record behind it: blocklist entry, merge, consent token or subject request. */
  ref: string;
  since: number;
}

export interface PassportState {
  id: string;
  org: string;
  subject_ref: string;
  livemode: boolean;
  mocked: boolean;
  issued: boolean;
  assurance: AssuranceLevel;
  /** The latest RECENT_VERIFICATIONS verifications that issued, raised or restored it, oldest first. */
  verification_ids: string[];
  consent_token_ids: string[];
  holds: Hold[];
  superseded_by: string | null;
  supersedes: string[];
  policy_version: string;
  issued_at: number;
  ended_at: number | null;
}

interface Gate {
  subject_ref: string;
  passport_id: string;
  live: boolean;
}

export type PassportEvent =
  | ({ type: 'passport.issued'; assurance: AssuranceLevel; verification_id: string; consent_token_id: string | null; livemode: boolean; mocked: boolean; policy_version: string } & Gate)
  | ({ type: 'passport.assurance_raised'; assurance: AssuranceLevel; verification_id: string; consent_token_id: string | null } & Gate)
  | ({ type: 'passport.ended'; reasons: HoldKind[]; hold: Hold } & Gate)
  | ({ type: 'passport.hold_added'; hold: Hold } & Gate)
  | ({ type: 'passport.restored'; released: Hold; consent_token_id?: string | null; verification_id?: string } & Gate)
  | ({ type: 'passport.hold_released'; released: Hold; consent_token_id?: string | null; verification_id?: string } & Gate)
  | ({ type: 'passport.supersedes_linked'; passport: string } & Gate)
  | ({ type: 'passport.supersedes_unlinked'; passport: string } & Gate);

export interface IssuePassport {
  subject_ref: string;
  verification_id: string;
  assurance: AssuranceLevel;
  consent_token_id: string | null;
  livemode: boolean;
  mocked: boolean;
}

export const RECENT_VERIFICATIONS = 20;

export const isLive = (s: PassportState): boolean => s.issued && s.holds.length === 0;

/**
 * Verifications whose passport issue the operations' own ask already applied on this node
 * (passports.ts issuePassport): the ask is answered only after its commit, so the reaction to
 * verification.resolved, the safety net for a node that stopped before asking, has nothing left to
 * do for them and sends no second ask. Only an applied issue is remembered, and only here: a
 * verification whose issue did not complete on this node (it failed, the node restarted, another
 * node reads the feed) is still issued by the reaction.
 */
const issuedHere = new BoundedMap<string, true>(65_536);
const issuedKey = (org: string, verificationId: string) => `${org}\u0000${verificationId}`;
export function markIssuedHere(org: string, verificationId: string): void {
  issuedHere.set(issuedKey(org, verificationId), true);
}

function gate(s: PassportState, liveAfter: boolean): Gate {
  return { subject_ref: s.subject_ref, passport_id: s.id, live: liveAfter };
}

export const Passport = defineActor({
  kind: 'identity_passport',
  prefix: PASSPORT_PREFIX,
  creates: ['issue', 'hold', 'release', 'link_supersedes'],
  initial: (id: string, org: string): PassportState => ({
    id,
    org,
    subject_ref: '',
    livemode: false,
    mocked: false,
    issued: false,
    assurance: 'dal_0',
    verification_ids: [],
    consent_token_ids: [],
    holds: [],
    superseded_by: null,
    supersedes: [],
    policy_version: ACTIVE_POLICY.pack.version,
    issued_at: 0,
    ended_at: null,
  }),
  decide: {
    issue(s: PassportState, cmd: IssuePassport, ctx): PassportEvent[] {
      if (ctx.version === 0) {
        const first = { ...s, subject_ref: cmd.subject_ref, id: ctx.id };
        return [{ type: 'passport.issued', assurance: cmd.assurance, verification_id: cmd.verification_id, consent_token_id: cmd.consent_token_id, livemode: cmd.livemode, mocked: cmd.mocked, policy_version: ACTIVE_POLICY.pack.version, ...gate(first, true) }];
      }
      if (s.verification_ids.includes(cmd.verification_id)) return [];
      const consentHold = s.holds.find((h) => h.kind === 'consent_withdrawn');
      const lifts = consentHold !== undefined && cmd.consent_token_id !== null && !s.consent_token_ids.includes(cmd.consent_token_id);
      const holdsAfter = lifts ? s.holds.filter((h) => h !== consentHold) : s.holds;
      const liveAfter = holdsAfter.length === 0;
      const events: PassportEvent[] = [];
      // The raised level first (the passport may still be held), then the restoration it brings.
      if (levelRank(cmd.assurance) > levelRank(s.assurance)) events.push({ type: 'passport.assurance_raised', assurance: cmd.assurance, verification_id: cmd.verification_id, consent_token_id: cmd.consent_token_id, ...gate(s, isLive(s)) });
      if (lifts) events.push({ type: liveAfter ? 'passport.restored' : 'passport.hold_released', released: consentHold, consent_token_id: cmd.consent_token_id, verification_id: cmd.verification_id, ...gate(s, liveAfter) });
      return events;
    },
    hold(s: PassportState, cmd: { kind: HoldKind; ref: string; by?: string }, ctx): PassportEvent[] {
      if (!s.issued) return [];
      if (s.holds.some((h) => h.kind === cmd.kind && h.ref === cmd.ref)) return [];
      if (cmd.kind === 'consent_withdrawn') {
        // Only a token this passport rests on, and only when the pack says withdrawal ends it.
        const p = (policyVersion(s.policy_version) ?? ACTIVE_POLICY).pack;
        if (!p.consent.withdrawal_ends_passport || !s.consent_token_ids.includes(cmd.ref)) return [];
      }
      const hold: Hold = { kind: cmd.kind, ref: cmd.ref, since: ctx.now, ...(cmd.by ? { by: cmd.by } : {}) };
      if (isLive(s)) return [{ type: 'passport.ended', reasons: [cmd.kind], hold, ...gate(s, false) }];
      return [{ type: 'passport.hold_added', hold, ...gate(s, false) }];
    },
    release(s: PassportState, cmd: { kind: HoldKind; ref: string }): PassportEvent[] {
      const held = s.holds.find((h) => h.kind === cmd.kind && h.ref === cmd.ref);
      if (!held) return [];
      if (held.kind === 'erased') throw new ApiError('conflict', `Passport ${s.id} was erased on the subject's request; it cannot be restored.`);
      const liveAfter = s.holds.length === 1;
      return [{ type: liveAfter ? 'passport.restored' : 'passport.hold_released', released: held, ...gate(s, liveAfter) }];
    },
    link_supersedes(s: PassportState, cmd: { passport: string; linked: boolean }): PassportEvent[] {
      if (!s.issued) return [];
      const has = s.supersedes.includes(cmd.passport);
      if (cmd.linked === has) return [];
      return [{ type: cmd.linked ? 'passport.supersedes_linked' : 'passport.supersedes_unlinked', passport: cmd.passport, ...gate(s, isLive(s)) }];
    },
  },
  evolve(s: PassportState, e: PassportEvent, meta): PassportState {
    // The latest that issued, raised or restored it: the subject's full list is GET /v1/identity/verifications.
    const addEvidence = (x: PassportState, v: string, c: string | null) => ({
      ...x,
      verification_ids: [...x.verification_ids.slice(-(RECENT_VERIFICATIONS - 1)), v],
      consent_token_ids: c === null || x.consent_token_ids.includes(c) ? x.consent_token_ids : [...x.consent_token_ids, c],
    });
    switch (e.type) {
      case 'passport.issued':
        return addEvidence({ ...s, subject_ref: e.subject_ref, issued: true, assurance: e.assurance, livemode: e.livemode, mocked: e.mocked, policy_version: e.policy_version, issued_at: meta.at }, e.verification_id, e.consent_token_id);
      case 'passport.assurance_raised':
        return addEvidence({ ...s, assurance: e.assurance }, e.verification_id, e.consent_token_id);
      case 'passport.ended':
      case 'passport.hold_added': {
        const holds = [...s.holds, e.hold];
        return { ...s, holds, ended_at: e.type === 'passport.ended' ? meta.at : s.ended_at, superseded_by: e.hold.kind === 'merged' ? (e.hold.by ?? null) : s.superseded_by };
      }
      case 'passport.restored':
      case 'passport.hold_released': {
        const holds = s.holds.filter((h) => !(h.kind === e.released.kind && h.ref === e.released.ref));
        const x = e.verification_id ? addEvidence(s, e.verification_id, e.consent_token_id ?? null) : s;
        return { ...x, holds, ended_at: e.type === 'passport.restored' ? null : s.ended_at, superseded_by: e.released.kind === 'merged' ? null : s.superseded_by };
      }
      case 'passport.supersedes_linked':
        return { ...s, supersedes: [...s.supersedes, e.passport] };
      case 'passport.supersedes_unlinked':
        return { ...s, supersedes: s.supersedes.filter((p) => p !== e.passport) };
      default:
        return assertNever(e);
    }
  },
  view: (s: PassportState) => (recordView('passport', s.id, s.livemode, s.mocked, {
    subject_ref: s.subject_ref,
    live: isLive(s),
    status: isLive(s) ? 'live' : s.holds.some((h) => h.kind === 'merged') ? 'superseded' : 'ended',
    ended_because: [...new Set(s.holds.map((h) => h.kind))],
    assurance_level: s.assurance,
    verification_ids: s.verification_ids,
    consent_token_ids: s.consent_token_ids,
    superseded_by: s.superseded_by,
    supersedes: s.supersedes,
    policy_version: s.policy_version,
    issued_at: iso(s.issued_at),
    ended_at: s.ended_at === null ? null : iso(s.ended_at),
  })),
  indexes(s: PassportState): IndexEntry[] {
    if (!s.issued) return [];
    const k = sortKeyTime(s.issued_at);
    return [
      { list: 'all', sortKey: k },
      { list: isLive(s) ? 'live' : 'not_live', sortKey: k },
    ];
  },
  reactions: [
    {
      from: 'identity_verification',
      events: ['verification.resolved'],
      command: 'issue',
      target(e, src) {
        if (issuedHere.delete(issuedKey(e.org, src.id))) return undefined; // applied already (see issuedHere)
        const d = e.data as { subject_ref: string; passport_id: string; assurance_reached: AssuranceLevel; consent_token_id: string | null; livemode: boolean; mocked: boolean };
        return { id: d.passport_id, payload: { subject_ref: d.subject_ref, verification_id: src.id, assurance: d.assurance_reached, consent_token_id: d.consent_token_id, livemode: d.livemode, mocked: d.mocked } satisfies IssuePassport };
      },
    },
    {
      from: 'identity_blocklist_entry',
      events: ['blocklist_entry.activated'],
      command: 'hold',
      target: (e, src) => ({ id: (e.data as { passport_id: string }).passport_id, payload: { kind: 'blocklisted', ref: src.id } }),
    },
    {
      from: 'identity_blocklist_entry',
      events: ['blocklist_entry.reversed'],
      command: 'release',
      target: (e, src) => ({ id: (e.data as { passport_id: string }).passport_id, payload: { kind: 'blocklisted', ref: src.id } }),
    },
    {
      from: 'identity_consent_token',
      events: ['consent_token.withdrawn'],
      command: 'hold',
      target: (e, src) => ({ id: (e.data as { passport_id: string }).passport_id, payload: { kind: 'consent_withdrawn', ref: src.id } }),
    },
    {
      from: 'identity_merge',
      events: ['merge.made'],
      command: 'hold',
      target: (e, src) => {
        const d = e.data as { superseded_passport_id: string; survivor_passport_id: string };
        return { id: d.superseded_passport_id, payload: { kind: 'merged', ref: src.id, by: d.survivor_passport_id } };
      },
    },
    {
      from: 'identity_merge',
      events: ['merge.made', 'merge.reversed'],
      command: 'link_supersedes',
      target: (e) => {
        const d = e.data as { superseded_passport_id: string; survivor_passport_id: string };
        return { id: d.survivor_passport_id, payload: { passport: d.superseded_passport_id, linked: e.type === 'merge.made' } };
      },
    },
    {
      from: 'identity_merge',
      events: ['merge.reversed'],
      command: 'release',
      target: (e, src) => ({ id: (e.data as { superseded_passport_id: string }).superseded_passport_id, payload: { kind: 'merged', ref: src.id } }),
    },
    {
      from: 'identity_subject_request',
      events: ['subject_request.erasure_carried_out'],
      command: 'hold',
      target: (e, src) => ({ id: (e.data as { passport_id: string }).passport_id, payload: { kind: 'erased', ref: src.id } }),
    },
  ] satisfies Reaction[],
});
