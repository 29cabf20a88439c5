/**
 * The webhook delivery operations the routes call (spec 4.11): a list answers each delivery
 * without signed_body and signature_header, and a replay starts the same record again unless its
 * endpoint is disabled (docs/gaps.md#delivery).
 */
import { type Caller, conflict, listEnvelope, type ListEnvelope, parseListQuery, type Platform } from '../../kernel/index.ts';
import { type DeliveryState, deliveryView, endpointList, WebhookDelivery } from './delivery.ts';
import { type EndpointState, WebhookEndpoint } from './endpoint.ts';

/** GET /v1/webhook_deliveries: newest first, by sequence within one endpoint when endpoint_id is given. */
export async function listDeliveries(platform: Platform, org: string, endpointId: string | undefined, query: { limit?: number; starting_after?: string } | undefined): Promise<ListEnvelope<unknown>> {
  const { system } = platform;
  const page = parseListQuery(query);
  const list = endpointId === undefined ? 'all' : endpointList(endpointId);
  const ids = await system.listIds(WebhookDelivery, org, list, { after: page.after, limit: page.limit, order: 'desc' });
  const data = await Promise.all(ids.ids.map(async (id) => deliveryView(await system.state<DeliveryState>(WebhookDelivery, id, org), false)));
  return listEnvelope(data, ids.hasMore);
}

/** POST /v1/webhook_deliveries/{id}/replay: 409 while its endpoint is disabled; the delivery refuses one in flight or retrying. */
export async function replayDelivery(platform: Platform, caller: Caller, id: string): Promise<unknown> {
  const { system } = platform;
  const d = await system.state<DeliveryState>(WebhookDelivery, id, caller.org);
  const ep = await system.state<EndpointState>(WebhookEndpoint, d.seed!.endpoint_id, caller.org);
  if (ep.status === 'disabled') throw conflict(`Webhook endpoint ${ep.id} is disabled; its deliveries cannot be replayed.`);
  return system.ask(WebhookDelivery, id, 'replay', undefined, caller);
}
