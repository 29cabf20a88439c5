/** Credentials routes (spec 4.4; module scope `proof`). Events and audit entries are served for every module by delivery. */
import { Type, type TSchema } from '@sinclair/typebox';
import { callerOf, callerRef, enumOf, idOf, listEnvelope, listPage, listQueryWith, notFound, parseListQuery, route, type RouteDef, type RouteRequest } from '../../kernel/index.ts';
import { Appeal, APPEAL_OUTCOMES } from './appeal.ts';
import { decideAppeal, fileAppeal } from './appeals.ts';
import { Claim } from './claim.ts';
import { createClaim, lapseClaim } from './claims.ts';
import { Disclosure, DISCLOSURE_STATUSES } from './disclosure.ts';
import { createDisclosure, revokeDisclosure } from './disclosures.ts';
import { createAnalysis } from './document-analyses.ts';
import { DocumentAnalysis } from './document-analysis.ts';
import { APPEAL_PREFIX, CLAIM_PREFIX, DISCLOSURE_PREFIX, DOCUMENT_ANALYSIS_PREFIX, FRAMEWORK_PREFIX, frameworkIdOf, ISSUER_PREFIX, LICENCE_PREFIX, REATTESTATION_PREFIX, VERIFICATION_PREFIX, WALLET_PREFIX } from './ids.ts';
import { Licence, licenceList, LICENCE_STATUSES } from './licence.ts';
import { EVIDENCE_CLASSES, type Framework, type IssuerEntry, METHODS } from './policy.ts';
import { readiness } from './readiness.ts';
import { Reattestation, REATTESTATION_CLASSES } from './reattestation.ts';
import { createReattestation } from './reattestations.ts';
import { credentialsService as service } from './service.ts';
import { OUTCOMES, Verification } from './verification.ts';
import { createVerification, decideVerification } from './verifications.ts';
import { Wallet } from './wallet.ts';
import { createWallet, walletView } from './wallets.ts';

const M = 'proof';
const P = '/v1/credentials';
const GAP = 'docs/gaps.md#credentials';

const Ref = callerRef('Opaque caller reference of the subject, not a name.');
const Id = Type.String({ minLength: 1, maxLength: 255 });
const Text = Type.String({ minLength: 1, maxLength: 1000 });
const DateText = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'YYYY-MM-DD' });
const closed = <T extends Record<string, TSchema>>(props: T) => Type.Object(props, { additionalProperties: false });

const VerificationBody = closed({
  subject_ref: Ref,
  issuer_id: Id,
  credential_kind: Type.String({ minLength: 1, maxLength: 100 }),
  consent_token_id: Type.Optional(Id),
  credential_reference: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'The certificate, candidate or licence number the issuer knows the award by.' })),
});
const VerifyBody = closed({ evidence_date: Type.Optional(DateText) });
const ContradictBody = closed({ contradiction_detail: Text });
const UnverifiedBody = closed({ unresolved_source: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })) });
const ClaimBody = closed({
  subject_ref: Ref,
  claim_code: Type.String({ minLength: 1, maxLength: 100 }),
  level: Type.Integer({ minimum: 1, maximum: 6 }),
  evidence_class: enumOf(EVIDENCE_CLASSES),
  evidence_date: DateText,
  issuing_method: Type.Optional(enumOf(METHODS)),
  supersedes: Type.Optional(Id),
});
const LapseBody = closed({ reason: Text });
const AnalysisBody = closed({
  subject_ref: Ref,
  document_url: Type.String({ format: 'uri', minLength: 1, maxLength: 2048, description: 'Write-only: accepted and never returned.', writeOnly: true }),
  credential_kind: Type.String({ minLength: 1, maxLength: 100 }),
});
const WalletBody = closed({ subject_ref: Ref, claim_ids: Type.Array(Id, { minItems: 1, maxItems: 100 }) });
const DisclosureBody = closed({
  subject_ref: Ref,
  consent_token_id: Type.Optional(Id),
  recipient: Type.String({ minLength: 1, maxLength: 255 }),
  wallet_id: Type.Optional(Id),
  claim_ids: Type.Optional(Type.Array(Id, { minItems: 1, maxItems: 100 })),
});
const ReattestationBody = closed({
  claim_id: Id,
  evidence_class: enumOf(REATTESTATION_CLASSES),
  evidence_date: DateText,
  attested_by: Type.String({ minLength: 1, maxLength: 255 }),
  level: Type.Optional(Type.Integer({ minimum: 1, maximum: 6 })),
  note: Type.Optional(Text),
});
const AppealBody = closed({ verification_id: Type.Optional(Id), claim_id: Type.Optional(Id), statement: Text });
const DecideBody = closed({ outcome: enumOf(APPEAL_OUTCOMES), reason: Text });

