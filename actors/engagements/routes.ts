/**
 * Engagements routes (spec 4.5, path /v1/rail, scope prefix rail). Events and audit entries of the
 * module are served by the delivery area for every module (actors/delivery/module-routes.ts).
 * Request and response shapes of every endpoint except the two lists and verify are "not shown";
 * ours are marked specGap and listed in docs/gaps.md#engagements.
 */
import { Type } from '@sinclair/typebox';
import { ApiError, callerOf, callerRef, createDedupe, createdId, enumOf, fieldError, idOf, listEnvelope, listPage, ListQuery, listQueryWith, parseListQuery, route, type RouteDef, type RouteRequest, filteredList } from '../../kernel/index.ts';
import { AuditBundle } from './audit-bundle.ts';
import { assembleBundle } from './audit-bundles.ts';
import { ATTESTATION_KINDS, DISPUTE_OUTCOMES, DISPUTE_PARTIES, Engagement, ENGAGEMENT_STATUSES, engagementView, TERMINATING_PARTIES } from './engagement.ts';
import { engagementAnswer } from './next-actions.ts';
import { activate, attest, classifyEngagement, disputeEngagement, executeEngagement, lapse, type OpenBody, openDispute, openEngagement, paper, register, resolveDispute, terminate } from './engagements.ts';
import { ASSENT_PREFIX, ATTESTATION_PREFIX, AUDIT_BUNDLE_PREFIX, DISPUTE_PREFIX, ENGAGEMENT_PREFIX, INSTRUMENT_PREFIX, REMEDIATION_CASE_PREFIX } from './ids.ts';
import { ASSENT_CHANNELS, ASSENT_PARTIES, Instrument, INSTRUMENT_STATUSES, instrumentView } from './instrument.ts';
import { assent, draftInstrument, executeInstrument, supersede, verifyInstrument } from './instruments.ts';
import { CLASSIFICATIONS, rulePack, SECTORS } from './packs.ts';
import { clauseLibraryView, copyView, dischargesView, engagementAsOf, engagementNow, engagementState, envelopeView, gatingContract, instrumentOf, readiness } from './reads.ts';
import { CASE_STATUSES, RemediationCase } from './remediation-case.ts';
import { reconcile, resolveCase } from './remediation-cases.ts';

const M = 'rail';
const P = '/v1/rail';
const E = `${P}/engagements/{engagement_id}`;
const I = `${E}/instruments/{instrument_id}`;
const gap = (what: string) => `${what} not shown (spec 4.5); see docs/gaps.md#engagements.`;

const engagementId = (req: RouteRequest) => idOf(req.params.engagement_id, ENGAGEMENT_PREFIX, 'engagement');
const instrumentId = (req: RouteRequest) => idOf(req.params.instrument_id, INSTRUMENT_PREFIX, 'instrument');
const Ref = (description: string) => Type.String({ minLength: 1, maxLength: 255, description });
const Reason = Type.String({ minLength: 1, maxLength: 2000 });

// The facts schema follows the active rule pack's factors (documented and checked by the gateway).
const pack = rulePack()!;
const Facts = Type.Object(
  {
    ...Object.fromEntries(pack.classification.factors.map((f) => [f.code, enumOf(Object.keys(f.values), f.question)])),
    training_agreement: Type.Optional(Type.Boolean({ description: 'The relationship is under a training (apprenticeship) agreement.' })),
  },
  { additionalProperties: false, description: `The facts the classification rule pack ${pack.version} weighs (reference 3.2).` },
);

const EmployerFactsBody = Type.Object(
  {
    headcount: Type.Optional(Type.Integer({ minimum: 0, description: 'Staff of the engaging organisation (pension and ITF thresholds).' })),
    annual_turnover_at_least_50m: Type.Optional(Type.Boolean({ description: 'Annual turnover of N50 million or more (ITF).' })),
    sector: Type.Optional(enumOf(SECTORS)),
  },
  { additionalProperties: false },
);

