/**
 * Identity routes (spec 2.4, 3, 4.3): consent tokens, verifications and their batches, sources,
 * passports and evidence bundles, blocklist entries, merge candidates and merges, disclosures,
 * subject requests, access grants, the gating contract and readiness. Event and audit-entry reads
 * are served for every module by the delivery area. Shapes the spec does not show are recorded in
 * docs/gaps.md#identity.
 */
import { callerOf, createDedupe, createdId, idOf, listPage, ListQuery, route, type RouteDef, type RouteRequest } from '../../kernel/index.ts';
import { AccessGrant } from './access-grant.ts';
import { grantAccess, revokeAccessGrant } from './access-grants.ts';
import { blocklistSubject, decideBlocklistEntry } from './blocklist-entries.ts';
import { BlocklistEntry } from './blocklist-entry.ts';
import { ConsentToken } from './consent-token.ts';
import { createConsentToken, revokeConsentToken } from './consent-tokens.ts';
import { Disclosure } from './disclosure.ts';
import { disclose, reconcileDisclosures, revokeDisclosure } from './disclosures.ts';
import { gatingContract, readiness } from './gating-contract.ts';
import { ACCESS_GRANT_PREFIX, BATCH_PREFIX, BLOCKLIST_PREFIX, CONSENT_PREFIX, DISCLOSURE_PREFIX, EVIDENCE_BUNDLE_PREFIX, MERGE_CANDIDATE_PREFIX, MERGE_PREFIX, PASSPORT_PREFIX, SUBJECT_REQUEST_PREFIX, VERIFICATION_PREFIX } from './ids.ts';
import { Merge } from './merge.ts';
import { MergeCandidate } from './merge-candidate.ts';
import { makeMerge, reverseMerge } from './merges.ts';
import { Passport } from './passport.ts';
import { evidenceBundle, getPassport, passportFromVerification } from './passports.ts';
import * as S from './schemas.ts';
import { identityService } from './service.ts';
import { completeSubjectRequest, openSubjectRequest } from './subject-requests.ts';
import { SubjectRequest } from './subject-request.ts';
import { VerificationBatch } from './verification-batch.ts';
import { runBatch } from './verification-batches.ts';
import { Verification } from './verification.ts';
import { blockVerification, markUnresolved, resolveVerification, verify } from './verifications.ts';

const M = 'anchor';
const P = '/v1/identity';
const gap = (what: string) => `${what} not shown by the spec; see docs/gaps.md#identity.`;

async function listPassports(req: RouteRequest<unknown, { limit?: number; starting_after?: string; live?: boolean }>): Promise<unknown> {
  const list = req.query.live === undefined ? 'all' : req.query.live ? 'live' : 'not_live';
  return listPage(req.platform.system, Passport, req.org, list, req.query, 'desc');
}

const byStatus = (q: { status?: string }) => (q.status === undefined ? 'all' : `status:${q.status}`);

