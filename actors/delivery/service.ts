/**
 * The delivery area's running parts on one platform: the catalogue, the event feed reader and the
 * attempt dispatcher, wired to the actor system. Kept in platform.services under DELIVERY so that
 * routes and tests of the same platform find them (a test may run several platforms).
 */
import { serviceKey, type Platform } from '../../kernel/index.ts';
import { type Committed, DerivedRecords, type TimerHost } from '../../runtime/index.ts';
import type { AuditFacts } from './audit-entry.ts';
import { EventCatalogue } from './catalogue.ts';
import { WebhookDelivery, type DeliveryState } from './delivery.ts';
import { AttemptDispatcher, DEFAULT_DISPATCHER } from './dispatcher.ts';
import { EventFeed } from './feed.ts';
import { rebuildRecords } from './rebuild.ts';
import type { StoredPublicEvent } from './public-event.ts';

function positiveInt(v: string | undefined, fallback: number): number {
  const n = v === undefined ? NaN : Number(v);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

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
  readonly records: { audit: DerivedRecords<AuditFacts>; events: DerivedRecords<StoredPublicEvent> };
  private readonly feed: EventFeed;
  private readonly dispatcher: AttemptDispatcher;
  private unsubscribe: (() => void) | undefined;
  private detach: (() => void) | undefined;
  private unregister: (() => void) | undefined;
  private readonly ownKinds: ReadonlySet<string>;

  constructor(private readonly platform: Platform, ownKinds: readonly string[]) {
    this.ownKinds = new Set(ownKinds);
    this.catalogue = new EventCatalogue(platform.areas);
    for (const p of this.catalogue.problems) console.error(`[delivery] event declaration refused: ${p}`);
    this.records = { audit: new DerivedRecords(platform.stores, 'audit_entry'), events: new DerivedRecords(platform.stores, 'public_event') };
    this.feed = new EventFeed(platform, this.catalogue, ownKinds, this.records.audit, this.records.events);
    this.dispatcher = new AttemptDispatcher(platform, {
      ...DEFAULT_DISPATCHER,
      timeoutMs: positiveInt(platform.config.WEBHOOK_RECEIVER_TIMEOUT_MS, DEFAULT_DISPATCHER.timeoutMs),
      perEndpoint: positiveInt(platform.config.WEBHOOK_CONCURRENCY_PER_ENDPOINT, DEFAULT_DISPATCHER.perEndpoint),
    });
  }

  async start(): Promise<void> {
    this.unsubscribe = this.platform.system.onCommit((c) => this.onCommit(c));
    this.detach = this.platform.clock.attach(this);
    // where these records can be lost apart from the journal, they are rebuilt with the lists
    this.unregister = this.platform.system.derived?.also({ name: 'audit entries and public events', run: (keepGoing) => this.rebuild(keepGoing) });
    await this.feed.start();
  }

  private rebuild(keepGoing: () => Promise<boolean>): Promise<number> {
    const defs = new Map(this.platform.areas.flatMap((a) => a.kinds.map((d) => [d.kind, d] as const)));
    return rebuildRecords({ journal: this.platform.stores.journal, catalogue: this.catalogue, defs, ownKinds: this.ownKinds, ...this.records }, keepGoing);
  }

  async stop(): Promise<void> {
    this.detach?.();
    this.unsubscribe?.();
    this.unregister?.();
    this.dispatcher.stop();
    await this.feed.stop();
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