const CreateBody = Type.Object(
  {
    engaging_party_ref: callerRef('subject_ref of the engaging party (a person who holds a passport in this organisation).'),
    worker_ref: callerRef('subject_ref of the worker.'),
    starts_on: Type.String({ format: 'date' }),
    ends_on: Type.Union([Type.String({ format: 'date' }), Type.Null()]),
    facts: Facts,
    employer_facts: Type.Optional(EmployerFactsBody),
  },
  { additionalProperties: false },
);

const ListEngagements = listQueryWith({ status: Type.Optional(enumOf(ENGAGEMENT_STATUSES)), classification: Type.Optional(enumOf(CLASSIFICATIONS)) });
const ListInstruments = listQueryWith({ engagement_id: Type.Optional(Ref('Only the instruments of this engagement.')), status: Type.Optional(enumOf(INSTRUMENT_STATUSES)) });
const ListCases = listQueryWith({ status: Type.Optional(enumOf(CASE_STATUSES)), engagement_id: Type.Optional(Ref('Only the cases of this engagement.')) });
const AsOfQuery = Type.Object({ as_of: Type.Optional(Type.String({ format: 'date', description: 'Answer the state at the end of this date (UTC), from the journal.' })) }, { additionalProperties: false });
const VersionQuery = Type.Object({ version: Type.Optional(Type.String({ pattern: '^\\d{4}\\.\\d{2}\\.\\d+$', description: 'YYYY.MM.N; the active version when absent.' })) }, { additionalProperties: false });

const ClassifyBody = Type.Object({ facts: Facts, contested: Type.Optional(Type.Boolean({ description: 'A party contests the result: review required.' })) }, { additionalProperties: false });
const DraftBodySchema = Type.Object(
  {
    template_code: Type.String({ minLength: 1, maxLength: 100, description: 'An approved template of the active clause library.' }),
    optional_clauses: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 50 })),
    expires_at: Type.Optional(Type.String({ format: 'date-time', description: 'When the unexecuted instrument expires; default from the rule pack.' })),
  },
  { additionalProperties: false },
);
const PaperBody = Type.Object(
  {
    instrument_id: Type.Optional(Ref('An instrument drafted for this engagement.')),
    template_code: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    optional_clauses: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 50 })),
    expires_at: Type.Optional(Type.String({ format: 'date-time' })),
  },
  { additionalProperties: false },
);
const SupersedeBody = Type.Object(
  {
    template_code: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Default: the template of the instrument varied.' })),
    optional_clauses: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 50 })),
    expires_at: Type.Optional(Type.String({ format: 'date-time' })),
  },
  { additionalProperties: false },
);
const ExecuteBody = Type.Object({ instrument_id: Type.Optional(Ref('Default: the instrument the engagement is papered with.')) }, { additionalProperties: false });
const AssentBody = Type.Object(
  {
    party: enumOf(ASSENT_PARTIES),
    subject_ref: callerRef('The assenting party; must be the engagement\u2019s party in that role, holding a live passport.'),
    channel: Type.Optional(enumOf(ASSENT_CHANNELS)),
  },
  { additionalProperties: false },
);
const RegisterBody = Type.Object({ registration_reference: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })) }, { additionalProperties: false });
const ReasonBody = Type.Object({ reason: Reason }, { additionalProperties: false });
const TerminateBody = Type.Object({ reason: Reason, terminated_by: Type.Optional(enumOf(TERMINATING_PARTIES)) }, { additionalProperties: false });
const DisputeBody = Type.Object(
  { raised_by: enumOf(DISPUTE_PARTIES), reason: Reason, contests_classification: Type.Optional(Type.Boolean()) },
  { additionalProperties: false },
);
const ResolveDisputeBody = Type.Object({ outcome: enumOf(DISPUTE_OUTCOMES), note: Reason }, { additionalProperties: false });
const AttestationBody = Type.Object(
  {
    kind: enumOf(ATTESTATION_KINDS),
    reference: Type.String({ minLength: 1, maxLength: 255, description: 'The attesting document\u2019s reference (a labour officer\u2019s attestation number, a certificate number).' }),
    attested_by: Type.String({ minLength: 1, maxLength: 255 }),
    attested_on: Type.String({ format: 'date' }),
    note: Type.Optional(Type.String({ maxLength: 2000 })),
  },
  { additionalProperties: false },
);
const VerifyBody = Type.Object({ hash: Type.String({ minLength: 1, maxLength: 200 }), instrument_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })) }, { additionalProperties: false });
const ResolveCaseBody = Type.Object({ note: Reason }, { additionalProperties: false });

