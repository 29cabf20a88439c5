/**
 * Disclosure (credentials). Spec 1 rule 7, 4.4 (GET and POST /v1/credentials/disclosures, POST
 * .../revoke), 7 (422 consent_token_missing on create). A subject's claims shown to a recipient,
 * under an active consent token of the subject whose purpose the policy pack lists for disclosures
 * (checked in disclosures.ts before the record is made). Fields are not shown (docs/gaps.md#credentials).
 *
 * status   command  condition  event                next
 * -------  -------  ---------  -------------------  -------
 * (none)   create   -          disclosure.created   active
 * active   revoke   -          disclosure.revoked   revoked
 * revoked  revoke   -          409 conflict
 */
import { defineActor, type IndexEntry, iso, sortKeyTime } from '../../runtime/index.ts';
import { ApiError, assertNever, factsOf, recordView } from '../../kernel/index.ts';
import { DISCLOSURE_PREFIX } from './ids.ts';

export const DISCLOSURE_STATUSES = ['active', 'revoked'] as const;
export type DisclosureStatus = (typeof DISCLOSURE_STATUSES)[number];

export interface CreateDisclosure {
  subject_ref: string;
  wallet_id: string | null;
  claim_ids: string[];
  recipient: string;
  purpose: string;
  consent_token_id: string;
  livemode: boolean;
}

export interface DisclosureState extends CreateDisclosure {
  id: string;
  org: string;
  status: DisclosureStatus;
  revoked_at: number | null;
  revoked_by: string | null;
  created_at: number;
}

export type DisclosureEvent =
  | ({ type: 'disclosure.created' } & CreateDisclosure)
  | { type: 'disclosure.revoked'; subject_ref: string; revoked_by: string };

export const Disclosure = defineActor({
  kind: 'credentials_disclosure',
  prefix: DISCLOSURE_PREFIX,
  creates: ['create'],
  initial: (id: string, org: string): DisclosureState => ({
    id, org, subject_ref: '', wallet_id: null, claim_ids: [], recipient: '', purpose: '', consent_token_id: '', livemode: false,
    status: 'active', revoked_at: null, revoked_by: null, created_at: 0,
  }),
  decide: {
    create(_s: DisclosureState, cmd: CreateDisclosure, ctx): DisclosureEvent[] {
      return ctx.version > 0 ? [] : [{ type: 'disclosure.created', ...cmd }];
    },
    revoke(s: DisclosureState, _cmd: unknown, ctx): DisclosureEvent[] {
      if (s.status !== 'active') throw new ApiError('conflict', `Disclosure ${s.id} is ${s.status}; only an active disclosure can be revoked.`);
      return [{ type: 'disclosure.revoked', subject_ref: s.subject_ref, revoked_by: ctx.principal ?? 'unknown' }];
    },
  },
  evolve(s: DisclosureState, e: DisclosureEvent, meta): DisclosureState {
    switch (e.type) {
      case 'disclosure.created':
        return { ...s, ...factsOf(e), status: 'active', created_at: meta.at };
      case 'disclosure.revoked':
        return { ...s, status: 'revoked', revoked_at: meta.at, revoked_by: e.revoked_by };
      default:
        return assertNever(e);
    }
  },
  view: (s: DisclosureState) => (recordView('disclosure', s.id, s.livemode, false, {
    subject_ref: s.subject_ref,
    wallet_id: s.wallet_id,
    claim_ids: s.claim_ids,
    recipient: s.recipient,
    purpose: s.purpose,
    consent_token_id: s.consent_token_id,
    status: s.status,
    revoked_at: s.revoked_at === null ? null : iso(s.revoked_at),
    created_at: iso(s.created_at),
  })),
  indexes(s: DisclosureState): IndexEntry[] {
    const k = sortKeyTime(s.created_at);
    return [
      { list: 'all', sortKey: k },
      { list: `status:${s.status}`, sortKey: k },
      { list: `subject:${s.subject_ref}`, sortKey: k },
      { list: `subject:${s.subject_ref}:status:${s.status}`, sortKey: k },
    ];
  },
});
