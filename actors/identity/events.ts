/**
 * Public event types of the identity module (spec 6). The spec names verification.resolved and
 * verification.unresolved and counts 8 identity types without listing them; the module records an
 * event for every transition (spec 3: every transition is recorded), so the list is longer and every
 * name but the two is ours (docs/gaps.md#identity). `data` is the record after the event; none
 * carries an identifier in clear (spec rule 6).
 */
import { publicEvents, type PublicEventDecl } from '../../kernel/index.ts';

const verification = publicEvents('anchor', 'identity_verification');
const consentToken = publicEvents('anchor', 'identity_consent_token');
const passport = publicEvents('anchor', 'identity_passport');
const blocklistEntry = publicEvents('anchor', 'identity_blocklist_entry');
const mergeCandidate = publicEvents('anchor', 'identity_merge_candidate');
const merge = publicEvents('anchor', 'identity_merge');
const disclosure = publicEvents('anchor', 'identity_disclosure');
const subjectRequest = publicEvents('anchor', 'identity_subject_request');
const accessGrant = publicEvents('anchor', 'identity_access_grant');
const verificationBatch = publicEvents('anchor', 'identity_verification_batch');

export const events: PublicEventDecl[] = [
  verification('verification.resolved', 'verification.resolved', 'An identity verification reached an assurance level; passport_id names the subject\u2019s passport.', false),
  verification('verification.unresolved', 'verification.unresolved', 'A source did not answer; unresolved_source names it and retry_after gives the horizon. Not a rejection.', false),
  verification('anchor.verification.blocked', 'verification.blocked', 'A verification was blocked (no consent, consent too narrow, or the subject blocklisted); nothing was queried, or a person blocked it.'),
  verification('anchor.verification.pending', 'verification.pending', 'A verification awaits a source\u2019s later answer or a person\u2019s review (pending_reason).'),
  consentToken('anchor.consent_token.created', 'consent_token.created', 'A consent token was recorded with the wording the subject saw.'),
  consentToken('anchor.consent_token.withdrawn', 'consent_token.withdrawn', 'A consent token was withdrawn (revoked); it authorises nothing from now on.'),
  consentToken('anchor.consent_token.expired', 'consent_token.expired', 'A consent token reached expires_at and expired by the clock.'),
  passport('anchor.passport.issued', 'passport.issued', 'A subject\u2019s passport was issued from a resolved verification; it is live.'),
  passport('anchor.passport.assurance_raised', 'passport.assurance_raised', 'A later verification raised the passport\u2019s assurance level.'),
  passport('anchor.passport.ended', 'passport.ended', 'A passport stopped being live (blocklisted, merged, consent withdrawn or erased): the gate every module checks now refuses it.'),
  passport('anchor.passport.restored', 'passport.restored', 'A passport became live again (a blocklist entry or merge reversed, or new consent given).'),
  blocklistEntry('anchor.blocklist_entry.proposed', 'blocklist_entry.proposed', 'A blocklisting was proposed (a forgery confirmed by the credentials module) and awaits a person\u2019s decision.'),
  blocklistEntry('anchor.blocklist_entry.activated', 'blocklist_entry.activated', 'A subject was blocklisted by a person\u2019s decision.'),
  blocklistEntry('anchor.blocklist_entry.declined', 'blocklist_entry.declined', 'A person declined a proposed blocklisting.'),
  blocklistEntry('anchor.blocklist_entry.reversed', 'blocklist_entry.reversed', 'A blocklist entry was reversed.'),
  mergeCandidate('anchor.merge_candidate.found', 'merge_candidate.found', 'Two subjects presented the same identifier (matched by keyed digest).'),
  merge('anchor.merge.made', 'merge.made', 'Two passports were merged: one survives, the other is superseded.'),
  merge('anchor.merge.reversed', 'merge.reversed', 'A merge was reversed; both passports stand as before.'),
  disclosure('anchor.disclosure.made', 'disclosure.made', 'A decision about a subject was disclosed to a recipient under consent.'),
  disclosure('anchor.disclosure.revoked', 'disclosure.revoked', 'A disclosure was revoked.'),
  disclosure('anchor.disclosure.expired', 'disclosure.expired', 'A disclosure reached its expiry.'),
  subjectRequest('anchor.subject_request.received', 'subject_request.received', 'A data-subject request was received, with its due date.'),
  subjectRequest('anchor.subject_request.fulfilled', 'subject_request.fulfilled', 'An access or portability request was answered with what identity holds, masked.'),
  subjectRequest('anchor.subject_request.erasure_carried_out', 'subject_request.erasure_carried_out', 'A subject\u2019s personal data was erased; the decision records stay.'),
  subjectRequest('anchor.subject_request.completed', 'subject_request.completed', 'A person completed a rectification, objection or restriction request.'),
  subjectRequest('anchor.subject_request.refused', 'subject_request.refused', 'A person refused a rectification, objection or restriction request, with the reason.'),
  subjectRequest('anchor.subject_request.overdue', 'subject_request.overdue', 'A data-subject request passed its due date while still open.'),
  accessGrant('anchor.access_grant.granted', 'access_grant.granted', 'A grantee was given access to identity\u2019s decision about a subject.'),
  accessGrant('anchor.access_grant.revoked', 'access_grant.revoked', 'An access grant was revoked.'),
  accessGrant('anchor.access_grant.expired', 'access_grant.expired', 'An access grant reached its expiry.'),
  verificationBatch('anchor.verification_batch.completed', 'verification_batch.completed', 'A verification batch ran every item.'),
];
