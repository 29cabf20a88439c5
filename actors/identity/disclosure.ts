/**
 * Disclosure (spec 4.3 disclosures; rule 6: decisions, never raw personal data; shape a gap,
 * docs/gaps.md#identity): a record that the organisation told a named recipient, for a purpose
 * the subject consented to, what identity decided about the subject (passport live or not, its
 * assurance level), as it stood when disclosed. Needs an active consent token of the subject for
 * that purpose (422 consent_token_missing otherwise). `GET .../reconcile` lists active disclosures
 * that no longer rest on an active token or a live passport.
 *
 * status   command  condition           event                  next
 * -------  -------  ------------------  ---------------------  --------
 * (none)   make     -                   disclosure.made        active
 * any      make     (again)             -                      (unchanged)
 * active   revoke   -                   disclosure.revoked     revoked
 * active   expire   expires_at reached  disclosure.expired     expired
 * other    revoke   -                   409 conflict
 * other    expire   -                   -                      (unchanged)
 */
import { defineActor, type IndexEntry, iso, sortKeyTime } from '../../runtime/index.ts';
import { ApiError, assertNever, factsOf, recordView } from '../../kernel/index.ts';
import { DISCLOSURE_PREFIX } from './ids.ts';

export const DISCLOSURE_STATUSES = ['active', 'revoked', 'expired'] as const;
export type DisclosureStatus = (typeof DISCLOSURE_STATUSES)[number];

export interface DisclosedDecision {
  passport_id: string | null;
  passport_live: boolean;
  assurance_level: string | null;
}

export interface DisclosureFacts {
  subject_ref: string;
  consent_token_id: string;
  recipient: string;
  purpose: string;
  disclosed: DisclosedDecision;
  expires_at: number;
  livemode: boolean;
}

export interface DisclosureState extends DisclosureFacts {
  id: string;
  org: string;
  status: DisclosureStatus;
  created_at: number;
  revoked_at: number | null;
}

export type DisclosureEvent =
  | ({ type: 'disclosure.made' } & DisclosureFacts)
  | { type: 'disclosure.revoked'; reason: string | null }
  | { type: 'disclosure.expired' };

export const Disclosure = defineActor({
  kind: 'identity_disclosure',
  prefix: DISCLOSURE_PREFIX,
  creates: ['make'],
  initial: (id: string, org: string): DisclosureState => ({
    id, org, subject_ref: '', consent_token_id: '', recipient: '', purpose: '', disclosed: { passport_id: null, passport_live: false, assurance_level: null },
    expires_at: 0, livemode: false, status: 'active', created_at: 0, revoked_at: null,
  }),
  decide: {
    make(_s: DisclosureState, cmd: DisclosureFacts, ctx): DisclosureEvent[] {
      return ctx.version > 0 ? [] : [{ type: 'disclosure.made', ...cmd }];
    },
    revoke(s: DisclosureState, cmd: { reason?: string }): DisclosureEvent[] {
      if (s.status !== 'active') throw new ApiError('conflict', `Disclosure ${s.id} is ${s.status}; only an active disclosure can be revoked.`);
      return [{ type: 'disclosure.revoked', reason: cmd.reason ?? null }];
    },
    expire(s: DisclosureState, _c: unknown, ctx): DisclosureEvent[] {
      return s.status === 'active' && ctx.now >= s.expires_at ? [{ type: 'disclosure.expired' }] : [];
    },
  },
  evolve(s: DisclosureState, e: DisclosureEvent, meta): DisclosureState {
    switch (e.type) {
      case 'disclosure.made':
        return { ...s, ...factsOf(e), status: 'active', created_at: meta.at };
      case 'disclosure.revoked':
        return { ...s, status: 'revoked', revoked_at: meta.at };
      case 'disclosure.expired':
        return { ...s, status: 'expired' };
      default:
        return assertNever(e);
    }
  },
  view: (s: DisclosureState) => (recordView('disclosure', s.id, s.livemode, false, {
    status: s.status,
    subject_ref: s.subject_ref,
    consent_token_id: s.consent_token_id,
    recipient: s.recipient,
    purpose: s.purpose,
    disclosed: s.disclosed,
    expires_at: iso(s.expires_at),
    revoked_at: s.revoked_at === null ? null : iso(s.revoked_at),
    created_at: iso(s.created_at),
  })),
  timers: (s: DisclosureState) => (s.status === 'active' ? [{ name: 'expiry', dueAt: s.expires_at, command: 'expire' }] : []),
  indexes: (s: DisclosureState): IndexEntry[] => [
    { list: 'all', sortKey: sortKeyTime(s.created_at) },
    { list: `status:${s.status}`, sortKey: sortKeyTime(s.created_at) },
  ],
});
