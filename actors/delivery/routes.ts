/**
 * Delivery routes (spec 4.11; scopes delivery:read, delivery:write): webhook endpoints and
 * webhook deliveries. Shapes the spec leaves "not shown" are filled minimally (docs/gaps.md#delivery).
 */
import { Type } from '@sinclair/typebox';
import { callerOf, conflict, createDedupe, createdId, errorEntry, fieldError, idOf, listEnvelope, listPage, ListQuery, listQueryWith, parseListQuery, route, type RouteDef, type ValidationEntry, validationError } from '../../kernel/index.ts';
import { allowsPrivateNetworks, urlRefusal } from './address-policy.ts';
import { WebhookDelivery, deliveryView, endpointList, type DeliveryState } from './delivery.ts';
import { DEFAULT_TEST_EVENT_TYPE, WebhookEndpoint, type Assignment, type EndpointState } from './endpoint.ts';
import { deliveryService } from './service.ts';

const TYPE_PATTERN = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/;
const MAX_EVENT_TYPES = 100;

const EndpointCreate = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: 2048, description: 'Absolute http(s) URL that accepts POST and answers 2xx within 5 seconds.' }),
    event_types: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { minItems: 1, maxItems: MAX_EVENT_TYPES, description: 'Event types to receive; ["*"] (the default) means every event.' })),
  },
  { additionalProperties: false },
);

const TestBody = Type.Object(
  { event_type: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: `Type to send; default ${DEFAULT_TEST_EVENT_TYPE}.` })) },
  { additionalProperties: false },
);

const DeliveriesQuery = listQueryWith({ endpoint_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })) });

/** Spec 4.11 url (uri) and event_types; the url also obeys the address policy (docs/gaps.md#delivery). */
function checkEndpointBody(url: string, types: string[], allowPrivate: boolean): void {
  const entries: ValidationEntry[] = [];
  const refusal = urlRefusal(url, allowPrivate);
  if (refusal) entries.push(errorEntry('/url', refusal.code, refusal.detail, entries.length + 1));
  if (types.includes('*') && types.length > 1) {
    entries.push(errorEntry('/event_types', 'invalid_value', 'A single * means every event; it cannot be combined with named types.', entries.length + 1));
  }
  types.forEach((t, i) => {
    if (t !== '*' && !TYPE_PATTERN.test(t)) {
      entries.push(errorEntry(`/event_types/${i}`, 'invalid_format', `${t} is not an event type (module.resource.past_tense_verb).`, entries.length + 1));
    }
  });
  if (new Set(types).size !== types.length) {
    entries.push(errorEntry('/event_types', 'invalid_value', 'event_types lists a type twice.', entries.length + 1));
  }
  if (entries.length) throw validationError(entries);
}

const endpointIdOf = (id: string): string => idOf(id, WebhookEndpoint.prefix, 'webhook endpoint');
const deliveryIdOf = (id: string): string => idOf(id, WebhookDelivery.prefix, 'webhook delivery');