export const routes: RouteDef[] = [
  // Consent tokens (spec 2.4, 3, 4.3).
  route({ method: 'GET', path: `${P}/consent_tokens`, auth: 'key', module: M, idempotent: false, query: S.ConsentListQuery, summary: 'List consent tokens, newest first, withdrawn and expired included.',
    handler: (req) => listPage(req.platform.system, ConsentToken, req.org, byStatus(req.query), req.query, 'desc') }),
  route({ method: 'POST', path: `${P}/consent_tokens`, auth: 'key', module: M, idempotent: true, status: 201, body: S.ConsentBody, summary: 'Record a consent token: one subject, one purpose, the checks agreed to, the wording seen.',
    handler: (req) => createConsentToken(req.platform, callerOf(req), createdId(req, CONSENT_PREFIX), req.body, createDedupe(req)) }),
  route({ method: 'GET', path: `${P}/consent_tokens/{consent_token_id}`, auth: 'key', module: M, idempotent: false, summary: 'Retrieve a consent token.',
    handler: (req) => req.platform.system.get(ConsentToken, idOf(req.params.consent_token_id!, CONSENT_PREFIX, 'consent token'), req.org) }),
  route({ method: 'POST', path: `${P}/consent_tokens/{consent_token_id}/revoke`, auth: 'key', module: M, idempotent: true, summary: 'Withdraw an active consent token (409 unless active); it authorises nothing afterwards.',
    handler: (req) => revokeConsentToken(req.platform, callerOf(req), idOf(req.params.consent_token_id!, CONSENT_PREFIX, 'consent token'), createDedupe(req)) }),

  // Verifications (spec 2.4, 3, 4.3).
  route({ method: 'GET', path: `${P}/verifications`, auth: 'key', module: M, idempotent: false, query: S.VerificationListQuery, summary: 'List identity verifications, newest first; filter outcome.',
    handler: (req) => listPage(req.platform.system, Verification, req.org, req.query.outcome === undefined ? 'all' : `outcome:${req.query.outcome}`, req.query, 'desc') }),
  route({ method: 'POST', path: `${P}/verifications`, auth: 'key', module: M, idempotent: true, status: 201, body: S.VerificationBody,
    summary: 'Verify a subject\u2019s claims under a consent token: blocked (nothing queried), unresolved (a source silent), pending or resolved with a passport.',
    handler: (req) => verify(req.platform, callerOf(req), createdId(req, VERIFICATION_PREFIX), req.body, createDedupe(req)) }),
  route({ method: 'GET', path: `${P}/verifications/{verification_id}`, auth: 'key', module: M, idempotent: false, summary: 'Retrieve an identity verification.',
    handler: (req) => req.platform.system.get(Verification, idOf(req.params.verification_id!, VERIFICATION_PREFIX, 'verification'), req.org) }),
  route({ method: 'GET', path: `${P}/verifications/{verification_id}/evidence_bundle`, auth: 'key', module: M, idempotent: false, specGap: gap('The evidence bundle\u2019s fields are'),
    summary: 'Every source the verification consulted and what each said, identifiers masked.',
    handler: (req) => evidenceBundle(req.platform, callerOf(req), `${EVIDENCE_BUNDLE_PREFIX}${idOf(req.params.verification_id!, VERIFICATION_PREFIX, 'verification').slice(VERIFICATION_PREFIX.length)}`) }),
  route({ method: 'POST', path: `${P}/verifications/{verification_id}/resolve`, auth: 'key', module: M, idempotent: true, body: S.ReasonBody, specGap: gap('The body of resolve is'),
    summary: 'A person resolves a pending or unresolved verification at the level its evidence reaches; the passport follows.',
    handler: (req) => resolveVerification(req.platform, callerOf(req), idOf(req.params.verification_id!, VERIFICATION_PREFIX, 'verification'), req.body, createDedupe(req)) }),
  route({ method: 'POST', path: `${P}/verifications/{verification_id}/mark_unresolved`, auth: 'key', module: M, idempotent: true, body: S.MarkUnresolvedBody, specGap: gap('The body of mark_unresolved is'),
    summary: 'A person marks a pending verification unresolved, naming the source that did not answer.',
    handler: (req) => markUnresolved(req.platform, callerOf(req), idOf(req.params.verification_id!, VERIFICATION_PREFIX, 'verification'), req.body, createDedupe(req)) }),
  route({ method: 'POST', path: `${P}/verifications/{verification_id}/block`, auth: 'key', module: M, idempotent: true, body: S.BlockBody, specGap: gap('The body of block is'),
    summary: 'A person blocks a verification, choosing the scope (the subject, or every subject presenting the same identifier); blocklist entries are recorded.',
    handler: (req) => blockVerification(req.platform, callerOf(req), idOf(req.params.verification_id!, VERIFICATION_PREFIX, 'verification'), req.body, createDedupe(req)) }),

  // Batches.
  route({ method: 'POST', path: `${P}/verification_batches`, auth: 'key', module: M, idempotent: true, status: 201, body: S.BatchBody, specGap: gap('Request and response shapes of batches are'),
    summary: 'Verify up to 100 subjects in one request; each item is reported with its verification or the refusal it met.',
    handler: (req) => runBatch(req.platform, callerOf(req), createdId(req, BATCH_PREFIX), req.body, createDedupe(req)) }),
  route({ method: 'GET', path: `${P}/verification_batches`, auth: 'key', module: M, idempotent: false, query: ListQuery, specGap: gap('The batch list shape is'),
    summary: 'List verification batches, newest first.', handler: (req) => listPage(req.platform.system, VerificationBatch, req.org, 'all', req.query, 'desc') }),
  route({ method: 'GET', path: `${P}/verification_batches/{verification_batch_id}`, auth: 'key', module: M, idempotent: false, specGap: gap('A batch read is'),
    summary: 'Retrieve a verification batch with its per-item report.', handler: (req) => req.platform.system.get(VerificationBatch, idOf(req.params.verification_batch_id!, BATCH_PREFIX, 'verification batch'), req.org) }),

  // Sources.
  route({ method: 'GET', path: `${P}/sources`, auth: 'key', module: M, idempotent: false, specGap: gap('The source record is'),
    summary: 'The sources identity asks, with their state and (sandbox) documented test values.',
    handler: async (req) => ({
      object: 'list',
      has_more: false,
      data: [
        ...identityService(req.platform).sources.map((s) => ({ id: s.id, object: 'identity_source', livemode: req.livemode, mocked: s.mocked, name: s.name, check: s.check, kind: 'external', state: s.state(), test_values: s.testValues })),
        { id: 'identity_match', object: 'identity_source', livemode: req.livemode, mocked: false, name: 'Name and date-of-birth match (token-set comparison over keyed digests)', check: 'name_match', checks: ['name_match', 'date_of_birth_match'], kind: 'internal', state: 'available', test_values: [] },
      ],
    }) }),

  // Passports.
  route({ method: 'GET', path: `${P}/passports`, auth: 'key', module: M, idempotent: false, query: S.PassportListQuery, specGap: gap('The passport\u2019s fields other than its id are'),
    summary: 'List passports, newest first; filter live.', handler: listPassports }),
  route({ method: 'POST', path: `${P}/passports`, auth: 'key', module: M, idempotent: true, status: 201, body: S.PassportBody, specGap: gap('The body of POST passports is'),
    summary: 'Make (or return) the passport of a resolved verification\u2019s subject.',
    handler: (req) => passportFromVerification(req.platform, callerOf(req), idOf(req.body.verification_id, VERIFICATION_PREFIX, 'verification')) }),
  route({ method: 'GET', path: `${P}/passports/{passport_id}`, auth: 'key', module: M, idempotent: false, specGap: gap('The passport\u2019s fields other than its id are'),
    summary: 'Retrieve a passport: live or not, why not, its assurance level and evidence.',
    handler: (req) => getPassport(req.platform, callerOf(req), idOf(req.params.passport_id!, PASSPORT_PREFIX, 'passport')) }),

  // Blocklist.
  route({ method: 'GET', path: `${P}/blocklist_entries`, auth: 'key', module: M, idempotent: false, query: S.BlocklistListQuery, specGap: gap('The blocklist list is'),
    summary: 'List blocklist entries, newest first; filter status.', handler: (req) => listPage(req.platform.system, BlocklistEntry, req.org, byStatus(req.query), req.query, 'desc') }),
  route({ method: 'POST', path: `${P}/blocklist_entries`, auth: 'key', module: M, idempotent: true, status: 201, body: S.BlocklistBody, specGap: gap('The blocklist entry is'),
    summary: 'Blocklist a subject (a person\u2019s decision): their passport stops being live and nothing is queried for them.',
    handler: (req) => blocklistSubject(req.platform, callerOf(req), createdId(req, BLOCKLIST_PREFIX), req.body, createDedupe(req)) }),
  route({ method: 'GET', path: `${P}/blocklist_entries/{blocklist_entry_id}`, auth: 'key', module: M, idempotent: false, specGap: gap('The blocklist entry read is'),
    summary: 'Retrieve a blocklist entry.', handler: (req) => req.platform.system.get(BlocklistEntry, idOf(req.params.blocklist_entry_id!, BLOCKLIST_PREFIX, 'blocklist entry'), req.org) }),
  ...(['reverse', 'confirm', 'decline'] as const).map((op) =>
    route({ method: 'POST', path: `${P}/blocklist_entries/{blocklist_entry_id}/${op}`, auth: 'key', module: M, idempotent: true, body: S.ReasonBody, specGap: op === 'reverse' ? gap('The body of reverse is') : gap(`${op} (a proposed entry decided by a person) is`),
      summary: op === 'reverse' ? 'Reverse an active blocklist entry; the passport is live again unless something else holds it.' : op === 'confirm' ? 'Confirm a proposed blocklisting (a forgery escalated by the credentials module).' : 'Decline a proposed blocklisting.',
      handler: (req) => decideBlocklistEntry(req.platform, callerOf(req), idOf(req.params.blocklist_entry_id!, BLOCKLIST_PREFIX, 'blocklist entry'), op, req.body, createDedupe(req)) })),

  // Merge candidates and merges.
  route({ method: 'GET', path: `${P}/merge_candidates`, auth: 'key', module: M, idempotent: false, query: S.CandidateListQuery, specGap: gap('The merge candidate is'),
    summary: 'Subjects that presented the same identifier, newest first; filter status.', handler: (req) => listPage(req.platform.system, MergeCandidate, req.org, byStatus(req.query), req.query, 'desc') }),
  route({ method: 'GET', path: `${P}/merge_candidates/{merge_candidate_id}`, auth: 'key', module: M, idempotent: false, specGap: gap('The merge candidate is'),
    summary: 'Retrieve a merge candidate.', handler: (req) => req.platform.system.get(MergeCandidate, idOf(req.params.merge_candidate_id!, MERGE_CANDIDATE_PREFIX, 'merge candidate'), req.org) }),
  route({ method: 'POST', path: `${P}/merges`, auth: 'key', module: M, idempotent: true, status: 201, body: S.MergeBody, specGap: gap('The merge is'),
    summary: 'Merge two passports found to be one person: the survivor stays live, the other is superseded.',
    handler: (req) => makeMerge(req.platform, callerOf(req), createdId(req, MERGE_PREFIX), req.body, createDedupe(req)) }),
  route({ method: 'GET', path: `${P}/merges/{merge_id}`, auth: 'key', module: M, idempotent: false, specGap: gap('A merge read is'),
    summary: 'Retrieve a merge.', handler: (req) => req.platform.system.get(Merge, idOf(req.params.merge_id!, MERGE_PREFIX, 'merge'), req.org) }),
  route({ method: 'POST', path: `${P}/merges/{merge_id}/reverse`, auth: 'key', module: M, idempotent: true, body: S.ReasonBody, specGap: gap('The body of reverse is'),
    summary: 'Reverse a merge: both passports stand as they were.', handler: (req) => reverseMerge(req.platform, callerOf(req), idOf(req.params.merge_id!, MERGE_PREFIX, 'merge'), req.body, createDedupe(req)) }),

  // Disclosures.
  route({ method: 'GET', path: `${P}/disclosures`, auth: 'key', module: M, idempotent: false, query: S.DisclosureListQuery, specGap: gap('The disclosure is'),
    summary: 'List disclosures, newest first; filter status.', handler: (req) => listPage(req.platform.system, Disclosure, req.org, byStatus(req.query), req.query, 'desc') }),
  route({ method: 'POST', path: `${P}/disclosures`, auth: 'key', module: M, idempotent: true, status: 201, body: S.DisclosureBody, specGap: gap('The disclosure is'),
    summary: 'Disclose identity\u2019s decision about a subject to a recipient; needs an active consent token for the purpose (422 consent_token_missing).',
    handler: (req) => disclose(req.platform, callerOf(req), createdId(req, DISCLOSURE_PREFIX), req.body, createDedupe(req)) }),
  route({ method: 'GET', path: `${P}/disclosures/reconcile`, auth: 'key', module: M, idempotent: false, specGap: gap('The reconciliation is'),
    summary: 'Active disclosures that no longer rest on an active consent token, or whose passport changed since.', handler: (req) => reconcileDisclosures(req.platform, callerOf(req)) }),
  route({ method: 'GET', path: `${P}/disclosures/{disclosure_id}`, auth: 'key', module: M, idempotent: false, specGap: gap('The disclosure is'),
    summary: 'Retrieve a disclosure.', handler: (req) => req.platform.system.get(Disclosure, idOf(req.params.disclosure_id!, DISCLOSURE_PREFIX, 'disclosure'), req.org) }),
  route({ method: 'POST', path: `${P}/disclosures/{disclosure_id}/revoke`, auth: 'key', module: M, idempotent: true, body: S.RevokeBody, specGap: gap('The body of revoke is'),
    summary: 'Revoke an active disclosure (409 otherwise).', handler: (req) => revokeDisclosure(req.platform, callerOf(req), idOf(req.params.disclosure_id!, DISCLOSURE_PREFIX, 'disclosure'), req.body ?? {}, createDedupe(req)) }),

  // Subject requests.
  route({ method: 'POST', path: `${P}/subject_requests`, auth: 'key', module: M, idempotent: true, status: 201, body: S.SubjectRequestBody, specGap: gap('The subject request is'),
    summary: 'Record a data-subject request (NDPA): access and portability answered at once, erasure carried out, others left for a person; each with its due date.',
    handler: (req) => openSubjectRequest(req.platform, callerOf(req), createdId(req, SUBJECT_REQUEST_PREFIX), req.body, createDedupe(req)) }),
  route({ method: 'GET', path: `${P}/subject_requests`, auth: 'key', module: M, idempotent: false, query: S.SubjectRequestListQuery, specGap: gap('The subject request list is'),
    summary: 'List subject requests, newest first; filter status.', handler: (req) => listPage(req.platform.system, SubjectRequest, req.org, byStatus(req.query), req.query, 'desc') }),
  route({ method: 'GET', path: `${P}/subject_requests/{subject_request_id}`, auth: 'key', module: M, idempotent: false, specGap: gap('The subject request is'),
    summary: 'Retrieve a subject request.', handler: (req) => req.platform.system.get(SubjectRequest, idOf(req.params.subject_request_id!, SUBJECT_REQUEST_PREFIX, 'subject request'), req.org) }),
  route({ method: 'POST', path: `${P}/subject_requests/{subject_request_id}/complete`, auth: 'key', module: M, idempotent: true, body: S.CompleteBody, specGap: gap('Completing a subject request by hand is'),
    summary: 'A person completes or refuses a rectification, objection or restriction request, with the reason.',
    handler: (req) => completeSubjectRequest(req.platform, callerOf(req), idOf(req.params.subject_request_id!, SUBJECT_REQUEST_PREFIX, 'subject request'), req.body, createDedupe(req)) }),

  // Access grants.
  route({ method: 'POST', path: `${P}/access_grants`, auth: 'key', module: M, idempotent: true, status: 201, body: S.AccessGrantBody, specGap: gap('The access grant is'),
    summary: 'Give a grantee access to identity\u2019s decision about a subject, under an active consent token for the purpose.',
    handler: (req) => grantAccess(req.platform, callerOf(req), createdId(req, ACCESS_GRANT_PREFIX), req.body, createDedupe(req)) }),
  route({ method: 'GET', path: `${P}/access_grants/{access_grant_id}`, auth: 'key', module: M, idempotent: false, specGap: gap('An access grant read is'),
    summary: 'Retrieve an access grant.', handler: (req) => req.platform.system.get(AccessGrant, idOf(req.params.access_grant_id!, ACCESS_GRANT_PREFIX, 'access grant'), req.org) }),
  route({ method: 'POST', path: `${P}/access_grants/{access_grant_id}/revoke`, auth: 'key', module: M, idempotent: true, body: S.RevokeBody, specGap: gap('Revoking an access grant is'),
    summary: 'Revoke an active access grant.', handler: (req) => revokeAccessGrant(req.platform, callerOf(req), idOf(req.params.access_grant_id!, ACCESS_GRANT_PREFIX, 'access grant'), createDedupe(req)) }),

  // The gate's contract and readiness.
  route({ method: 'GET', path: `${P}/gating_contract`, auth: 'key', module: M, idempotent: false, specGap: gap('The gating contract is'),
    summary: 'What "live passport" means, how to ask it, and which events announce a change.', handler: async (req) => gatingContract(req.livemode) }),
  route({ method: 'GET', path: `${P}/readiness`, auth: 'key', module: M, idempotent: false, specGap: gap('Readiness is'),
    summary: 'Whether identity can verify now: its sources\u2019 states, the active policy pack, the gate.', handler: async (req) => readiness(req.platform, req.livemode) }),
];
