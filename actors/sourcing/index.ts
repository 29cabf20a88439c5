/**
 * Public face of the sourcing area (spec 2.7, 3 Requisition, 4.6): requisitions with inferred
 * fields and their confirmation, the Nigerian fair-hiring rule pack that quarantines job text,
 * versions, publishing, broadcasts to channels within spend ceilings, and leads, whose promotion
 * makes a subject (a subject_ref) the identity, credentials, engagements and allocation modules
 * take. Other areas and the bench import only this.
 */
import type { Area } from '../../kernel/index.ts';
import { Broadcast } from './broadcast.ts';
import { ChannelDelivery } from './channel-delivery.ts';
import { events } from './events.ts';
import { fairHiringPack } from './fair-hiring.ts';
import { Lead } from './lead.ts';
import { SandboxChannels } from './providers/channels.ts';
import { Requisition } from './requisition.ts';
import { routes } from './routes.ts';
import { SOURCING, SourcingService } from './service.ts';
import { SourcingImport } from './import.ts';
import { SpendCeiling } from './spend-ceiling.ts';
import { taxonomy } from './taxonomy.ts';

export { Requisition, Broadcast, ChannelDelivery, Lead, SpendCeiling, SourcingImport };
export { REQUISITION_PREFIX, LEAD_PREFIX, SUBJECT_PREFIX } from './ids.ts';
export { compilePack, fairHiringPack, matchText, screen, type CompiledPack, type FairHiringPack, type FairHiringRule, type ScreeningFinding } from './fair-hiring.ts';
export { SANDBOX_CHANNELS, type Channel, type ChannelProvider } from './providers/channels.ts';

export const area: Area = {
  name: 'sourcing',
  kinds: [Requisition, Broadcast, ChannelDelivery, Lead, SpendCeiling, SourcingImport],
  routes,
  events,
  start(platform) {
    const s = new SourcingService(
      platform,
      fairHiringPack(platform.config.SOURCING_RULE_PACK_VERSION || undefined),
      taxonomy(platform.config.SOURCING_TAXONOMY_VERSION || undefined),
      new SandboxChannels(),
    );
    platform.services.provide(SOURCING, s);
    s.start();
  },
  stop(platform) {
    platform.services.remove(SOURCING)?.stop();
  },
};
