/**
 * Sourcing routes (spec 4.6; scope prefix `flow`, kernel/scopes.ts MODULES). Every POST that moves
 * state takes an Idempotency-Key (spec 1 rule 9). Shapes the spec does not show are marked
 * specGap and listed in docs/gaps.md#sourcing.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { type Caller, callerOf, enumOf, listPage, ListQuery, listQueryWith, Money, type Platform, retrieval, route, type RouteDef, filteredList } from '../../kernel/index.ts';
import { addDelivery, createBroadcast, getBroadcast, retryDelivery, setSpendCeiling } from './broadcasts.ts';
import { ChannelDelivery, DELIVERY_STATUSES } from './channel-delivery.ts';
import type { AnyActorDef } from '../../runtime/index.ts';
import { CHANNEL_PREFIX } from './ids.ts';
import { runImport } from './imports.ts';
import { Lead, LEAD_STATUSES } from './lead.ts';
import { promoteLead, receiveLead } from './leads.ts';
import { REQUISITION_STATUSES, Requisition } from './requisition.ts';
import { adjudicateRequisition, artefacts, closeRequisition, confirmInferences, contestRequisition, createRequisition, editArtefacts, editRequisition, getRequisition, publishRequisition, quarantineRequisition } from './requisitions.ts';
import { currentRulePack, getChannel, getTaxonomy, listChannels } from './reference-data.ts';
import { SourcingImport } from './import.ts';
import { SpendCeiling } from './spend-ceiling.ts';
import { EMPLOYMENT_TYPES, PERIODS } from './taxonomy.ts';

const M = 'flow';
const nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);
const DATE = Type.String({ format: 'date', description: 'YYYY-MM-DD' });
const PERIOD = Type.String({ pattern: '^\\d{4}-(0[1-9]|1[0-2])$', description: 'YYYY-MM' });
const Text = (max: number, description?: string) => Type.String({ minLength: 1, maxLength: max, ...(description ? { description } : {}) });
const Words = Type.Array(Text(100), { maxItems: 50 });

const Compensation = Type.Object({
  amount: Money({ minimum: 0 }),
  period: Type.Optional(enumOf(PERIODS)),
  negotiable: Type.Optional(Type.Boolean()),
}, { additionalProperties: false, description: 'Spec 2.7; a period left out is inferred and listed in inferred_fields.' });

const Location = Type.Object({
  description: Text(500),
  state: Type.Optional(Type.Union([Type.String({ pattern: '^NG-[A-Z]{2}$', description: 'ISO 3166-2:NG, e.g. NG-LA; inferred from the description when left out.' }), Type.Null()])),
  geofence_radius_metres: Type.Optional(Type.Union([Type.Integer({ minimum: 1, maximum: 100_000 }), Type.Null()])),
}, { additionalProperties: false });

const Requirements = Type.Object({
  min_experience_years: Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: 60 }), Type.Null()])),
  skills: Type.Optional(Words),
  licences: Type.Optional(Words),
  within_state: Type.Optional(Type.Boolean({ description: 'Leads must be in the location\u2019s State.' })),
  notes: Type.Optional(nullable(Text(2000))),
}, { additionalProperties: false, description: 'What leads are screened against (docs/gaps.md#sourcing).' });

const RequisitionFields = {
  occupation_code: Type.Optional(Type.Union([Type.String({ pattern: '^ng-\\d{4}$' }), Type.Null()])),
  employment_type: Type.Optional(Type.Union([enumOf(EMPLOYMENT_TYPES), Type.Null()])),
  compensation: Type.Optional(Type.Union([Compensation, Type.Null()])),
  location: Type.Optional(Type.Union([Location, Type.Null()])),
  starts_on: Type.Optional(Type.Union([DATE, Type.Null()])),
  description: Type.Optional(nullable(Text(20_000))),
  requirements: Type.Optional(Requirements),
};

const CreateBody = Type.Object({ job_title: Text(200), headcount: Type.Integer({ minimum: 1, maximum: 100_000 }), ...RequisitionFields }, { additionalProperties: false });
const PatchBody = Type.Object({ job_title: Type.Optional(Text(200)), headcount: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })), ...RequisitionFields }, { additionalProperties: false, minProperties: 1 });

const ConfirmBody = Type.Object({
  confirmations: Type.Array(
    Type.Object({ field: Text(64), accepted: Type.Boolean(), corrected_value: Type.Optional(Type.String({ maxLength: 200 })) }, { additionalProperties: false }),
    { minItems: 1, maxItems: 10 },
  ),
}, { additionalProperties: false });

const Reason = Text(1000);
const ChannelId = Type.String({ pattern: `^${CHANNEL_PREFIX}`, maxLength: 64 });

const gap = (what: string) => `${what} (docs/gaps.md#sourcing).`;

interface Creation {
  path: string;
  body: TSchema;
  summary: string;
  specGap: string;
  /** The operation: it gets the caller and the checked body, and answers the record. */
  make: (platform: Platform, caller: Caller, body: never) => Promise<unknown>;
}

