/**
 * The sourcing area's running service: the compiled fair-hiring pack, the occupation taxonomy and
 * the channel provider a platform uses, and the one piece of I/O of the area: when a delivery
 * starts an attempt (delivery.attempt_started, committed), post to the channel and report the
 * outcome back to the delivery, which decides what follows (channel-delivery.ts). Each post is
 * tracked by the actor system, so `system.settle()` waits for it before a test moves the clock.
 */
import { type Platform, serviceKey } from '../../kernel/index.ts';
import type { Committed } from '../../runtime/index.ts';
import { ChannelDelivery, type DeliveryState, type RecordAttempt } from './channel-delivery.ts';
import type { CompiledPack } from './fair-hiring.ts';
import type { Channel, ChannelProvider } from './providers/channels.ts';
import type { LoadedTaxonomy } from './taxonomy.ts';

export class SourcingService {
  private unsubscribe: (() => void) | undefined;
  private readonly byId: Map<string, Channel>;

  constructor(
    private readonly platform: Platform,
    readonly pack: CompiledPack,
    readonly taxonomy: LoadedTaxonomy,
    readonly provider: ChannelProvider,
  ) {
    this.byId = new Map(provider.channels().map((c) => [c.id, c]));
  }

  start(): void {
    this.unsubscribe = this.platform.system.onCommit((c) => this.onCommit(c));
  }

  stop(): void {
    this.unsubscribe?.();
  }

  channels(): readonly Channel[] {
    return this.provider.channels();
  }

  channel(id: string): Channel | undefined {
    return this.byId.get(id);
  }

  private onCommit(c: Committed): void {
    if (c.kind !== ChannelDelivery.kind) return;
    for (const e of c.events) {
      if (e.type !== 'delivery.attempt_started') continue;
      const attempt = (e.data as { attempt: number }).attempt;
      this.post(c.org, c.id, c.state as DeliveryState, attempt);
    }
  }

  private post(org: string, id: string, s: DeliveryState, attempt: number): void {
    const seed = s.seed!;
    const system = this.platform.system;
    const done = this.provider
      .post({ channel_id: seed.channel_id, delivery_id: id, attempt, external_id: `${seed.requisition_id}.v${seed.requisition_version}`, text: seed.text })
      .then((o) => {
        const cmd: RecordAttempt = o.outcome === 'accepted' ? { attempt, outcome: o.outcome, detail: o.detail, external_ref: o.external_ref } : { attempt, outcome: o.outcome, detail: o.detail };
        return system.ask(ChannelDelivery, id, 'record_attempt', cmd, { org, principal: 'system', lane: 'system', dedupeId: `attempt:${attempt}`, noReply: true });
      })
      // an outcome that cannot be recorded (the node stopping) is left to the delivery's watchdog
      .catch((err) => {
        if (!system.stopping) console.error(`[sourcing] attempt ${attempt} of ${id} not recorded; its watchdog will count it as a time-out`, err);
      });
    void system.track(done);
  }
}

export const SOURCING = serviceKey<SourcingService>('sourcing');

export const sourcing = (platform: Platform): SourcingService => platform.services.require(SOURCING);
