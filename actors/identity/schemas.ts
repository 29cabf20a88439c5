/** Request shapes of the identity routes (spec 2.4, 4.3); documented in docs/openapi.json from here. */
import { Type } from '@sinclair/typebox';
import { callerRef, enumOf, listQueryWith } from '../../kernel/index.ts';
import { BLOCKLIST_STATUSES } from './blocklist-entry.ts';
import { COLLECTED_CHANNELS, CONSENT_STATUSES } from './consent-token.ts';
import { DISCLOSURE_STATUSES } from './disclosure.ts';
import { CANDIDATE_STATUSES } from './merge-candidate.ts';
import { ASSURANCE_LEVELS, CHECK_KINDS, SUBJECT_REQUEST_KINDS } from './policy.ts';
import { COMPLETION_OUTCOMES, SUBJECT_REQUEST_STATUSES } from './subject-request.ts';
import { BLOCK_SCOPES, ORIGINS, OUTCOMES } from './verification.ts';

const Ref = (description: string) => Type.String({ minLength: 1, maxLength: 255, description });
/** A subject_ref: the kernel's one rule for caller references (kernel/caller-ref.ts). */
const Subject = callerRef;
const Reason = Type.String({ minLength: 1, maxLength: 1000, description: 'Why; recorded with who decided.' });

export const ConsentBody = Type.Object(
  {
    subject_ref: Subject('Opaque caller reference of the subject (not a name).'),
    purpose: Type.String({ minLength: 1, maxLength: 100, pattern: '^[a-z][a-z0-9_]*$', description: 'The one purpose this token covers, e.g. employment_verification.' }),
    checks: Type.Array(enumOf(CHECK_KINDS), { minItems: 1, uniqueItems: true, description: 'The checks the subject agreed to.' }),
    wording_version: Type.String({ minLength: 1, maxLength: 100, description: 'The exact wording the subject saw.' }),
    collected_channel: Type.Optional(enumOf(COLLECTED_CHANNELS, 'Default api.')),
    expires_at: Type.Optional(Type.String({ format: 'date-time', description: 'In the future; default and maximum from the identity policy pack.' })),
  },
  { additionalProperties: false },
);

export const ConsentListQuery = listQueryWith({ status: Type.Optional(enumOf(CONSENT_STATUSES)) });

export const ClaimsSchema = Type.Object(
  {
    full_name: Type.Optional(Type.String({ minLength: 1, maxLength: 300 })),
    date_of_birth: Type.Optional(Type.String({ format: 'date' })),
    phone: Type.Optional(Type.String({ minLength: 1, maxLength: 30 })),
    government_identifier: Type.Optional(Type.String({ minLength: 1, maxLength: 32, writeOnly: true, description: 'NIN (11 digits) or vNIN; write-only, never returned or stored in clear.' })),
    bank_identifier: Type.Optional(Type.String({ minLength: 1, maxLength: 32, writeOnly: true, description: 'BVN (11 digits); write-only, never returned or stored in clear.' })),
    business_registration_number: Type.Optional(Type.String({ minLength: 1, maxLength: 16, description: 'An organisation\u2019s verification: its corporate registry number (CAC: RC, BN or IT and up to 8 digits). With it, business_name and directors; no person claims (docs/gaps.md#identity "Organisation passports").' })),
    business_name: Type.Optional(Type.String({ minLength: 1, maxLength: 300, description: 'The registered name, matched against the registry\u2019s record.' })),
    directors: Type.Optional(Type.Array(Subject('A director, verified as a person: their subject_ref, holding a live passport in this organisation.'), { minItems: 1, maxItems: 20, uniqueItems: true, description: 'The directors (at least one); each must hold a live passport at the pack\u2019s director level.' })),
  },
  { additionalProperties: false },
);

