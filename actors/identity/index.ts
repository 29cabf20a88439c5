/**
 * The identity module's face (spec 1, 2.4, 3, 4.3): the area, and what other modules may use: the
 * live-passport gate (a read of memory on the calling node), a consent token as other modules check
 * it, and the journal facts they react to.
 */
import type { Area, Platform } from '../../kernel/index.ts';
import { AccessGrant } from './access-grant.ts';
import { BlocklistEntry } from './blocklist-entry.ts';
import { ConsentToken } from './consent-token.ts';
import { Disclosure } from './disclosure.ts';
import { events } from './events.ts';
import type { IdentityGate } from './gate.ts';
import { Merge } from './merge.ts';
import { MergeCandidate } from './merge-candidate.ts';
import { Passport } from './passport.ts';
import { routes } from './routes.ts';
import { IDENTITY, IdentityService, identityService } from './service.ts';
import { SubjectRequest } from './subject-request.ts';
import { VerificationBatch } from './verification-batch.ts';
import { Verification } from './verification.ts';
import { collectAnswers } from './verifications.ts';

export type { IdentityGate } from './gate.ts';
/** A consent token as other modules may check it (spec 2.4 ConsentToken; rule 7). */
export { consentToken, type ConsentFacts } from './consent-tokens.ts';
/** How a person or an organisation gets a passport: the words a refusal or next action quotes. */
export { HOW_TO_GET_A_PASSPORT } from './organisations.ts';
/** A subject's passport id in an organisation (derived from both; no lookup). */
export { passportIdOf } from './ids.ts';

export const area: Area = {
  name: 'identity',
  kinds: [ConsentToken, Verification, Passport, BlocklistEntry, MergeCandidate, Merge, Disclosure, SubjectRequest, AccessGrant, VerificationBatch],
  routes,
  events,
  async start(platform) {
    // The service follows collection_due; collecting the answers is a verification operation, handed in here.
    const svc = new IdentityService(platform, (org, id, refs) => collectAnswers(platform, org, id, refs));
    platform.services.provide(IDENTITY, svc);
    await svc.start();
  },
  async stop(platform) {
    await platform.services.get(IDENTITY)?.stop();
    platform.services.remove(IDENTITY);
  },
};

/** The live-passport gate (spec 2.4): served from memory on this node. */
export const identityGate = (platform: Platform): IdentityGate => identityService(platform).gate;

/** Journal facts other areas react to (the runtime's Reaction.from / events). */
export const PASSPORT_KIND = Passport.kind;
/** Committed the moment a passport stops being live; data: { subject_ref, passport_id, reasons, live: false }. */
export const PASSPORT_ENDED = 'passport.ended';
/** Committed when a passport becomes live again; data: { subject_ref, passport_id, live: true }. */
export const PASSPORT_RESTORED = 'passport.restored';
/** Committed when a passport is first issued; data: { subject_ref, passport_id, assurance, live: true }. */
export const PASSPORT_ISSUED = 'passport.issued';