/**
 * A record of `kind` made by `POST create.path` (201, with an Idempotency-Key, spec 1 rule 9) and
 * read back by `GET read.path`, whose path id names it (`what` in the 404).
 */
function createdRecord(kind: AnyActorDef, what: string, create: Creation, read: { path: string; summary: string; specGap: string }): RouteDef[] {
  const { make, ...def } = create;
  return [
    route({ method: 'POST', ...def, auth: 'key', module: M, idempotent: true, status: 201, handler: (req) => make(req.platform, callerOf(req), req.body as never) }),
    retrieval(kind, what, { ...read, auth: 'key', module: M }),
  ];
}
const reqPath = '/v1/sourcing/requisitions/{requisition_id}';

export const routes: RouteDef[] = [
  // ---------------------------------------------------------------- requisitions
  route({
    method: 'POST', path: '/v1/sourcing/requisitions', auth: 'key', module: M, idempotent: true, status: 201, body: CreateBody,
    summary: 'Create a requisition. Fields left out are inferred and listed in inferred_fields; the text is screened by the fair-hiring pack (a blocking rule quarantines it).',
    specGap: gap('The create body is not shown beyond job_title and headcount: the other Requisition fields of spec 2.7, description and requirements'),
    handler: (req) => createRequisition(req.platform, callerOf(req), req.body as never),
  }),
  route({
    method: 'GET', path: '/v1/sourcing/requisitions', auth: 'key', module: M, idempotent: false,
    query: listQueryWith({ status: Type.Optional(enumOf(REQUISITION_STATUSES)) }),
    summary: 'List requisitions, newest first, filtered by status.',
    handler: (req) => listPage(req.platform.system, Requisition, req.org, req.query.status ? `status:${req.query.status}` : 'all', req.query, 'desc'),
  }),
  route({
    method: 'GET', path: reqPath, auth: 'key', module: M, idempotent: false,
    query: Type.Object({ version: Type.Optional(Type.Integer({ minimum: 1 })) }, { additionalProperties: false }),
    summary: 'Retrieve a requisition, at its current version or at ?version=.',
    handler: (req) => getRequisition(req.platform, callerOf(req), req.params.requisition_id, req.query.version),
  }),
  route({
    method: 'PATCH', path: reqPath, auth: 'key', module: M, idempotent: false, body: PatchBody,
    summary: 'Edit a requisition: screened again; after its first broadcast an edit makes a new version and leads stay on theirs.',
    specGap: gap('Spec 3 names the edit but not its endpoint'),
    handler: (req) => editRequisition(req.platform, callerOf(req), req.params.requisition_id, req.body as never),
  }),
  route({
    method: 'POST', path: `${reqPath}/confirm_inferences`, auth: 'key', module: M, idempotent: true, body: ConfirmBody,
    summary: 'Accept or correct inferred fields; the way out of pending_confirmation.',
    handler: (req) => confirmInferences(req.platform, callerOf(req), req.params.requisition_id, req.body),
  }),
  route({
    method: 'POST', path: `${reqPath}/publish`, auth: 'key', module: M, idempotent: true,
    summary: 'Publish a draft requisition; refused (409) while compensation, headcount, location or start date is inferred and unconfirmed, and while quarantined.',
    handler: (req) => publishRequisition(req.platform, callerOf(req), req.params.requisition_id),
  }),
  route({
    method: 'POST', path: `${reqPath}/close`, auth: 'key', module: M, idempotent: true,
    body: Type.Object({ reason: Type.Optional(Reason) }, { additionalProperties: false }),
    summary: 'Close a requisition.',
    handler: (req) => closeRequisition(req.platform, callerOf(req), req.params.requisition_id, req.body as { reason?: string } | undefined),
  }),
  route({
    method: 'POST', path: `${reqPath}/quarantine`, auth: 'key', module: M, idempotent: true,
    body: Type.Object({ detail: Reason, rule_code: Type.Optional(Text(32, 'A rule of the active pack, or manual_review (the default).')), offending_text: Type.Optional(Text(2000)) }, { additionalProperties: false }),
    summary: 'Quarantine a requisition by a person\u2019s finding.',
    specGap: gap('The body of quarantine is not shown'),
    handler: (req) => quarantineRequisition(req.platform, callerOf(req), req.params.requisition_id, req.body),
  }),
  route({
    method: 'POST', path: `${reqPath}/contest`, auth: 'key', module: M, idempotent: true,
    body: Type.Object({ reason: Reason }, { additionalProperties: false }),
    summary: 'Contest the quarantine finding (for example a lawful exception); the requisition goes under_review until a person decides.',
    specGap: gap('Spec 2.7 has QuarantineFinding.contested but no endpoint'),
    handler: (req) => contestRequisition(req.platform, callerOf(req), req.params.requisition_id, req.body),
  }),
  route({
    method: 'POST', path: `${reqPath}/adjudicate`, auth: 'key', module: M, idempotent: true,
    body: Type.Object({ outcome: enumOf(['upheld', 'released']), reason: Reason }, { additionalProperties: false }),
    summary: 'A person decides a contested quarantine: upheld (stays quarantined) or released; the decision is recorded with who made it.',
    specGap: gap('The decision on a contest is not shown'),
    handler: (req) => adjudicateRequisition(req.platform, callerOf(req), req.params.requisition_id, req.body as never),
  }),
  route({
    method: 'GET', path: `${reqPath}/artefacts`, auth: 'key', module: M, idempotent: false,
    summary: 'The advert text and its channel variants, generated from the current version unless edited.',
    specGap: gap('Artefact fields are not shown'),
    handler: (req) => artefacts(req.platform, callerOf(req), req.params.requisition_id),
  }),
  route({
    method: 'PATCH', path: `${reqPath}/artefacts`, auth: 'key', module: M, idempotent: false,
    body: Type.Object({
      advert: Type.Optional(nullable(Text(20_000))),
      variants: Type.Optional(Type.Record(Type.String({ pattern: `^${CHANNEL_PREFIX}` }), nullable(Text(20_000)))),
    }, { additionalProperties: false, minProperties: 1 }),
    summary: 'Replace the advert or channel variants (null restores the generated text); screened like every text, and an edit after a broadcast makes a new version.',
    specGap: gap('Artefact fields are not shown'),
    handler: (req) => editArtefacts(req.platform, callerOf(req), req.params.requisition_id, req.body),
  }),
  route({
    method: 'POST', path: `${reqPath}/broadcasts`, auth: 'key', module: M, idempotent: true, status: 201,
    body: Type.Object({
      channel_ids: Type.Array(ChannelId, { minItems: 1, maxItems: 20, uniqueItems: true }),
      budget: Money({ minimum: 0, description: 'What the organisation declares it will spend on this broadcast (NGN); reserved against the period\u2019s spend ceiling. No charge is computed.' }),
    }, { additionalProperties: false }),
    summary: 'Broadcast the current version of a published requisition to channels; refused (409) before any charge when the period\u2019s spend ceiling would be exceeded.',
    specGap: gap('The broadcast body and record are not shown'),
    handler: (req) => createBroadcast(req.platform, callerOf(req), req.params.requisition_id, req.body as never),
  }),

  // ---------------------------------------------------------------- broadcasts and deliveries
  route({
    method: 'GET', path: '/v1/sourcing/broadcasts/{broadcast_id}', auth: 'key', module: M, idempotent: false,
    summary: 'Retrieve a broadcast with the state of its delivery to each channel.',
    specGap: gap('Broadcast fields are not shown'),
    handler: (req) => getBroadcast(req.platform, callerOf(req), req.params.broadcast_id),
  }),
  route({
    method: 'POST', path: '/v1/sourcing/broadcasts/{broadcast_id}/deliveries/{delivery_id}/retry', auth: 'key', module: M, idempotent: true,
    summary: 'Retry a failed delivery (or one waiting for its retry) now; the channel\u2019s retry schedule starts again.',
    specGap: gap('The retry response is not shown'),
    handler: (req) => retryDelivery(req.platform, callerOf(req), req.params.broadcast_id, req.params.delivery_id),
  }),
  route({
    method: 'GET', path: '/v1/sourcing/deliveries', auth: 'key', module: M, idempotent: false,
    query: listQueryWith({ broadcast_id: Type.Optional(Type.String({ maxLength: 255 })), status: Type.Optional(enumOf(DELIVERY_STATUSES)) }),
    summary: 'List deliveries, newest first, filtered by broadcast_id and status.',
    specGap: gap('Delivery fields are not shown'),
    handler: (req) => {
      const { broadcast_id, status } = req.query;
      const list = filteredList({ broadcast: broadcast_id, status });
      return listPage(req.platform.system, ChannelDelivery, req.org, list, req.query, 'desc');
    },
  }),
  ...createdRecord(ChannelDelivery, 'delivery', {
    path: '/v1/sourcing/deliveries', make: addDelivery,
    body: Type.Object({ broadcast_id: Type.String({ minLength: 1, maxLength: 255 }), channel_id: ChannelId, budget: Money({ minimum: 0 }) }, { additionalProperties: false }),
    summary: 'Send a broadcast\u2019s version to one more channel; its budget is reserved against the spend ceiling like a broadcast\u2019s.',
    specGap: gap('The delivery create body is not shown'),
  }, {
    path: '/v1/sourcing/deliveries/{delivery_id}', summary: 'Retrieve a delivery with its attempts.', specGap: gap('Not named by the spec; a read by id like every other record'),
  }),

  // ---------------------------------------------------------------- channels, spend ceilings
  route({
    method: 'GET', path: '/v1/sourcing/channels', auth: 'key', module: M, idempotent: false, query: ListQuery,
    summary: 'List the job channels, with each sandbox channel\u2019s documented behaviour (accepts, refuses, times out).',
    specGap: gap('Channel fields are not shown'),
    handler: async (req) => listChannels(req.platform, req.query),
  }),
  route({
    method: 'GET', path: '/v1/sourcing/channels/{channel_id}', auth: 'key', module: M, idempotent: false,
    summary: 'Retrieve a channel.',
    specGap: gap('Channel fields are not shown'),
    handler: async (req) => getChannel(req.platform, req.params.channel_id),
  }),
  route({
    method: 'POST', path: '/v1/sourcing/spend_ceilings', auth: 'key', module: M, idempotent: true,
    body: Type.Object({ period: Type.Optional(PERIOD), amount: Money({ minimum: 0, description: 'The most the organisation declares for broadcasts in the period (NGN).' }) }, { additionalProperties: false }),
    summary: 'Set the spend ceiling of a period (the current UTC month by default); broadcasts that would exceed it are refused.',
    specGap: gap('Spend ceilings are named without a shape'),
    handler: (req) => setSpendCeiling(req.platform, callerOf(req), req.body as never),
  }),
  route({
    method: 'GET', path: '/v1/sourcing/spend_ceilings', auth: 'key', module: M, idempotent: false, query: ListQuery,
    summary: 'List spend ceilings by period, newest first, with what is committed and what remains.',
    specGap: gap('Spend ceilings are named without a shape'),
    handler: (req) => listPage(req.platform.system, SpendCeiling, req.org, 'all', req.query, 'desc'),
  }),
  retrieval(SpendCeiling, 'spend ceiling', {
    path: '/v1/sourcing/spend_ceilings/{spend_ceiling_id}', auth: 'key', module: M,
    summary: 'Retrieve a spend ceiling.', specGap: gap('Spend ceilings are named without a shape'),
  }),

  // ---------------------------------------------------------------- leads
  route({
    method: 'POST', path: '/v1/sourcing/leads', auth: 'key', module: M, idempotent: true, status: 201,
    body: Type.Object({
      requisition_id: Type.String({ minLength: 1, maxLength: 255 }),
      delivery_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'The delivery the lead answered; fixes the requisition version.' })),
      channel_id: Type.Optional(ChannelId),
      external_ref: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'The channel\u2019s own id of the lead; the same lead delivered again is one lead.' })),
      candidate: Type.Object({
        full_name: Text(200),
        phone: Type.Optional(nullable(Type.String({ pattern: '^\\+?[0-9 ]{7,20}$' }))),
        email: Type.Optional(nullable(Type.String({ format: 'email', maxLength: 254 }))),
        state: Type.Optional(Type.Union([Type.String({ pattern: '^NG-[A-Z]{2}$' }), Type.Null()])),
        experience_years: Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: 70 }), Type.Null()])),
        skills: Type.Optional(Words),
        licences: Type.Optional(Words),
      }, { additionalProperties: false }),
    }, { additionalProperties: false }),
    summary: 'Receive a lead as a channel delivers it; screened against the requirements of the requisition version it answered.',
    specGap: gap('Lead and screening fields are not shown'),
    handler: (req) => receiveLead(req.platform, callerOf(req), req.body),
  }),
  route({
    method: 'GET', path: '/v1/sourcing/leads', auth: 'key', module: M, idempotent: false,
    query: listQueryWith({ requisition_id: Type.Optional(Type.String({ maxLength: 255 })), status: Type.Optional(enumOf(LEAD_STATUSES)) }),
    summary: 'List leads, newest first, by requisition_id or status.',
    specGap: gap('Not named by the spec; the list of the records POST /v1/sourcing/leads makes'),
    handler: (req) => listPage(req.platform.system, Lead, req.org, req.query.requisition_id ? `requisition:${req.query.requisition_id}` : req.query.status ? `status:${req.query.status}` : 'all', req.query, 'desc'),
  }),
  retrieval(Lead, 'lead', {
    path: '/v1/sourcing/leads/{lead_id}', auth: 'key', module: M,
    summary: 'Retrieve a lead with its screening.', specGap: gap('Not named by the spec; a read by id like every other record'),
  }),
  route({
    method: 'POST', path: '/v1/sourcing/leads/{lead_id}/promote', auth: 'key', module: M, idempotent: true,
    body: Type.Object({ override_reason: Type.Optional(Reason) }, { additionalProperties: false }),
    summary: 'Promote a lead to a subject: it gets the subject_ref the identity, credentials, engagements and allocation modules take. A lead not screened meets needs an override_reason.',
    specGap: gap('The promote body and response are not shown'),
    handler: (req) => promoteLead(req.platform, callerOf(req), req.params.lead_id, req.body ?? {}),
  }),

  // ---------------------------------------------------------------- imports, taxonomies
  ...createdRecord(SourcingImport, 'import', {
    path: '/v1/sourcing/imports', make: runImport,
    body: Type.Object({ kind: enumOf(['leads', 'requisitions']), csv: Type.String({ minLength: 1, maxLength: 2_000_000 }) }, { additionalProperties: false }),
    summary: 'Import leads or requisitions from CSV; all or nothing, with a ValidationReport naming every failing field of every row.',
    specGap: gap('The import body and record are not shown'),
  }, { path: '/v1/sourcing/imports/{import_id}', summary: 'Retrieve an import and its ValidationReport.', specGap: gap('Import fields are not shown') }),
  route({
    method: 'GET', path: '/v1/sourcing/taxonomies/{taxonomy_id}', auth: 'key', module: M, idempotent: false,
    summary: 'Retrieve the occupation taxonomy (versioned, content hash) that inference uses.',
    specGap: gap('Taxonomy fields are not shown'),
    handler: async (req) => getTaxonomy(req.platform, req.params.taxonomy_id, req.livemode),
  }),
  route({
    method: 'GET', path: '/v1/sourcing/rule_packs/current', auth: 'key', module: M, idempotent: false,
    summary: 'The fair-hiring rule pack requisitions are screened with: version, content hash and every rule (code, law, severity, neutral rewrite).',
    specGap: gap('Not named by the spec; shows the data QuarantineFinding.rule_pack_version refers to'),
    handler: async (req) => currentRulePack(req.platform, req.livemode),
  }),
];