export const VerificationBody = Type.Object(
  {
    subject_ref: Subject('The subject being verified.'),
    // optional in the schema so that none at all is 422 consent_token_missing (spec 7), not 400 required
    consent_token_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'An active token of the subject for this purpose; without one, 422 consent_token_missing.' })),
    claims: ClaimsSchema,
    origin: Type.Optional(enumOf(ORIGINS)),
    target_assurance: Type.Optional(enumOf(ASSURANCE_LEVELS, 'Default: the minimum sufficient level for the token\u2019s purpose (policy pack). dal_3 and dal_4 are not delivered.')),
    purpose: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'When given, must equal the consent token\u2019s purpose (a gap: docs/gaps.md#identity).' })),
  },
  { additionalProperties: false },
);

export const VerificationListQuery = listQueryWith({ outcome: Type.Optional(enumOf(OUTCOMES)) });
export const ReasonBody = Type.Object({ reason: Reason }, { additionalProperties: false });
export const MarkUnresolvedBody = Type.Object({ source: Type.String({ minLength: 1, maxLength: 100, description: 'The source that did not answer.' }), reason: Reason }, { additionalProperties: false });
export const BlockBody = Type.Object({ scope: enumOf(BLOCK_SCOPES, 'subject: blocklist this subject; identifier: also every subject who presented the same identifier.'), reason: Reason }, { additionalProperties: false });

export const BatchBody = Type.Object({ items: Type.Array(VerificationBody, { minItems: 1, maxItems: 100 }) }, { additionalProperties: false });

export const PassportBody = Type.Object({ verification_id: Type.String({ minLength: 1, maxLength: 255, description: 'A resolved verification.' }) }, { additionalProperties: false });
export const PassportListQuery = listQueryWith({ live: Type.Optional(Type.Boolean()) });

export const BlocklistBody = Type.Object({ subject_ref: Subject('The subject to blocklist.'), reason: Reason }, { additionalProperties: false });
export const BlocklistListQuery = listQueryWith({ status: Type.Optional(enumOf(BLOCKLIST_STATUSES)) });

export const CandidateListQuery = listQueryWith({ status: Type.Optional(enumOf(CANDIDATE_STATUSES)) });
export const MergeBody = Type.Object(
  {
    merge_candidate_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    survivor_passport_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    superseded_passport_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    reason: Reason,
  },
  { additionalProperties: false },
);

const Sharing = {
  subject_ref: Subject('The subject.'),
  consent_token_id: Type.String({ minLength: 1, maxLength: 255, description: 'An active token of the subject for this purpose.' }),
  purpose: Type.String({ minLength: 1, maxLength: 100 }),
  expires_at: Type.Optional(Type.String({ format: 'date-time' })),
};
export const DisclosureBody = Type.Object(
  {
    ...Sharing,
    // as in VerificationBody: none at all is 422 consent_token_missing (spec 7)
    consent_token_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'An active token of the subject for this purpose; without one, 422 consent_token_missing.' })),
    recipient: Ref('Who the decision is disclosed to.'),
  },
  { additionalProperties: false },
);
export const DisclosureListQuery = listQueryWith({ status: Type.Optional(enumOf(DISCLOSURE_STATUSES)) });
export const RevokeBody = Type.Object({ reason: Type.Optional(Reason) }, { additionalProperties: false });
export const AccessGrantBody = Type.Object({ ...Sharing, grantee: Ref('Who is given access.') }, { additionalProperties: false });

export const SubjectRequestBody = Type.Object(
  { subject_ref: Subject('The data subject.'), kind: enumOf(SUBJECT_REQUEST_KINDS), detail: Type.Optional(Type.String({ maxLength: 2000 })) },
  { additionalProperties: false },
);
export const SubjectRequestListQuery = listQueryWith({ status: Type.Optional(enumOf(SUBJECT_REQUEST_STATUSES)) });
export const CompleteBody = Type.Object({ outcome: enumOf(COMPLETION_OUTCOMES), reason: Reason }, { additionalProperties: false });
