/**
 * Consent token (spec 2.4 ConsentToken, 3 "Consent token", rule 7; NDPA s.26, s.35 in reference
 * 1.7). A token authorises checks for one organisation, one subject, one purpose and the checks it
 * names, while active. The evidence of consent (wording_version, collected_channel, collected_at)
 * is kept because the controller bears the burden of proof (s.26(1)).
 *
 * status   command  condition            event                       next
 * -------  -------  -------------------  --------------------------  ---------
 * (none)   create   -                    consent_token.created       active
 * active   revoke   -                    consent_token.withdrawn     withdrawn
 * active   expire   expires_at reached   consent_token.expired       expired  (a reminder, not a read)
 * active   expire   not yet due          -                           active   (a stale reminder)
 * other    revoke   -                    409 conflict
 * other    expire   -                    -                           (unchanged)
 */
import { defineActor, type IndexEntry, iso, sortKeyTime } from '../../runtime/index.ts';
import { ApiError, assertNever, factsOf, recordView } from '../../kernel/index.ts';
import { CONSENT_PREFIX, passportIdOf } from './ids.ts';
import type { CheckKind } from './policy.ts';

export const CONSENT_STATUSES = ['active', 'withdrawn', 'expired'] as const;
export type ConsentStatus = (typeof CONSENT_STATUSES)[number];
export const COLLECTED_CHANNELS = ['api', 'self_serve', 'assisted', 'whatsapp'] as const;
export type CollectedChannel = (typeof COLLECTED_CHANNELS)[number];

export interface CreateConsent {
  subject_ref: string;
  purpose: string;
  checks: CheckKind[];
  wording_version: string;
  collected_channel: CollectedChannel;
  collected_at: number;
  expires_at: number;
  livemode: boolean;
}

/** The facts of its creation (factsOf), and what the token became. */
export interface ConsentState extends CreateConsent {
  id: string;
  org: string;
  status: ConsentStatus;
  withdrawn_at: number | null;
  created_at: number;
}

export type ConsentEvent =
  | ({ type: 'consent_token.created' } & CreateConsent)
  | { type: 'consent_token.withdrawn'; subject_ref: string; passport_id: string }
  | { type: 'consent_token.expired'; subject_ref: string; passport_id: string };

export const ConsentToken = defineActor({
  kind: 'identity_consent_token',
  prefix: CONSENT_PREFIX,
  creates: ['create'],
  initial: (id: string, org: string): ConsentState => ({
    id,
    org,
    livemode: false,
    subject_ref: '',
    purpose: '',
    checks: [],
    status: 'active',
    wording_version: '',
    collected_channel: 'api',
    collected_at: 0,
    expires_at: 0,
    withdrawn_at: null,
    created_at: 0,
  }),
  decide: {
    create(_s: ConsentState, cmd: CreateConsent, ctx): ConsentEvent[] {
      if (ctx.version > 0) return [];
      return [{ type: 'consent_token.created', ...cmd }];
    },
    revoke(s: ConsentState): ConsentEvent[] {
      if (s.status !== 'active') throw new ApiError('conflict', `Consent token ${s.id} is ${s.status}; only an active token can be revoked.`);
      return [{ type: 'consent_token.withdrawn', subject_ref: s.subject_ref, passport_id: passportIdOf(s.org, s.subject_ref) }];
    },
    expire(s: ConsentState, _cmd: unknown, ctx): ConsentEvent[] {
      if (s.status !== 'active' || ctx.now < s.expires_at) return [];
      return [{ type: 'consent_token.expired', subject_ref: s.subject_ref, passport_id: passportIdOf(s.org, s.subject_ref) }];
    },
  },
  evolve(s: ConsentState, e: ConsentEvent, meta): ConsentState {
    switch (e.type) {
      case 'consent_token.created':
        return { ...s, ...factsOf(e), status: 'active', created_at: meta.at };
      case 'consent_token.withdrawn':
        return { ...s, status: 'withdrawn', withdrawn_at: meta.at };
      case 'consent_token.expired':
        return { ...s, status: 'expired' };
      default:
        return assertNever(e);
    }
  },
  view: (s: ConsentState) => (recordView('consent_token', s.id, s.livemode, false, {
    subject_ref: s.subject_ref,
    purpose: s.purpose,
    checks: s.checks,
    status: s.status,
    wording_version: s.wording_version,
    collected_channel: s.collected_channel,
    collected_at: iso(s.collected_at),
    expires_at: iso(s.expires_at),
    withdrawn_at: s.withdrawn_at === null ? null : iso(s.withdrawn_at),
    created_at: iso(s.created_at),
  })),
  timers: (s: ConsentState) => (s.status === 'active' ? [{ name: 'expiry', dueAt: s.expires_at, command: 'expire' }] : []),
  indexes(s: ConsentState): IndexEntry[] {
    const k = sortKeyTime(s.created_at);
    return [
      { list: 'all', sortKey: k },
      { list: `status:${s.status}`, sortKey: k },
      { list: `subject:${passportIdOf(s.org, s.subject_ref)}`, sortKey: k },
    ];
  },
});

/** Whether a token authorises now, apart from its scope: active and not past expires_at. */
export const consentActive = (s: ConsentState, now: number): boolean => s.status === 'active' && now < s.expires_at;
