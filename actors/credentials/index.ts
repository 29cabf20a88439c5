/**
 * The credentials module's face (spec 1 rules 7 and 8, 2.5, 3, 4.4, 6): the area, and what other
 * modules may use: eligibility for a subject and an occupation or claim codes (a read of memory on
 * the calling node, as the identity gate is), and the journal facts they react to (a licence that
 * expired, a claim that lapsed, a forgery confirmed).
 */
import type { Area, Platform } from '../../kernel/index.ts';
import { Appeal } from './appeal.ts';
import { Claim } from './claim.ts';
import { Disclosure } from './disclosure.ts';
import { DocumentAnalysis, FORGERY_CONFIRMED } from './document-analysis.ts';
import type { Eligibility, EligibilityQuery, PreparedEligibility } from './eligibility.ts';
import { events } from './events.ts';
import { Licence } from './licence.ts';
import { activePolicy } from './policy.ts';
import { SandboxDocumentAnalyser } from './providers/document-analyser.ts';
import { SandboxIssuers } from './providers/issuers.ts';
import { Reattestation } from './reattestation.ts';
import { routes } from './routes.ts';
import { CREDENTIALS, CredentialsService, credentialsService } from './service.ts';
import { Verification } from './verification.ts';
import { Wallet } from './wallet.ts';

export type { Eligibility, EligibilityQuery, PreparedEligibility, Reason, ReasonCode, ClaimScore } from './eligibility.ts';
export { ISSUER_TEST_VALUES } from './providers/issuers.ts';
export { DOCUMENT_TEST_FILES, FACTORS } from './providers/document-analyser.ts';
export { EVIDENCE_CLASSES, type EvidenceClass } from './policy.ts';
export { DECAY_STATES, type DecayState } from './claim.ts';
export { Claim, Licence, Verification, DocumentAnalysis, CredentialsService };

export const area: Area = {
  name: 'credentials',
  kinds: [Verification, Claim, Licence, DocumentAnalysis, Wallet, Disclosure, Reattestation, Appeal],
  routes,
  events,
  start(platform) {
    const version = platform.config.CREDENTIALS_POLICY_VERSION;
    const s = new CredentialsService(platform, activePolicy(version || undefined), new SandboxIssuers(), new SandboxDocumentAnalyser());
    platform.services.provide(CREDENTIALS, s);
    s.start();
  },
  async stop(platform) {
    await platform.services.remove(CREDENTIALS)?.stop();
  },
};

export interface CredentialEligibility {
  /** Eligible or not for an occupation (its framework's claims and, where the law requires, a current licence) or for claim codes, with reasons and a freshness per claim. */
  check(org: string, subjectRef: string, q: EligibilityQuery): Eligibility;
  /** The query resolved once and asked by subject number (kernel subjectNumbers of the same platform): check()'s answer, for a ranking. */
  prepare(q: EligibilityQuery): PreparedEligibility;
}

/** Eligibility served from memory on this node (DESIGN "Gates between areas"). */
export const credentialEligibility = (platform: Platform): CredentialEligibility => credentialsService(platform).eligibility;

/** The credentials service of a platform (its policy pack and eligibility model; for benches and other modules' tests). */
export const credentials = (platform: Platform): CredentialsService => credentialsService(platform);
/** Making a competence claim as POST /v1/credentials/claims does (for benches and tests that set up claims). */
export { createClaim, type CreateClaimBody } from './claims.ts';

/** Journal facts other areas react to (the runtime's Reaction.from / events). */
export const LICENCE_KIND = Licence.kind;
/** Committed when a licence expires; data: { subject_ref, occupation_code, issuer_id, licence_kind, licence_id, expires_at, legally_required: true }. */
export const LICENCE_EXPIRED = 'licence.expired';
export const CLAIM_KIND = Claim.kind;
/** Committed when a claim lapses (by expiry or by lapse); data: { subject_ref, claim_code, reason, detail, downgraded_to }. */
export const CLAIM_LAPSED = 'claim.lapsed';
export const DOCUMENT_ANALYSIS_KIND = DocumentAnalysis.kind;
/** Committed when a document analysis confirms a forgery; data: { subject_ref, document_analysis_id, detail, livemode }. */
export { FORGERY_CONFIRMED };
