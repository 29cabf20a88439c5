/**
 * Public event types of the identity module (spec 6). The spec names verification.resolved and
 * verification.unresolved and counts 8 identity types without listing them; the module records an
 * event for every transition (spec 3: every transition is recorded), so the list is longer and every
 * name but the two is ours (docs/gaps.md#identity). `data` is the record after the event; none
 * carries an identifier in clear (spec rule 6).
 */
import type { PublicEventDecl } from '../../kernel/index.ts';

export const events: PublicEventDecl[] = [
  { type: 'verification.resolved', source: 'anchor', schemaVersion: 1, kind: 'identity_verification', on: 'verification.resolved', description: 'An identity verification reached an assurance level; passport_id names the subject’s passport.' },
  { type: 'verification.unresolved', source: 'anchor', schemaVersion: 1, kind: 'identity_verification', on: 'verification.unresolved', description: 'A source did not answer; unresolved_source names it and retry_after gives the horizon. Not a rejection.' },
  { type: 'anchor.verification.blocked', source: 'anchor', schemaVersion: 1, kind: 'identity_verification', on: 'verification.blocked', description: 'A verification was blocked (no consent, consent too narrow, or the subject blocklisted); nothing was queried, or a person blocked it.', specGap: true },
  { type: 'anchor.verification.pending', source: 'anchor', schemaVersion: 1, kind: 'identity_verification', on: 'verification.pending', description: 'A verification awaits a source’s later answer or a person’s review (pending_reason).', specGap: true },
  { type: 'anchor.consent_token.created', source: 'anchor', schemaVersion: 1, kind: 'identity_consent_token', on: 'consent_token.created', description: 'A consent token was recorded with the wording the subject saw.', specGap: true },
  { type: 'anchor.consent_token.withdrawn', source: 'anchor', schemaVersion: 1, kind: 'identity_consent_token', on: 'consent_token.withdrawn', description: 'A consent token was withdrawn (revoked); it authorises nothing from now on.', specGap: true },
  { type: 'anchor.consent_token.expired', source: 'anchor', schemaVersion: 1, kind: 'identity_consent_token', on: 'consent_token.expired', description: 'A consent token reached expires_at and expired by the clock.', specGap: true },
  { type: 'anchor.passport.issued', source: 'anchor', schemaVersion: 1, kind: 'identity_passport', on: 'passport.issued', description: 'A subject’s passport was issued from a resolved verification; it is live.', specGap: true },
  { type: 'anchor.passport.assurance_raised', source: 'anchor', schemaVersion: 1, kind: 'identity_passport', on: 'passport.assurance_raised', description: 'A later verification raised the passport’s assurance level.', specGap: true },
  { type: 'anchor.passport.ended', source: 'anchor', schemaVersion: 1, kind: 'identity_passport', on: 'passport.ended', description: 'A passport stopped being live (blocklisted, merged, consent withdrawn or erased): the gate every module checks now refuses it.', specGap: true },
  { type: 'anchor.passport.restored', source: 'anchor', schemaVersion: 1, kind: 'identity_passport', on: 'passport.restored', description: 'A passport became live again (a blocklist entry or merge reversed, or new consent given).', specGap: true },
  { type: 'anchor.blocklist_entry.proposed', source: 'anchor', schemaVersion: 1, kind: 'identity_blocklist_entry', on: 'blocklist_entry.proposed', description: 'A blocklisting was proposed (a forgery confirmed by the credentials module) and awaits a person’s decision.', specGap: true },
  { type: 'anchor.blocklist_entry.activated', source: 'anchor', schemaVersion: 1, kind: 'identity_blocklist_entry', on: 'blocklist_entry.activated', description: 'A subject was blocklisted by a person’s decision.', specGap: true },
  { type: 'anchor.blocklist_entry.declined', source: 'anchor', schemaVersion: 1, kind: 'identity_blocklist_entry', on: 'blocklist_entry.declined', description: 'A person declined a proposed blocklisting.', specGap: true },
  { type: 'anchor.blocklist_entry.reversed', source: 'anchor', schemaVersion: 1, kind: 'identity_blocklist_entry', on: 'blocklist_entry.reversed', description: 'A blocklist entry was reversed.', specGap: true },
  { type: 'anchor.merge_candidate.found', source: 'anchor', schemaVersion: 1, kind: 'identity_merge_candidate', on: 'merge_candidate.found', description: 'Two subjects presented the same identifier (matched by keyed digest).', specGap: true },
  { type: 'anchor.merge.made', source: 'anchor', schemaVersion: 1, kind: 'identity_merge', on: 'merge.made', description: 'Two passports were merged: one survives, the other is superseded.', specGap: true },
  { type: 'anchor.merge.reversed', source: 'anchor', schemaVersion: 1, kind: 'identity_merge', on: 'merge.reversed', description: 'A merge was reversed; both passports stand as before.', specGap: true },
  { type: 'anchor.disclosure.made', source: 'anchor', schemaVersion: 1, kind: 'identity_disclosure', on: 'disclosure.made', description: 'A decision about a subject was disclosed to a recipient under consent.', specGap: true },
  { type: 'anchor.disclosure.revoked', source: 'anchor', schemaVersion: 1, kind: 'identity_disclosure', on: 'disclosure.revoked', description: 'A disclosure was revoked.', specGap: true },
  { type: 'anchor.disclosure.expired', source: 'anchor', schemaVersion: 1, kind: 'identity_disclosure', on: 'disclosure.expired', description: 'A disclosure reached its expiry.', specGap: true },
  { type: 'anchor.subject_request.received', source: 'anchor', schemaVersion: 1, kind: 'identity_subject_request', on: 'subject_request.received', description: 'A data-subject request was received, with its due date.', specGap: true },
  { type: 'anchor.subject_request.fulfilled', source: 'anchor', schemaVersion: 1, kind: 'identity_subject_request', on: 'subject_request.fulfilled', description: 'An access or portability request was answered with what identity holds, masked.', specGap: true },
  { type: 'anchor.subject_request.erasure_carried_out', source: 'anchor', schemaVersion: 1, kind: 'identity_subject_request', on: 'subject_request.erasure_carried_out', description: 'A subject’s personal data was erased; the decision records stay.', specGap: true },
  { type: 'anchor.subject_request.completed', source: 'anchor', schemaVersion: 1, kind: 'identity_subject_request', on: 'subject_request.completed', description: 'A person completed a rectification, objection or restriction request.', specGap: true },
  { type: 'anchor.subject_request.refused', source: 'anchor', schemaVersion: 1, kind: 'identity_subject_request', on: 'subject_request.refused', description: 'A person refused a rectification, objection or restriction request, with the reason.', specGap: true },
  { type: 'anchor.subject_request.overdue', source: 'anchor', schemaVersion: 1, kind: 'identity_subject_request', on: 'subject_request.overdue', description: 'A data-subject request passed its due date while still open.', specGap: true },
  { type: 'anchor.access_grant.granted', source: 'anchor', schemaVersion: 1, kind: 'identity_access_grant', on: 'access_grant.granted', description: 'A grantee was given access to identity’s decision about a subject.', specGap: true },
  { type: 'anchor.access_grant.revoked', source: 'anchor', schemaVersion: 1, kind: 'identity_access_grant', on: 'access_grant.revoked', description: 'An access grant was revoked.', specGap: true },
  { type: 'anchor.access_grant.expired', source: 'anchor', schemaVersion: 1, kind: 'identity_access_grant', on: 'access_grant.expired', description: 'An access grant reached its expiry.', specGap: true },
  { type: 'anchor.verification_batch.completed', source: 'anchor', schemaVersion: 1, kind: 'identity_verification_batch', on: 'verification_batch.completed', description: 'A verification batch ran every item.', specGap: true },
];
