/**
 * Access grant (spec 4.3 POST /v1/identity/access_grants; shape a gap, docs/gaps.md#identity): the
 * subject lets a named grantee (another organisation's reference, an auditor) read identity's
 * decision about them (the passport's liveness and level) for a purpose until a date, resting on
 * an active consent token of the subject for that purpose. Recorded, readable and revocable.
 *
 * status   command  condition           event                   next
 * -------  -------  ------------------  ----------------------  --------
 * (none)   grant    -                   access_grant.granted    active
 * active   revoke   -                   access_grant.revoked    revoked
 * active   expire   expires_at reached  access_grant.expired    expired
 * other    revoke   -                   409 conflict
 */
import { defineActor, type IndexEntry, iso, sortKeyTime } from '../../runtime/index.ts';
import { ApiError, assertNever, factsOf, recordView } from '../../kernel/index.ts';
import { ACCESS_GRANT_PREFIX } from './ids.ts';

export interface GrantFacts {
  subject_ref: string;
  grantee: string;
  purpose: string;
  consent_token_id: string;
  expires_at: number;
  livemode: boolean;
}

export interface GrantState extends GrantFacts {
  id: string;
  org: string;
  status: 'active' | 'revoked' | 'expired';
  created_at: number;
}

export type GrantEvent = ({ type: 'access_grant.granted' } & GrantFacts) | { type: 'access_grant.revoked' } | { type: 'access_grant.expired' };

export const AccessGrant = defineActor({
  kind: 'identity_access_grant',
  prefix: ACCESS_GRANT_PREFIX,
  creates: ['grant'],
  initial: (id: string, org: string): GrantState => ({ id, org, subject_ref: '', grantee: '', purpose: '', consent_token_id: '', expires_at: 0, livemode: false, status: 'active', created_at: 0 }),
  decide: {
    grant(_s: GrantState, cmd: GrantFacts, ctx): GrantEvent[] {
      return ctx.version > 0 ? [] : [{ type: 'access_grant.granted', ...cmd }];
    },
    revoke(s: GrantState): GrantEvent[] {
      if (s.status !== 'active') throw new ApiError('conflict', `Access grant ${s.id} is ${s.status}; only an active grant can be revoked.`);
      return [{ type: 'access_grant.revoked' }];
    },
    expire(s: GrantState, _c: unknown, ctx): GrantEvent[] {
      return s.status === 'active' && ctx.now >= s.expires_at ? [{ type: 'access_grant.expired' }] : [];
    },
  },
  evolve(s: GrantState, e: GrantEvent, meta): GrantState {
    switch (e.type) {
      case 'access_grant.granted':
        return { ...s, ...factsOf(e), status: 'active', created_at: meta.at };
      case 'access_grant.revoked':
        return { ...s, status: 'revoked' };
      case 'access_grant.expired':
        return { ...s, status: 'expired' };
      default:
        return assertNever(e);
    }
  },
  view: (s: GrantState) => (recordView('access_grant', s.id, s.livemode, false, {
    status: s.status,
    subject_ref: s.subject_ref,
    grantee: s.grantee,
    purpose: s.purpose,
    consent_token_id: s.consent_token_id,
    expires_at: iso(s.expires_at),
    created_at: iso(s.created_at),
  })),
  timers: (s: GrantState) => (s.status === 'active' ? [{ name: 'expiry', dueAt: s.expires_at, command: 'expire' }] : []),
  indexes: (s: GrantState): IndexEntry[] => [{ list: 'all', sortKey: sortKeyTime(s.created_at) }],
});
