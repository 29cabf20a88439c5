/**
 * Reads of the reference data the sourcing service holds for this platform (spec 4.6; shapes not
 * shown, docs/gaps.md#sourcing): the job channels of its provider, the occupation taxonomy in use
 * and the fair-hiring rule pack requisitions are screened with.
 */
import { idOf, listEnvelope, notFound, type Platform } from '../../kernel/index.ts';
import { CHANNEL_PREFIX, TAXONOMY_PREFIX } from './ids.ts';
import type { Channel } from './providers/channels.ts';
import { sourcing } from './service.ts';
import { allTaxonomies } from './taxonomy.ts';

function channelView(c: Channel) {
  return { id: c.id, object: 'channel' as const, livemode: false, mocked: true, name: c.name, kind: c.kind, posting: c.posting, sandbox_behaviour: c.behaviour, max_length: c.max_length, retry_schedule_seconds: c.retry_schedule_seconds, description: c.description };
}

/** GET /v1/sourcing/channels: in the provider's order, paged by starting_after. */
export function listChannels(platform: Platform, query: { limit?: number; starting_after?: string }) {
  const all = sourcing(platform).channels().map(channelView);
  const start = query.starting_after ? all.findIndex((c) => c.id === query.starting_after) + 1 : 0;
  if (query.starting_after && start === 0) return listEnvelope([], false);
  const limit = query.limit ?? 25;
  return listEnvelope(all.slice(start, start + limit), start + limit < all.length);
}

export function getChannel(platform: Platform, channelId: string) {
  const c = sourcing(platform).channel(idOf(channelId, CHANNEL_PREFIX, 'channel'));
  if (!c) throw notFound('channel', channelId);
  return channelView(c);
}

/** A taxonomy by id, saying whether it is the one inference uses here. */
export function getTaxonomy(platform: Platform, taxonomyId: string, livemode: boolean) {
  const t = allTaxonomies().get(idOf(taxonomyId, TAXONOMY_PREFIX, 'taxonomy'));
  if (!t) throw notFound('taxonomy', taxonomyId);
  const { id, ...rest } = t.taxonomy;
  return { id, object: 'taxonomy', livemode, mocked: false, content_hash: t.hash, in_use: sourcing(platform).taxonomy === t, ...rest };
}

export function currentRulePack(platform: Platform, livemode: boolean) {
  const c = sourcing(platform).pack;
  return { object: 'rule_pack', livemode, mocked: false, pack_id: c.pack.pack_id, version: c.pack.version, content_hash: c.hash, legal_approval_reference: c.pack.legal_approval_reference, rule_count: c.pack.rules.length, rules: c.pack.rules };
}
