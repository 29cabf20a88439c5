/**
 * The delivery area's node-local process (docs/architecture.md "Adding an area"), started by its
 * face: the catalogue, the event feed reader (feed.ts), the rebuild of its records (rebuild.ts) and
 * the attempt dispatcher (dispatcher.ts), on one platform. Kept in platform.services under DELIVERY
 * and reached through deliveryService, so routes and tests of the same platform find it (a test may
 * run several platforms).
 */
import { logOf, serviceKey, type Platform } from '../../kernel/index.ts';
import type { Committed, Figure, TimerHost } from '../../runtime/index.ts';
import { openConnections } from './connections.ts';
import { EventCatalogue } from './catalogue.ts';
import { WebhookDelivery, type DeliveryState } from './delivery.ts';
import { AttemptDispatcher } from './dispatcher.ts';
import { EventFeed } from './feed.ts';
import { type ProjectedRecords, projectedRecords } from './projection.ts';
import { rebuildRecords } from './rebuild.ts';

/**
 * Also a timer host of the clock: with a manual clock the feed and the HTTP of attempts are work
 * the clock does not wait for. Attached, the service makes ManualClock.advance() let the feed catch
 * up and every started attempt finish and report before time moves on to the next due reminder
 * (an attempt's watchdog, say), as in real time, where an attempt ends within 5 s. With the
 * system clock attach() does nothing.
 */
export class DeliveryService implements TimerHost {
  readonly catalogue: EventCatalogue;
  /** Audit entries and public events: write-once records derived from the journal. */
  readonly records: ProjectedRecords;
  private readonly feed: EventFeed;
  private readonly dispatcher: AttemptDispatcher;
  private unsubscribe: (() => void) | undefined;
  private detach: (() => void) | undefined;
  private unregister: (() => void) | undefined;
  private unboard: (() => void) | undefined;
  private readonly ownKinds: ReadonlySet<string>;

  constructor(private readonly platform: Platform, ownKinds: readonly string[]) {
    this.ownKinds = new Set(ownKinds);
    this.catalogue = new EventCatalogue(platform.areas);
    for (const p of this.catalogue.problems) logOf('delivery').error('event declaration refused', undefined, { problem: p });
    this.records = projectedRecords(platform);
    this.feed = new EventFeed(platform, this.catalogue, this.ownKinds, this.records);
    this.dispatcher = new AttemptDispatcher(platform);
  }

  async start(): Promise<void> {
    this.unsubscribe = this.platform.system.onCommit((c) => this.onCommit(c));
    this.unboard = this.platform.system.board.add('delivery', () => this.figures());
    this.detach = this.platform.clock.attach(this);
    // where these records can be lost apart from the journal, they are rebuilt with the lists
    this.unregister = this.platform.system.derived?.also({
      name: 'audit entries and public events',
      run: (keepGoing) => rebuildRecords(this.platform, { catalogue: this.catalogue, ownKinds: this.ownKinds, ...this.records }, keepGoing),
    });
    await this.feed.start();
  }

  /**
   * The process is stopping (SIGTERM): no more attempts, queued ones dropped and those in flight
   * abandoned, each left to its delivery's durable watchdog (dispatcher.ts). Called before the
   * gateway's grace, so a webhook backlog never holds the exit.
   */
  stopAttempts(): void {
    this.dispatcher.stop();
  }

  async stop(): Promise<void> {
    this.detach?.();
    this.unsubscribe?.();
    this.unregister?.();
    this.unboard?.();
    this.dispatcher.stop();
    await this.feed.stop();
  }

  /** Webhook figures for the metrics (docs/gaps.md#metrics), read from the dispatcher's tallies at a scrape (the event feed's lag is the runtime's, as every reader's). */
  figures(): Figure[] {
    const { tallies } = this.dispatcher;
    const { queued, inFlight, dnsQueries } = this.dispatcher.depth;
    const attempts = 'Webhook attempts ended on this node, by outcome: an answer (2xx, non_2xx), a spec 2.12 fault, refused by the address rule, not sent (left_to_watchdog), or given up at shutdown (abandoned).';
    const outcome = (name: string, value: number): Figure => ({ name: 'platform_webhook_attempts_total', help: attempts, type: 'counter', labels: { outcome: name }, value });
    return [
      ...Object.entries(tallies.outcomes).map(([k, v]) => outcome(k, v)),
      outcome('left_to_watchdog', tallies.leftToWatchdog),
      outcome('abandoned', tallies.abandoned),
      { name: 'platform_webhook_attempts_queued', help: 'Webhook attempts waiting their turn in the fair queue.', type: 'gauge', value: queued },
      { name: 'platform_webhook_attempts_in_flight', help: 'Webhook attempts resolving, connecting or waiting for an answer.', type: 'gauge', value: inFlight },
      { name: 'platform_webhook_dns_queries_total', help: 'DNS queries sent for webhook hosts (answers kept for their TTL are not asked again).', type: 'counter', value: dnsQueries },
      { name: 'platform_webhook_connections_open', help: 'Outbound webhook connections open: carrying an attempt or kept alive for the next.', type: 'gauge', value: openConnections() },
    ];
  }

  async nextDue(): Promise<number | undefined> {
    return undefined;
  }

  async fireDue(): Promise<void> {
    while (!this.feed.idle || !this.dispatcher.idle) {
      await this.feed.caughtUp();
      await this.dispatcher.finished();
    }
  }

  private onCommit(c: Committed): void {
    if (c.kind !== WebhookDelivery.kind) return;
    const started = c.events.find((e) => e.type === 'delivery.attempt_started');
    if (!started) return;
    const s = c.state as DeliveryState;
    this.dispatcher.submit({ org: c.org, deliveryId: c.id, endpointId: s.seed!.endpoint_id, attempt: s.attempts, at: started.at });
  }
}

/** The delivery area's running service on a platform (registered in its start). */
export const DELIVERY = serviceKey<DeliveryService>('delivery');

export const deliveryService = (platform: Platform): DeliveryService => platform.services.require(DELIVERY);
