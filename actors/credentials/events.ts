/**
 * Public event types of the credentials module (spec 6: source `proof`). The spec names claim.lapsed
 * and licence.expired, used exactly; the rest are ours, proof.<resource>.<past_tense>
 * (docs/gaps.md#credentials). Each event's data is the record as it stood after the event.
 */
import type { PublicEventDecl } from '../../kernel/index.ts';

const decl = (type: string, kind: string, on: string, description: string, specGap = true): PublicEventDecl => ({ type, source: 'proof', schemaVersion: 1, kind, on, description, specGap });

const V = 'credentials_verification';
const C = 'credentials_claim';

export const events: PublicEventDecl[] = [
  decl('proof.verification.created', V, 'credential_verification.created', 'A credential verification was made under an active consent token (its issuer queried, or evidence reused).'),
  decl('proof.verification.verified', V, 'credential_verification.verified', 'The issuer confirmed the credential (or evidence inside its validity period was reused); a claim is issued.'),
  decl('proof.verification.unverified', V, 'credential_verification.unverified', 'Nobody answered: the verification is unverified and names the source; never a pass.'),
  decl('proof.verification.contradicted', V, 'credential_verification.contradicted', 'The issuer said otherwise: a finding about the person, with contradiction_detail.'),
  decl('proof.claim.issued', C, 'claim.issued', 'A competence claim was issued (spec 6: the issuance type is not shown).'),
  decl('proof.claim.aged', C, 'claim.aged', 'A competence claim moved from current to ageing along its decay function.'),
  decl('proof.claim.went_stale', C, 'claim.went_stale', 'A competence claim moved from ageing to stale along its decay function.'),
  decl('claim.lapsed', C, 'claim.lapsed', 'A competence claim reached expiry (or was lapsed) and was downgraded; it stays listed.', false),
  decl('proof.claim.superseded', C, 'claim.superseded', 'A new claim superseded this one (superseded_by); the old claim stays.'),
  decl('proof.licence.recorded', 'credentials_licence', 'licence.recorded', 'A licence was recorded from a verified licence credential.'),
  decl('proof.licence.renewed', 'credentials_licence', 'licence.renewed', 'A later verified licence renewed a licence record.'),
  decl('licence.expired', 'credentials_licence', 'licence.expired', 'A licence expired; where the law requires it this is a hard block, and the engagements and allocation modules are told.', false),
  decl('proof.document_analysis.completed', 'credentials_document_analysis', 'document_analysis.completed', 'A document was analysed, one score per factor.'),
  decl('proof.document_analysis.forgery_confirmed', 'credentials_document_analysis', 'document_analysis.forgery_confirmed', 'A document analysis confirmed a forgery; escalated to identity, which decides on blocklisting.'),
  decl('proof.wallet.created', 'credentials_wallet', 'wallet.created', 'A wallet of a subject\u2019s claims was made.'),
  decl('proof.disclosure.created', 'credentials_disclosure', 'disclosure.created', 'Claims were disclosed to a recipient under consent.'),
  decl('proof.disclosure.revoked', 'credentials_disclosure', 'disclosure.revoked', 'A disclosure was revoked.'),
  decl('proof.reattestation.created', 'credentials_reattestation', 'reattestation.created', 'A claim was re-attested; the new claim supersedes it.'),
  decl('proof.appeal.filed', 'credentials_appeal', 'appeal.filed', 'A contradiction or a lapse was appealed.'),
  decl('proof.appeal.decided', 'credentials_appeal', 'appeal.decided', 'A person decided an appeal; the decision is recorded and never edited.'),
];
