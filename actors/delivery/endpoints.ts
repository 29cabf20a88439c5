/**
 * The webhook endpoint operations the routes call (spec 4.11): create and rotate answer the
 * endpoint with its signing secret, shown once; a test event is assigned by the endpoint (its
 * sequence and envelope) and then made a delivery like any other, so it is signed and retried the
 * same way (spec 6.2).
 */
import { type Caller, createDedupe, createdId, type Platform } from '../../kernel/index.ts';
import { WebhookDelivery } from './delivery.ts';
import { type Assignment, WebhookEndpoint } from './endpoint.ts';
import { deliveryService } from './service.ts';

/** POST /v1/webhook_endpoints: the endpoint plus `secret` (docs/gaps.md#delivery). */
export async function createEndpoint(platform: Platform, caller: Caller, url: string, eventTypes: string[]): Promise<unknown> {
  const { system } = platform;
  const id = createdId(caller, WebhookEndpoint.prefix);
  const opts = { ...caller, dedupeId: createDedupe(caller) };
  const { secret } = (await system.ask(WebhookEndpoint, id, 'create', { url, event_types: eventTypes, livemode: caller.livemode }, opts)) as { secret?: string };
  // Run again after a lost answer, the create applies nothing and the secret shown once is not shown again.
  return { ...(await system.get(WebhookEndpoint, id, caller.org) as object), secret: secret ?? null };
}

/** POST /v1/webhook_endpoints/{id}/rotate_secret: the endpoint plus the new `secret`. */
export async function rotateSecret(platform: Platform, caller: Caller, id: string): Promise<unknown> {
  const { system } = platform;
  const { secret } = (await system.ask(WebhookEndpoint, id, 'rotate_secret', {}, caller)) as { secret: string };
  return { ...(await system.get(WebhookEndpoint, id, caller.org) as object), secret };
}

export function disableEndpoint(platform: Platform, caller: Caller, id: string): Promise<unknown> {
  return platform.system.ask(WebhookEndpoint, id, 'disable', undefined, caller);
}

/** POST /v1/webhook_endpoints/{id}/test: the test event's WebhookDelivery (is_test true). */
export async function testEndpoint(platform: Platform, caller: Caller, id: string, type: string): Promise<unknown> {
  const { system } = platform;
  const decl = deliveryService(platform).catalogue.type(type);
  const a = (await system.ask(WebhookEndpoint, id, 'test', { event_type: type, source: decl?.source ?? 'delivery', schema_version: decl?.schemaVersion ?? 1 }, caller)) as Assignment;
  return system.ask(WebhookDelivery, a.delivery_id, 'create', a.seed!, { ...caller, principal: 'system' });
}
