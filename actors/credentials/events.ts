/**
 * Public event types of the credentials module (spec 6: source `proof`). The spec names claim.lapsed
 * and licence.expired, used exactly; the rest are ours, proof.<resource>.<past_tense>
 * (docs/gaps.md#credentials). Each event's data is the record as it stood after the event.
 */
import { publicEvents, type PublicEventDecl } from '../../kernel/index.ts';

const verification = publicEvents('proof', 'credentials_verification');
const claim = publicEvents('proof', 'credentials_claim');
const licence = publicEvents('proof', 'credentials_licence');
const documentAnalysis = publicEvents('proof', 'credentials_document_analysis');
const wallet = publicEvents('proof', 'credentials_wallet');
const disclosure = publicEvents('proof', 'credentials_disclosure');
const reattestation = publicEvents('proof', 'credentials_reattestation');
const appeal = publicEvents('proof', 'credentials_appeal');

export const events: PublicEventDecl[] = [
  verification('proof.verification.created', 'credential_verification.created', 'A credential verification was made under an active consent token (its issuer queried, or evidence reused).'),
  verification('proof.verification.verified', 'credential_verification.verified', 'The issuer confirmed the credential (or evidence inside its validity period was reused); a claim is issued.'),
  verification('proof.verification.unverified', 'credential_verification.unverified', 'Nobody answered: the verification is unverified and names the source; never a pass.'),
  verification('proof.verification.contradicted', 'credential_verification.contradicted', 'The issuer said otherwise: a finding about the person, with contradiction_detail.'),
  claim('proof.claim.issued', 'claim.issued', 'A competence claim was issued (spec 6: the issuance type is not shown).'),
  claim('proof.claim.aged', 'claim.aged', 'A competence claim moved from current to ageing along its decay function.'),
  claim('proof.claim.went_stale', 'claim.went_stale', 'A competence claim moved from ageing to stale along its decay function.'),
  claim('claim.lapsed', 'claim.lapsed', 'A competence claim reached expiry (or was lapsed) and was downgraded; it stays listed.', false),
  claim('proof.claim.superseded', 'claim.superseded', 'A new claim superseded this one (superseded_by); the old claim stays.'),
  licence('proof.licence.recorded', 'licence.recorded', 'A licence was recorded from a verified licence credential.'),
  licence('proof.licence.renewed', 'licence.renewed', 'A later verified licence renewed a licence record.'),
  licence('licence.expired', 'licence.expired', 'A licence expired; where the law requires it this is a hard block, and the engagements and allocation modules are told.', false),
  documentAnalysis('proof.document_analysis.completed', 'document_analysis.completed', 'A document was analysed, one score per factor.'),
  documentAnalysis('proof.document_analysis.forgery_confirmed', 'document_analysis.forgery_confirmed', 'A document analysis confirmed a forgery; escalated to identity, which decides on blocklisting.'),
  wallet('proof.wallet.created', 'wallet.created', 'A wallet of a subject\u2019s claims was made.'),
  disclosure('proof.disclosure.created', 'disclosure.created', 'Claims were disclosed to a recipient under consent.'),
  disclosure('proof.disclosure.revoked', 'disclosure.revoked', 'A disclosure was revoked.'),
  reattestation('proof.reattestation.created', 'reattestation.created', 'A claim was re-attested; the new claim supersedes it.'),
  appeal('proof.appeal.filed', 'appeal.filed', 'A contradiction or a lapse was appealed.'),
  appeal('proof.appeal.decided', 'appeal.decided', 'A person decided an appeal; the decision is recorded and never edited.'),
];
