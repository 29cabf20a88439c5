/**
 * Identifier prefixes of the credentials module. Spec 2.5 fixes proof_academic_verification_ (for
 * credential verifications and, as written, for competency frameworks) and proof_academic_claim_;
 * the others are ours (docs/gaps.md#credentials), formed the same way under the module's `proof`.
 * Ids that follow from other records are derived, so a reaction and a retried create name the same
 * record without a lookup.
 */
import { derivedId } from '../../kernel/index.ts';

export const VERIFICATION_PREFIX = 'proof_academic_verification_';
/** Spec 2.5 gives frameworks the verification prefix; a framework id is derived from occupation and version. */
export const FRAMEWORK_PREFIX = 'proof_academic_verification_';
export const CLAIM_PREFIX = 'proof_academic_claim_';
export const ISSUER_PREFIX = 'proof_issuer_';
export const DOCUMENT_ANALYSIS_PREFIX = 'proof_document_analysis_';
export const LICENCE_PREFIX = 'proof_licence_';
export const WALLET_PREFIX = 'proof_wallet_';
export const DISCLOSURE_PREFIX = 'proof_disclosure_';
export const REATTESTATION_PREFIX = 'proof_reattestation_';
export const APPEAL_PREFIX = 'proof_appeal_';

export const frameworkIdOf = (occupationCode: string, version: string): string => derivedId(FRAMEWORK_PREFIX, ['framework', occupationCode, version]);
/** The claim a verified credential issues. */
export const claimIdOfVerification = (verificationId: string): string => derivedId(CLAIM_PREFIX, ['verification', verificationId]);
/** The claim a re-attestation issues. */
export const claimIdOfReattestation = (reattestationId: string): string => derivedId(CLAIM_PREFIX, ['reattestation', reattestationId]);
/** One licence record per organisation, subject, occupation and issuing body. */
export const licenceIdOf = (org: string, subjectRef: string, occupationCode: string, issuerId: string): string =>
  derivedId(LICENCE_PREFIX, [org, subjectRef, occupationCode, issuerId]);