export const routes: RouteDef[] = [
  route({
    method: 'POST',
    path: '/v1/webhook_endpoints',
    auth: 'key',
    module: 'delivery',
    idempotent: true,
    body: EndpointCreate,
    summary: 'Create a webhook endpoint; the signing secret is returned once, in `secret`.',
    specGap: 'The name of the field carrying the secret is not shown: `secret` (docs/gaps.md#delivery).',
    handler: async (req) => {
      const event_types = req.body.event_types ?? ['*'];
      checkEndpointBody(req.body.url, event_types, allowsPrivateNetworks(req.platform.config));
      const { system } = req.platform;
      const id = createdId(req, WebhookEndpoint.prefix);
      const opts = { ...callerOf(req), dedupeId: createDedupe(req) };
      const { secret } = (await system.ask(WebhookEndpoint, id, 'create', { url: req.body.url, event_types, livemode: req.livemode }, opts)) as { secret?: string };
      // Run again after a lost answer, the create applies nothing and the secret shown once is not shown again.
      return { ...(await system.get(WebhookEndpoint, id, req.org) as object), secret: secret ?? null };
    },
  }),
  route({
    method: 'GET',
    path: '/v1/webhook_endpoints',
    auth: 'key',
    module: 'delivery',
    idempotent: false,
    query: ListQuery,
    summary: 'List webhook endpoints, newest first.',
    handler: (req) => listPage(req.platform.system, WebhookEndpoint, req.org, 'all', req.query, 'desc'),
  }),
  route({
    method: 'GET',
    path: '/v1/webhook_endpoints/{id}',
    auth: 'key',
    module: 'delivery',
    idempotent: false,
    summary: 'Retrieve a webhook endpoint.',
    handler: (req) => req.platform.system.get(WebhookEndpoint, endpointIdOf(req.params.id), req.org),
  }),
  route({
    method: 'POST',
    path: '/v1/webhook_endpoints/{id}/rotate_secret',
    auth: 'key',
    module: 'delivery',
    idempotent: false,
    summary: 'Issue a new signing secret (returned once, in `secret`); the previous one stays active for 24 hours.',
    specGap: 'Response shape not shown: the endpoint plus `secret`; the previous secret lives 24 hours (docs/gaps.md#delivery).',
    handler: async (req) => {
      const id = endpointIdOf(req.params.id);
      const { system } = req.platform;
      const { secret } = (await system.ask(WebhookEndpoint, id, 'rotate_secret', {}, callerOf(req))) as { secret: string };
      return { ...(await system.get(WebhookEndpoint, id, req.org) as object), secret };
    },
  }),
  route({
    method: 'POST',
    path: '/v1/webhook_endpoints/{id}/disable',
    auth: 'key',
    module: 'delivery',
    idempotent: false,
    summary: 'Disable a webhook endpoint (sets disabled_at); 409 when it is disabled already.',
    specGap: 'Response shape not shown: the endpoint (docs/gaps.md#delivery).',
    handler: (req) => req.platform.system.ask(WebhookEndpoint, endpointIdOf(req.params.id), 'disable', undefined, callerOf(req)),
  }),
  route({
    method: 'POST',
    path: '/v1/webhook_endpoints/{id}/test',
    auth: 'key',
    module: 'delivery',
    idempotent: false,
    body: TestBody,
    summary: 'Send a test event (is_test true) through the same envelope, signature and retry schedule; 409 when the endpoint is disabled.',
    specGap: 'Request and response shapes not shown: body {event_type?}, answer the WebhookDelivery; a test event has sequence 0 and data {} (docs/gaps.md#delivery).',
    handler: async (req) => {
      const type = req.body?.event_type ?? DEFAULT_TEST_EVENT_TYPE;
      if (!TYPE_PATTERN.test(type)) throw fieldError('/event_type', 'invalid_format', `${type} is not an event type.`);
      const { system } = req.platform;
      const decl = deliveryService(req.platform).catalogue.type(type);
      const opts = callerOf(req);
      const a = (await system.ask(WebhookEndpoint, endpointIdOf(req.params.id), 'test', { event_type: type, source: decl?.source ?? 'delivery', schema_version: decl?.schemaVersion ?? 1 }, opts)) as Assignment;
      return system.ask(WebhookDelivery, a.delivery_id, 'create', a.seed!, { ...opts, principal: 'system' });
    },
  }),
  route({
    method: 'GET',
    path: '/v1/webhook_deliveries',
    auth: 'key',
    module: 'delivery',
    idempotent: false,
    query: DeliveriesQuery,
    summary: 'List webhook deliveries, newest first (by sequence within one endpoint_id), without signed_body and signature_header.',
    handler: async (req) => {
      const { system } = req.platform;
      const page = parseListQuery(req.query);
      const endpoint = req.query.endpoint_id;
      const list = endpoint === undefined ? 'all' : endpointList(endpoint);
      const ids = await system.listIds(WebhookDelivery, req.org, list, { after: page.after, limit: page.limit, order: 'desc' });
      const data = await Promise.all(ids.ids.map(async (id) => deliveryView(await system.state<DeliveryState>(WebhookDelivery, id, req.org), false)));
      return listEnvelope(data, ids.hasMore);
    },
  }),
  route({
    method: 'GET',
    path: '/v1/webhook_deliveries/{id}',
    auth: 'key',
    module: 'delivery',
    idempotent: false,
    summary: 'Retrieve a webhook delivery with signed_body (the exact bytes signed and sent) and signature_header (of the most recent attempt).',
    handler: (req) => req.platform.system.get(WebhookDelivery, deliveryIdOf(req.params.id), req.org),
  }),
  route({
    method: 'POST',
    path: '/v1/webhook_deliveries/{id}/replay',
    auth: 'key',
    module: 'delivery',
    idempotent: false,
    summary: 'Start a delivered or failed delivery again with the same event id and body; 409 while it is in flight or retrying, or when its endpoint is disabled.',
    specGap: 'Response shape not shown: the WebhookDelivery; the same record restarts its ladder (docs/gaps.md#delivery).',
    handler: async (req) => {
      const id = deliveryIdOf(req.params.id);
      const { system } = req.platform;
      const d = await system.state<DeliveryState>(WebhookDelivery, id, req.org);
      const ep = await system.state<EndpointState>(WebhookEndpoint, d.seed!.endpoint_id, req.org);
      if (ep.status === 'disabled') throw conflict(`Webhook endpoint ${ep.id} is disabled; its deliveries cannot be replayed.`);
      return system.ask(WebhookDelivery, id, 'replay', undefined, callerOf(req));
    },
  }),
];
