/**
 * Delivery routes (spec 4.11; scopes delivery:read, delivery:write): webhook endpoints and
 * webhook deliveries. Shapes the spec leaves "not shown" are filled minimally (docs/gaps.md#delivery).
 */
import { Type } from '@sinclair/typebox';
import { callerOf, errorEntry, fieldError, idOf, listPage, ListQuery, listQueryWith, route, type RouteDef, type ValidationEntry, validationError } from '../../kernel/index.ts';
import { allowsPrivateNetworks, urlRefusal } from './address-policy.ts';
import { listDeliveries, replayDelivery } from './deliveries.ts';
import { WebhookDelivery } from './delivery.ts';
import { DEFAULT_TEST_EVENT_TYPE, WebhookEndpoint } from './endpoint.ts';
import { createEndpoint, disableEndpoint, rotateSecret, testEndpoint } from './endpoints.ts';

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
      return createEndpoint(req.platform, callerOf(req), req.body.url, event_types);
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
    handler: async (req) => rotateSecret(req.platform, callerOf(req), endpointIdOf(req.params.id)),
  }),
  route({
    method: 'POST',
    path: '/v1/webhook_endpoints/{id}/disable',
    auth: 'key',
    module: 'delivery',
    idempotent: false,
    summary: 'Disable a webhook endpoint (sets disabled_at); 409 when it is disabled already.',
    specGap: 'Response shape not shown: the endpoint (docs/gaps.md#delivery).',
    handler: (req) => disableEndpoint(req.platform, callerOf(req), endpointIdOf(req.params.id)),
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
      return testEndpoint(req.platform, callerOf(req), endpointIdOf(req.params.id), type);
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
    handler: async (req) => listDeliveries(req.platform, req.org, req.query.endpoint_id, req.query),
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
    handler: async (req) => replayDelivery(req.platform, callerOf(req), deliveryIdOf(req.params.id)),
  }),
];
