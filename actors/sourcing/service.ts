/**
 * The sourcing area's node-local process: the compiled fair-hiring pack, the occupation taxonomy
 * and the channel provider a platform uses, and, when this node commits a delivery's attempt
 * (delivery.attempt_started), the post of that attempt to its channel (channel-deliveries.ts).
 */
import { type Platform, serviceKey } from '../../kernel/index.ts';
import type { Committed } from '../../runtime/index.ts';
import { postAttempt } from './channel-deliveries.ts';
import { ChannelDelivery, type DeliveryState } from './channel-delivery.ts';
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
      postAttempt(this.platform, this.provider, c.org, c.id, c.state as DeliveryState, attempt);
    }
  }
}

export const SOURCING = serviceKey<SourcingService>('sourcing');

export const sourcing = (platform: Platform): SourcingService => platform.services.require(SOURCING);