const SubjectFilter = Type.Optional(Ref);

/** The list named by the filters given, in the shape the actors index (`subject:<ref>[:<name>:<value>]`). */
function listName(subject: string | undefined, name: string, value: string | undefined): string {
  if (subject !== undefined) return value !== undefined ? `subject:${subject}:${name}:${value}` : `subject:${subject}`;
  return value !== undefined ? `${name}:${value}` : 'all';
}

/** One page of an in-memory list ordered by id; an unknown starting_after gives an empty page (spec 7). */
function memoryPage<T extends { id: string }>(all: T[], q: { limit?: number; starting_after?: string }) {
  const { limit, after } = parseListQuery(q);
  let from = 0;
  if (after !== undefined) {
    const i = all.findIndex((x) => x.id === after);
    if (i < 0) return listEnvelope([], false);
    from = i + 1;
  }
  return listEnvelope(all.slice(from, from + limit), from + limit < all.length);
}

function frameworkView(f: Framework, version: string, hash: string, livemode: boolean) {
  return { id: frameworkIdOf(f.occupation_code, version), object: 'competency_framework', livemode, mocked: false, occupation_code: f.occupation_code, occupation_name: f.occupation_name, version, content_hash: hash, nvqf_level: f.nvqf_level, claims: f.claims };
}

function issuerView(i: IssuerEntry, livemode: boolean) {
  return {
    id: i.id, object: 'issuer', livemode, mocked: true, name: i.name, method: i.method, credential_kinds: i.credential_kinds, evidence_valid_days: i.evidence_valid_days,
    answer_hours: i.method === 'issuer_portal' ? i.answer_hours : null, service_level_days: i.method === 'register_api' ? null : i.service_level_days, fee: i.fee,
  };
}

const frameworks = (req: RouteRequest) => {
  const p = service(req.platform).policy;
  return p.frameworks.pack.frameworks
    .map((f) => frameworkView(f, p.frameworks.pack.version, p.frameworks.hash, req.livemode))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
};

const create = (path: string, body: TSchema, summary: string, handler: (req: RouteRequest<any, any>) => Promise<unknown>, specGap?: string): RouteDef =>
  route({ method: 'POST', path, auth: 'key', module: M, idempotent: true, status: 201, body, summary, specGap, handler });
const op = (path: string, body: TSchema | undefined, summary: string, handler: (req: RouteRequest<any, any>) => Promise<unknown>, specGap?: string): RouteDef =>
  route({ method: 'POST', path, auth: 'key', module: M, idempotent: true, body, summary, specGap, handler });
const read = (path: string, summary: string, handler: (req: RouteRequest<any, any>) => Promise<unknown>, specGap?: string, query?: TSchema): RouteDef =>
  route({ method: 'GET', path, auth: 'key', module: M, idempotent: false, summary, specGap, query, handler });

const verificationId = (req: RouteRequest) => idOf(req.params.verification_id, VERIFICATION_PREFIX, 'credential verification');