const engagementList = (status?: string, classification?: string) =>
  status && classification ? `status:${status}:classification:${classification}` : status ? `status:${status}` : classification ? `classification:${classification}` : 'all';

/** An engagement answered by a move, with what it now waits for (next-actions.ts). */
async function withNextAction(req: RouteRequest, view: unknown): Promise<object> {
  const s = await engagementState(req.platform, req.org, engagementId(req));
  return engagementAnswer(req.platform, req.org, s, view as object);
}

export const routes: RouteDef[] = [
  // Engagements
  route({ method: 'POST', path: `${P}/engagements`, auth: 'key', module: M, idempotent: true, status: 201, body: CreateBody, specGap: gap('Body fields beyond the parties and dates are'),
    summary: 'Open an engagement: the parties, the dates and the facts, classified at once under the active rule pack (status classified).',
    handler: (req) => openEngagement(req.platform, callerOf(req), createdId(req, ENGAGEMENT_PREFIX), createDedupe(req), req.body as OpenBody) }),
  route({ method: 'GET', path: `${P}/engagements`, auth: 'key', module: M, idempotent: false, query: ListEngagements,
    summary: 'List engagements, newest first; filters status and classification.',
    handler: (req) => listPage(req.platform.system, Engagement, req.org, engagementList(req.query.status, req.query.classification), req.query, 'desc') }),
  route({ method: 'GET', path: E, auth: 'key', module: M, idempotent: false, query: AsOfQuery,
    summary: 'Retrieve an engagement; with as_of, the engagement as it stood at the end of that date, from its journal.',
    handler: async (req) => {
      const id = engagementId(req);
      if (req.query.as_of === undefined) {
        const s = await engagementNow(req.platform, req.org, id);
        return engagementAnswer(req.platform, req.org, s, engagementView(s, null));
      }
      return engagementView(await engagementAsOf(req.platform, req.org, id, req.query.as_of), req.query.as_of);
    } }),
  route({ method: 'POST', path: `${E}/classify`, auth: 'key', module: M, idempotent: true, body: ClassifyBody, specGap: gap('The body is'),
    summary: 'Classify again on new facts (while classified); contested sets classification_review_required.',
    handler: (req) => classifyEngagement(req.platform, callerOf(req), engagementId(req), req.body) }),
  route({ method: 'GET', path: `${E}/classification`, auth: 'key', module: M, idempotent: false, specGap: gap('The classification record is'),
    summary: 'The classification: class, confidence, whether review is required, the rule pack and the rule that fired.',
    handler: async (req) => {
      const e = await engagementState(req.platform, req.org, engagementId(req));
      const c = e.classification!;
      return { object: 'classification', livemode: e.livemode, mocked: false, engagement_id: e.id, classification: c.classification, confidence: c.confidence, review_required: c.review_required, review_reasons: c.review_reasons, contested: c.contested, rule: c.rule, rule_pack: c.rule_pack };
    } }),
  route({ method: 'GET', path: `${E}/classification/rationale`, auth: 'key', module: M, idempotent: false, specGap: gap('The rationale is'),
    summary: 'Why: each factor, the fact given, its weight and contribution, the score, the thresholds and the rule that fired.',
    handler: async (req) => {
      const e = await engagementState(req.platform, req.org, engagementId(req));
      const c = e.classification!;
      return { object: 'classification_rationale', livemode: e.livemode, mocked: false, engagement_id: e.id, classification: c.classification, side: c.side, side_undetermined: c.side_undetermined, score: c.score, confidence: c.confidence, factors: c.factors, thresholds: c.thresholds, rule: c.rule, review_reasons: c.review_reasons, rule_pack: c.rule_pack };
    } }),
  route({ method: 'POST', path: `${E}/paper`, auth: 'key', module: M, idempotent: true, body: PaperBody, specGap: gap('The body is'),
    summary: 'Paper the engagement with an instrument (one drafted before, or drafted now from template_code); the instrument awaits assent.',
    handler: async (req) => withNextAction(req, await paper(req.platform, callerOf(req), engagementId(req), req.body, createdId(req, INSTRUMENT_PREFIX), createDedupe(req))) }),
  route({ method: 'POST', path: `${E}/execute`, auth: 'key', module: M, idempotent: true, body: ExecuteBody, specGap: gap('The body is'),
    summary: 'Execute the papered instrument: both assents in and both passports live; sealed into the organisation\u2019s chain.',
    handler: async (req) => withNextAction(req, await executeEngagement(req.platform, callerOf(req), engagementId(req), req.body ?? {})) }),
  route({ method: 'POST', path: `${E}/register`, auth: 'key', module: M, idempotent: true, body: RegisterBody, specGap: gap('The body is'),
    summary: 'Register an executed engagement (an apprenticeship needs a labour officer\u2019s attestation, a medical fitness certificate and age evidence on record).',
    handler: async (req) => withNextAction(req, await register(req.platform, callerOf(req), engagementId(req), req.body ?? {})) }),
  route({ method: 'POST', path: `${E}/activate`, auth: 'key', module: M, idempotent: true, specGap: gap('Conditions are'),
    summary: 'Make an executed (or registered, or lapsed) engagement current: both passports live, from starts_on.',
    handler: async (req) => withNextAction(req, await activate(req.platform, callerOf(req), engagementId(req))) }),
  route({ method: 'POST', path: `${E}/lapse`, auth: 'key', module: M, idempotent: true, body: ReasonBody, specGap: gap('The body is'),
    summary: 'Record that the standing of an executed, registered or current engagement lapsed.',
    handler: async (req) => withNextAction(req, await lapse(req.platform, callerOf(req), engagementId(req), req.body)) }),
  route({ method: 'POST', path: `${E}/dispute`, auth: 'key', module: M, idempotent: true, body: DisputeBody, specGap: gap('The body is'),
    summary: 'Put the engagement into dispute (the same as POST .../disputes, answering the engagement); a remediation case opens.',
    handler: async (req) => withNextAction(req, await disputeEngagement(req.platform, callerOf(req), engagementId(req), createdId(req, DISPUTE_PREFIX), req.body)) }),
  route({ method: 'POST', path: `${E}/terminate`, auth: 'key', module: M, idempotent: true, body: TerminateBody, specGap: gap('The body is'),
    summary: 'Terminate the engagement (final); emits engagement.terminated.',
    handler: (req) => terminate(req.platform, callerOf(req), engagementId(req), req.body) }),

  // Attestations
  route({ method: 'POST', path: `${E}/attestations`, auth: 'key', module: M, idempotent: true, status: 201, body: AttestationBody, specGap: gap('The attestation is'),
    summary: 'Record an attestation of the engagement (labour officer, medical fitness, age evidence, guardian consent, witness).',
    handler: (req) => attest(req.platform, callerOf(req), engagementId(req), createdId(req, ATTESTATION_PREFIX), req.body) }),
  route({ method: 'GET', path: `${E}/attestations`, auth: 'key', module: M, idempotent: false, specGap: gap('The attestation is'),
    summary: 'The attestations of an engagement, oldest first.',
    handler: async (req) => listEnvelope((await engagementState(req.platform, req.org, engagementId(req))).attestations, false) }),

  // Instruments under an engagement
  route({ method: 'POST', path: `${E}/instruments`, auth: 'key', module: M, idempotent: true, status: 201, body: DraftBodySchema, specGap: gap('The body is'),
    summary: 'Draft an instrument from an approved template; a contract for services over facts that classify as employment is refused.',
    handler: async (req) => instrumentView(await draftInstrument(req.platform, callerOf(req), engagementId(req), createdId(req, INSTRUMENT_PREFIX), createDedupe(req), req.body)) }),
  route({ method: 'GET', path: `${E}/instruments`, auth: 'key', module: M, idempotent: false, query: ListQuery, specGap: gap('This list is'),
    summary: 'The instruments of an engagement, newest first.',
    handler: async (req) => {
      await engagementState(req.platform, req.org, engagementId(req));
      return listPage(req.platform.system, Instrument, req.org, `engagement:${engagementId(req)}`, req.query, 'desc');
    } }),
  route({ method: 'GET', path: I, auth: 'key', module: M, idempotent: false, specGap: gap('This read is'),
    summary: 'Retrieve an instrument of the engagement.',
    handler: async (req) => instrumentView(await instrumentOf(req.platform, req.org, engagementId(req), instrumentId(req))) }),
  route({ method: 'POST', path: `${I}/execute`, auth: 'key', module: M, idempotent: true,
    summary: 'Execute the instrument: assent of both parties complete and both passports live; the seal is applied and executed_at set.',
    handler: (req) => executeInstrument(req.platform, callerOf(req), engagementId(req), instrumentId(req)) }),
  route({ method: 'POST', path: `${I}/supersede`, auth: 'key', module: M, idempotent: true, status: 201, body: SupersedeBody, specGap: gap('The body is'),
    summary: 'Draft a variation of an executed instrument: the earlier record is kept, marked superseded and linked both ways; the variation awaits assent.',
    handler: (req) => supersede(req.platform, callerOf(req), engagementId(req), instrumentId(req), createdId(req, INSTRUMENT_PREFIX), createDedupe(req), req.body ?? {}) }),
  route({ method: 'POST', path: `${I}/assents`, auth: 'key', module: M, idempotent: true, status: 201, body: AssentBody, specGap: gap('The assent is'),
    summary: 'Record a party\u2019s assent, bound to their live passport and to the hash of the document they assented to.',
    handler: (req) => assent(req.platform, callerOf(req), engagementId(req), instrumentId(req), createdId(req, ASSENT_PREFIX), req.body) }),
  route({ method: 'GET', path: `${I}/assents`, auth: 'key', module: M, idempotent: false, specGap: gap('The assent is'),
    summary: 'The assents of an instrument, oldest first.',
    handler: async (req) => listEnvelope((await instrumentOf(req.platform, req.org, engagementId(req), instrumentId(req))).assents, false) }),
  route({ method: 'GET', path: `${I}/copy`, auth: 'key', module: M, idempotent: false, specGap: gap('The copy is'),
    summary: 'The worker\u2019s own copy: the clauses rendered for this engagement, the sealed document and the seal.',
    handler: async (req) => copyView(await instrumentOf(req.platform, req.org, engagementId(req), instrumentId(req))) }),

  // Envelope and discharges
  route({ method: 'GET', path: `${E}/envelope`, auth: 'key', module: M, idempotent: false, specGap: gap('Fields of the envelope are'),
    summary: 'The obligation envelope: what is owed, to which authority, on what basis, from when and how often; never a figure.',
    handler: async (req) => envelopeView(await engagementNow(req.platform, req.org, engagementId(req))) }),
  route({ method: 'GET', path: `${P}/envelopes`, auth: 'key', module: M, idempotent: false, query: ListQuery, specGap: gap('This list is'),
    summary: 'The envelopes of every engagement, newest engagement first.',
    handler: async (req) => {
      const { limit, after } = parseListQuery(req.query);
      const page = await req.platform.system.listIds(Engagement, req.org, 'all', { after, limit, order: 'desc' });
      const data = await Promise.all(page.ids.map(async (id) => envelopeView(await engagementNow(req.platform, req.org, id))));
      return listEnvelope(data, page.hasMore);
    } }),
  route({ method: 'GET', path: `${E}/discharges`, auth: 'key', module: M, idempotent: false, specGap: gap('Discharges are'),
    summary: 'Which obligations of the envelope were met, with the evidence.',
    handler: async (req) => dischargesView(await engagementNow(req.platform, req.org, engagementId(req))) }),

  // Disputes
  route({ method: 'POST', path: `${E}/disputes`, auth: 'key', module: M, idempotent: true, status: 201, body: DisputeBody, specGap: gap('The dispute is'),
    summary: 'Open a dispute: the engagement goes into dispute and a remediation case opens.',
    handler: (req) => openDispute(req.platform, callerOf(req), engagementId(req), createdId(req, DISPUTE_PREFIX), req.body) }),
  route({ method: 'GET', path: `${E}/disputes`, auth: 'key', module: M, idempotent: false, specGap: gap('This list is'),
    summary: 'The disputes of an engagement, oldest first.',
    handler: async (req) => listEnvelope((await engagementState(req.platform, req.org, engagementId(req))).disputes, false) }),
  route({ method: 'POST', path: `${E}/disputes/{dispute_id}/resolve`, auth: 'key', module: M, idempotent: true, body: ResolveDisputeBody, specGap: gap('The body is'),
    summary: 'Resolve a dispute once; the last open one returns the engagement to its status before (lapsed if a party\u2019s passport went meanwhile).',
    handler: (req) => resolveDispute(req.platform, callerOf(req), engagementId(req), idOf(req.params.dispute_id, DISPUTE_PREFIX, 'dispute'), req.body) }),

  // Audit bundles
  route({ method: 'POST', path: `${E}/audit_bundles`, auth: 'key', module: M, idempotent: true, status: 201, specGap: gap('The audit bundle is'),
    summary: 'Assemble an audit bundle: every record, event and seal of the engagement with the organisation\u2019s chain, verifiable offline.',
    handler: (req) => assembleBundle(req.platform, callerOf(req), engagementId(req), createdId(req, AUDIT_BUNDLE_PREFIX), createDedupe(req)) }),
  route({ method: 'GET', path: `${E}/audit_bundles`, auth: 'key', module: M, idempotent: false, query: ListQuery, specGap: gap('The audit bundle is'),
    summary: 'The audit bundles of an engagement, newest first.',
    handler: async (req) => {
      await engagementState(req.platform, req.org, engagementId(req));
      return listPage(req.platform.system, AuditBundle, req.org, `engagement:${engagementId(req)}`, req.query, 'desc');
    } }),
  route({ method: 'GET', path: `${E}/audit_bundles/{audit_bundle_id}`, auth: 'key', module: M, idempotent: false, specGap: gap('This read is'),
    summary: 'Retrieve an audit bundle.',
    handler: async (req) => {
      const b = (await req.platform.system.get(AuditBundle, idOf(req.params.audit_bundle_id, AUDIT_BUNDLE_PREFIX, 'audit bundle'), req.org)) as { engagement_id: string };
      if (b.engagement_id !== engagementId(req)) throw new ApiError('not_found', `No audit bundle with id ${req.params.audit_bundle_id} on engagement ${req.params.engagement_id}.`);
      return b;
    } }),

  // Instruments across engagements, verification, clause library
  route({ method: 'GET', path: `${P}/instruments`, auth: 'key', module: M, idempotent: false, query: ListInstruments,
    summary: 'List instruments, newest first; filters engagement_id and status.',
    handler: (req) => {
      const { engagement_id: e, status } = req.query;
      const list = filteredList({ engagement: e, status });
      return listPage(req.platform.system, Instrument, req.org, list, req.query, 'desc');
    } }),
  route({ method: 'POST', path: `${P}/instruments/verify`, auth: 'key', module: M, idempotent: false, body: VerifyBody,
    summary: 'Verify a seal hash: valid, chain_intact (recomputed from the stored instruments), instrument_id, executed_at, superseded_by. An unknown hash is valid false.',
    handler: (req) => verifyInstrument(req.platform, req.org, req.body.hash, req.body.instrument_id === undefined ? undefined : idOf(req.body.instrument_id, INSTRUMENT_PREFIX, 'instrument')) }),
  route({ method: 'GET', path: `${P}/instruments/{instrument_id}`, auth: 'key', module: M, idempotent: false, specGap: gap('This read is'),
    summary: 'Retrieve an instrument.',
    handler: (req) => req.platform.system.get(Instrument, instrumentId(req), req.org) }),
  route({ method: 'GET', path: `${P}/clause_library`, auth: 'key', module: M, idempotent: false, query: VersionQuery, specGap: gap('The clause library is'),
    summary: 'The approved templates and clauses of a clause library version (the active one without version).',
    handler: async (req) => {
      const lib = clauseLibraryView(req.query.version);
      if (!lib) throw new ApiError('not_found', `No clause library with version ${req.query.version}.`);
      return lib;
    } }),

  // Reconcile and remediation
  route({ method: 'GET', path: `${P}/reconcile`, auth: 'key', module: M, idempotent: false, query: ListQuery, specGap: gap('Reconcile is'),
    summary: 'Engagements whose standing disagrees with their instruments or passports (a page of engagements per call); each finding opens one remediation case.',
    handler: (req) => reconcile(req.platform, callerOf(req), req.query) }),
  route({ method: 'GET', path: `${P}/remediation_cases`, auth: 'key', module: M, idempotent: false, query: ListCases, specGap: gap('The remediation case is'),
    summary: 'List remediation cases, newest first; filters status and engagement_id.',
    handler: (req) => {
      const { status, engagement_id: e } = req.query;
      if (status && e) throw fieldError('/query/engagement_id', 'one_filter', 'Filter by status or by engagement_id, not both.');
      return listPage(req.platform.system, RemediationCase, req.org, e ? `engagement:${e}` : status ? `status:${status}` : 'all', req.query, 'desc');
    } }),
  route({ method: 'GET', path: `${P}/remediation_cases/{remediation_case_id}`, auth: 'key', module: M, idempotent: false, specGap: gap('The remediation case is'),
    summary: 'Retrieve a remediation case.',
    handler: (req) => req.platform.system.get(RemediationCase, idOf(req.params.remediation_case_id, REMEDIATION_CASE_PREFIX, 'remediation case'), req.org) }),
  route({ method: 'POST', path: `${P}/remediation_cases/{remediation_case_id}/resolve`, auth: 'key', module: M, idempotent: true, body: ResolveCaseBody, specGap: gap('The body is'),
    summary: 'Resolve a remediation case once, with a note.',
    handler: (req) => resolveCase(req.platform, callerOf(req), idOf(req.params.remediation_case_id, REMEDIATION_CASE_PREFIX, 'remediation case'), req.body) }),

  // Gate contract and readiness
  route({ method: 'GET', path: `${P}/gating_contract`, auth: 'key', module: M, idempotent: false, specGap: gap('The gating contract is'),
    summary: 'What "executed and current" means for the modules that check it, how to ask, and the events that announce a change.',
    handler: async (req) => gatingContract(req.livemode) }),
  route({ method: 'GET', path: `${P}/readiness`, auth: 'key', module: M, idempotent: false, specGap: gap('Readiness is'),
    summary: 'Whether the module can act now: rule pack, clause library, standing model.',
    handler: async (req) => readiness(req.platform, req.livemode) }),
];
