/**
 * Public face of the delivery area and the event system (spec 2.12, 3, 4.11, 6, 8).
 * Other areas only declare `events` on their Area; this area turns their committed journal events
 * into audit entries, sequenced public events and signed webhook deliveries.
 */
import type { Area, Platform } from '../../kernel/index.ts';
import { WebhookDelivery } from './delivery.ts';
import { WebhookEndpoint } from './endpoint.ts';
import { EventStream } from './event-stream.ts';
import { moduleEventRoutes } from './module-routes.ts';
import { routes } from './routes.ts';
import { DELIVERY, DeliveryService } from './service.ts';

export { EventCatalogue, renderCatalogue, type CatalogueEntry } from './catalogue.ts';
export { ATTEMPT_WATCHDOG_MS, RETRY_SCHEDULE_SECONDS, type DeliveryStatus, type Fault } from './delivery.ts';
export { DEFAULT_TEST_EVENT_TYPE, PREVIOUS_SECRET_LIFETIME_MS } from './endpoint.ts';
export type { EventEnvelope } from './envelope.ts';
export { SIGNATURE_HEADER } from './webhook-signature.ts';
export { deliveryService } from './service.ts';

/** SIGTERM's first step (main.ts): webhook attempts stop at once and stay pending for a restart (docs/gaps.md#delivery "Shutdown"). */
export function stopWebhookAttempts(platform: Platform): void {
  platform.services.get(DELIVERY)?.stopAttempts();
}

const kinds = [EventStream, WebhookEndpoint, WebhookDelivery];

export const area: Area = {
  name: 'delivery',
  kinds,
  routes: [...routes, ...moduleEventRoutes],
  async start(platform: Platform) {
    const service = new DeliveryService(platform, kinds.map((k) => k.kind));
    platform.services.provide(DELIVERY, service);
    await service.start();
  },
  async stop(platform: Platform) {
    await platform.services.remove(DELIVERY)?.stop();
  },
};
