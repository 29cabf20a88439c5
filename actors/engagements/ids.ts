/** Id prefixes of the engagements area (spec 2.6 names the first three; the rest are ours, docs/gaps.md#engagements). */
import { derivedId, rememberedIds } from '../../kernel/index.ts';

export const ENGAGEMENT_PREFIX = 'rail_engagement_';
export const INSTRUMENT_PREFIX = 'rail_instrument_';
export const ENVELOPE_PREFIX = 'rail_envelope_';
export const DISPUTE_PREFIX = 'rail_dispute_';
export const ATTESTATION_PREFIX = 'rail_attestation_';
export const ASSENT_PREFIX = 'rail_assent_';
export const REMEDIATION_CASE_PREFIX = 'rail_remediation_case_';
export const AUDIT_BUNDLE_PREFIX = 'rail_audit_bundle_';
export const SEAL_CHAIN_PREFIX = 'rail_seal_chain_';
export const PARTY_PREFIX = 'rail_party_';

/** Asked for on every execute and view (kernel rememberedIds). */
const chains = rememberedIds(10_000);
const envelopes = rememberedIds(10_000);

/** The organisation's one seal chain. */
export const sealChainId = (org: string) => chains(org, () => derivedId(SEAL_CHAIN_PREFIX, ['seal_chain', org]));
/** The party record of a subject_ref within an organisation (fans a passport change out to its engagements). */
export const partyId = (org: string, subjectRef: string) => derivedId(PARTY_PREFIX, ['party', org, subjectRef]);
/** The envelope of an engagement's nth classification: a new classification is a new envelope (spec 1 rule 4). */
export const envelopeId = (engagementId: string, n: number) => envelopes(`${engagementId} ${n}`, () => derivedId(ENVELOPE_PREFIX, ['envelope', engagementId, String(n)]));

/** YYYY-MM-DD of a time (UTC). */
export const dateOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
/** The first instant after a date (UTC): when a day has passed. */
export const endOfDate = (date: string) => Date.parse(`${date}T00:00:00.000Z`) + 86_400_000;
