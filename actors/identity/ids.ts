/**
 * Identifier prefixes of the identity module. Spec 2.4 fixes anchor_pro_consent_,
 * anchor_pro_verification_ and anchor_pro_passport_; the others are ours (docs/gaps.md#identity),
 * formed the same way. A subject's passport id is derived from the organisation and subject_ref,
 * so every part of the module (and a reaction) can name it without a lookup.
 */
import { rememberedDerivedIds } from '../../kernel/index.ts';

export const CONSENT_PREFIX = 'anchor_pro_consent_';
export const VERIFICATION_PREFIX = 'anchor_pro_verification_';
export const PASSPORT_PREFIX = 'anchor_pro_passport_';
export const EVIDENCE_BUNDLE_PREFIX = 'anchor_pro_evidence_bundle_';
export const BLOCKLIST_PREFIX = 'anchor_pro_blocklist_entry_';
export const MERGE_CANDIDATE_PREFIX = 'anchor_pro_merge_candidate_';
export const MERGE_PREFIX = 'anchor_pro_merge_';
export const DISCLOSURE_PREFIX = 'anchor_pro_disclosure_';
export const SUBJECT_REQUEST_PREFIX = 'anchor_pro_subject_request_';
export const ACCESS_GRANT_PREFIX = 'anchor_pro_access_grant_';
export const BATCH_PREFIX = 'anchor_pro_verification_batch_';

/** Remembered for the subjects seen lately: every list entry of a subject names its passport. */
export const passportIdOf = rememberedDerivedIds(PASSPORT_PREFIX, 65_536);
export const evidenceBundleIdOf = (verificationId: string): string => `${EVIDENCE_BUNDLE_PREFIX}${verificationId.slice(VERIFICATION_PREFIX.length)}`;
export const verificationIdOfBundle = (bundleId: string): string => `${VERIFICATION_PREFIX}${bundleId.slice(EVIDENCE_BUNDLE_PREFIX.length)}`;