export const routes: RouteDef[] = [
  // ---- verifications ----
  read(`${P}/verifications`, 'List credential verifications, newest first; filters outcome and subject_ref.', (req) =>
    listPage(req.platform.system, Verification, req.org, listName(req.query.subject_ref, 'outcome', req.query.outcome), req.query, 'desc'),
    undefined, listQueryWith({ outcome: Type.Optional(enumOf(OUTCOMES)), subject_ref: SubjectFilter })),
  create(`${P}/verifications`, VerificationBody, 'Verify a credential with its issuer under an active consent token (422 consent_token_missing without); silence is unverified, never a pass.',
    (req) => createVerification(req.platform, callerOf(req), req.body),
    `Body fields beyond subject_ref, issuer_id and credential_kind (consent_token_id, credential_reference) and the record's charge, cached_from, decided_by are ours; ${GAP}.`),
  read(`${P}/verifications/{verification_id}`, 'Retrieve a credential verification.', (req) => req.platform.system.get(Verification, verificationId(req), req.org)),
  op(`${P}/verifications/{verification_id}/verify`, VerifyBody, 'Record the issuer\u2019s confirmation of a pending (or late-answered unverified) verification; issues the claim.',
    (req) => decideVerification(req.platform, callerOf(req), verificationId(req), 'verify', req.body), `Body and allowed states not shown; ${GAP}.`),
  op(`${P}/verifications/{verification_id}/mark_unverified`, UnverifiedBody, 'Record that the issuer did not answer a pending verification; names the source.',
    (req) => decideVerification(req.platform, callerOf(req), verificationId(req), 'mark_unverified', req.body), `Body and allowed states not shown; ${GAP}.`),
  op(`${P}/verifications/{verification_id}/contradict`, ContradictBody, 'Record that the issuer said otherwise: a finding about the person, with contradiction_detail.',
    (req) => decideVerification(req.platform, callerOf(req), verificationId(req), 'contradict', req.body), `Body and allowed states not shown; ${GAP}.`),

  // ---- issuers ----
  read(`${P}/issuers`, 'List the credential issuers, their method, service level, evidence validity and fee.', async (req) =>
    memoryPage([...service(req.platform).policy.issuers.values()].map((i) => issuerView(i, req.livemode)).sort((a, b) => (a.id < b.id ? -1 : 1)), req.query),
    `Issuer fields are not shown; ${GAP}.`, listQueryWith({})),
  read(`${P}/issuers/{issuer_id}`, 'Retrieve a credential issuer.', async (req) => {
    const id = idOf(req.params.issuer_id, ISSUER_PREFIX, 'issuer');
    const i = service(req.platform).policy.issuers.get(id);
    if (!i) throw notFound('issuer', id);
    return issuerView(i, req.livemode);
  }, `Issuer fields are not shown; ${GAP}.`),

  // ---- frameworks ----
  read(`${P}/frameworks`, 'List competency frameworks; filter occupation_code.', async (req) => {
    const all = frameworks(req).filter((f) => req.query.occupation_code === undefined || f.occupation_code === req.query.occupation_code);
    return memoryPage(all, req.query);
  }, undefined, listQueryWith({ occupation_code: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })) })),
  read(`${P}/frameworks/{framework_id}`, 'Retrieve a competency framework.', async (req) => {
    const id = idOf(req.params.framework_id, FRAMEWORK_PREFIX, 'competency framework');
    const f = frameworks(req).find((x) => x.id === id);
    if (!f) throw notFound('competency framework', id);
    return f;
  }),

  // ---- document analyses ----
  create(`${P}/document_analyses`, AnalysisBody, 'Analyse a credential document: one score per factor (template, seal, typography, serial structure, plausibility of issuance); a confirmed forgery is escalated to identity.',
    (req) => createAnalysis(req.platform, callerOf(req), req.body), `The analysis record's fields are not shown; ${GAP}.`),
  read(`${P}/document_analyses/{document_analysis_id}`, 'Retrieve a document analysis (document_url is never returned).',
    (req) => req.platform.system.get(DocumentAnalysis, idOf(req.params.document_analysis_id, DOCUMENT_ANALYSIS_PREFIX, 'document analysis'), req.org), `The analysis record's fields are not shown; ${GAP}.`),

  // ---- claims ----
  read(`${P}/claims`, 'List competence claims, newest first; filter subject_ref (lapsed claims stay listed, downgraded).', (req) =>
    listPage(req.platform.system, Claim, req.org, listName(req.query.subject_ref, '', undefined), req.query, 'desc'),
    `List filters are not shown; ${GAP}.`, listQueryWith({ subject_ref: SubjectFilter })),
  create(`${P}/claims`, ClaimBody, 'Make a competence claim (e1, e2, e3 or e5; e4 comes only from a verification); supersedes names the claim it replaces, which stays.',
    (req) => createClaim(req.platform, callerOf(req), req.body), `Request shape not shown; ${GAP}.`),
  read(`${P}/claims/{claim_id}`, 'Retrieve a competence claim.', (req) => req.platform.system.get(Claim, idOf(req.params.claim_id, CLAIM_PREFIX, 'competence claim'), req.org)),
  op(`${P}/claims/{claim_id}/lapse`, LapseBody, 'Lapse a claim before its expiry (claim.lapsed); it stays, shown lapsed and downgraded.',
    (req) => lapseClaim(req.platform, callerOf(req), idOf(req.params.claim_id, CLAIM_PREFIX, 'competence claim'), req.body), `Request shape not shown; ${GAP}.`),

  // ---- wallets ----
  read(`${P}/wallets`, 'List wallets, newest first; filter subject_ref.', (req) =>
    listPage(req.platform.system, Wallet, req.org, listName(req.query.subject_ref, '', undefined), req.query, 'desc'), `Wallet fields are not shown; ${GAP}.`, listQueryWith({ subject_ref: SubjectFilter })),
  create(`${P}/wallets`, WalletBody, 'Make a wallet: a subject\u2019s portable set of claims.', async (req) => createWallet(req.platform, callerOf(req), req.body), `Wallet fields are not shown; ${GAP}.`),
  read(`${P}/wallets/{wallet_id}`, 'Retrieve a wallet with each of its claims as it stands now.', (req) => walletView(req.platform, req.org, idOf(req.params.wallet_id, WALLET_PREFIX, 'wallet')), `Wallet fields are not shown; ${GAP}.`),

  // ---- disclosures ----
  read(`${P}/disclosures`, 'List disclosures, newest first; filters subject_ref and status.', (req) =>
    listPage(req.platform.system, Disclosure, req.org, listName(req.query.subject_ref, 'status', req.query.status), req.query, 'desc'),
    `Disclosure fields are not shown; ${GAP}.`, listQueryWith({ subject_ref: SubjectFilter, status: Type.Optional(enumOf(DISCLOSURE_STATUSES)) })),
  create(`${P}/disclosures`, DisclosureBody, 'Disclose a subject\u2019s claims (a wallet or claim_ids) to a recipient under an active consent token (422 consent_token_missing without).',
    (req) => createDisclosure(req.platform, callerOf(req), req.body), `Disclosure fields are not shown; ${GAP}.`),
  read(`${P}/disclosures/{disclosure_id}`, 'Retrieve a disclosure.', (req) => req.platform.system.get(Disclosure, idOf(req.params.disclosure_id, DISCLOSURE_PREFIX, 'disclosure'), req.org), `Not named by the spec; a read by id like every other record; ${GAP}.`),
  op(`${P}/disclosures/{disclosure_id}/revoke`, undefined, 'Revoke an active disclosure (409 otherwise).',
    (req) => revokeDisclosure(req.platform, callerOf(req), idOf(req.params.disclosure_id, DISCLOSURE_PREFIX, 'disclosure')), `Disclosure fields are not shown; ${GAP}.`),

  // ---- licences ----
  read(`${P}/licences`, 'List licences, newest first; filters subject_ref, occupation_code, status.', (req) =>
    listPage(req.platform.system, Licence, req.org, licenceList(req.query.subject_ref, req.query.occupation_code, req.query.status), req.query, 'desc'),
    `Licence fields and filters are not shown; ${GAP}.`, listQueryWith({ subject_ref: SubjectFilter, occupation_code: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })), status: Type.Optional(enumOf(LICENCE_STATUSES)) })),
  read(`${P}/licences/{licence_id}`, 'Retrieve a licence.', (req) => req.platform.system.get(Licence, idOf(req.params.licence_id, LICENCE_PREFIX, 'licence'), req.org), `Licence fields are not shown; ${GAP}.`),

  // ---- re-attestations and appeals ----
  create(`${P}/reattestations`, ReattestationBody, 'Re-attest a claim: a new claim supersedes it (superseded_by); the old one stays.',
    (req) => createReattestation(req.platform, callerOf(req), req.body), `Re-attestation fields are not shown; ${GAP}.`),
  read(`${P}/reattestations/{reattestation_id}`, 'Retrieve a re-attestation.', (req) => req.platform.system.get(Reattestation, idOf(req.params.reattestation_id, REATTESTATION_PREFIX, 're-attestation'), req.org), `Re-attestation fields are not shown; ${GAP}.`),
  create(`${P}/appeals`, AppealBody, 'Appeal a contradicted verification or a lapsed claim; a person decides it.',
    (req) => fileAppeal(req.platform, callerOf(req), req.body), `Appeal fields are not shown; ${GAP}.`),
  read(`${P}/appeals/{appeal_id}`, 'Retrieve an appeal.', (req) => req.platform.system.get(Appeal, idOf(req.params.appeal_id, APPEAL_PREFIX, 'appeal'), req.org), `Appeal fields are not shown; ${GAP}.`),
  op(`${P}/appeals/{appeal_id}/decide`, DecideBody, 'Record a person\u2019s decision on an open appeal (upheld or dismissed, with a reason); never edited.',
    (req) => decideAppeal(req.platform, callerOf(req), idOf(req.params.appeal_id, APPEAL_PREFIX, 'appeal'), req.body), `Not named by the spec: how an appeal is decided is not shown; ${GAP}.`),

  // ---- readiness ----
  read(`${P}/readiness`, 'The module\u2019s readiness: the active policy pack and frameworks (version, hash), issuers, and the eligibility model.', async (req) => readiness(req.platform), `Response shape not shown; ${GAP}.`),
];
