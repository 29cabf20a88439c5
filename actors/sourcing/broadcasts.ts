/**
 * Broadcast operations (spec 4.6 POST .../broadcasts, GET /v1/sourcing/broadcasts/{id}, POST
 * .../deliveries/{delivery_id}/retry, GET and POST /v1/sourcing/deliveries; spec 7: "a broadcast
 * over a spend ceiling is refused before any charge"). Steps, each safe to run again with the same
 * Idempotency-Key: check the requisition is published; reserve the declared budget on the
 * period's spend ceiling (refused there when it would exceed it); create the broadcast and one
 * delivery per channel (each posts at once, service.ts); record the broadcast on the requisition,
 * which fixes the version it carried (an edit after it makes a new version, spec 3).
 */
import { iso } from '../../runtime/index.ts';
import { type Caller, conflict, createDedupe, createdId, derivedId, errorEntry, idOf, notFound, type Platform, type ValidationEntry, validationError } from '../../kernel/index.ts';
import { variantFor } from './artefacts.ts';
import { Broadcast, broadcastView } from './broadcast.ts';
import { ChannelDelivery } from './channel-delivery.ts';
import { BROADCAST_PREFIX, DELIVERY_PREFIX, SPEND_CEILING_PREFIX } from './ids.ts';
import { current, Requisition, type RequisitionState } from './requisition.ts';
import { requisitionId } from './requisitions.ts';
import { sourcing, type SourcingService } from './service.ts';
import { SPEND_CURRENCY, SpendCeiling } from './spend-ceiling.ts';
import type { MoneyAmount } from './taxonomy.ts';

export const broadcastId = (id: string) => idOf(id, BROADCAST_PREFIX, 'broadcast');
export const deliveryId = (id: string) => idOf(id, DELIVERY_PREFIX, 'delivery');

/** The ceiling actor of an organisation's period: one per (organisation, YYYY-MM). */
export const ceilingId = (org: string, period: string) => derivedId(SPEND_CEILING_PREFIX, [org, period]);
export const periodOf = (ms: number) => iso(ms).slice(0, 7);

function checkSpend(money: MoneyAmount, field: string): ValidationEntry[] {
  return money.currency === SPEND_CURRENCY ? [] : [errorEntry(`${field}/currency`, 'unsupported_currency', `Spend is declared in ${SPEND_CURRENCY}.`)];
}

function checkChannels(svc: SourcingService, ids: string[]): ValidationEntry[] {
  return ids.flatMap((id, i) => (svc.channel(id) ? [] : [errorEntry(`/channel_ids/${i}`, 'unknown_channel', `${id} is not a channel (GET /v1/sourcing/channels).`, i + 1)]));
}

function published(s: RequisitionState): void {
  if (s.status !== 'published') throw conflict(`Requisition ${s.id} is ${s.status}; only a published requisition is broadcast.`);
}

function reserve(platform: Platform, caller: Caller, ref: string, amount: number) {
  const period = periodOf(platform.clock.now());
  return { period, done: platform.system.ask(SpendCeiling, ceilingId(caller.org, period), 'reserve', { period, ref, amount, livemode: caller.livemode }, { ...caller, dedupeId: undefined }) };
}

function seedFor(svc: SourcingService, s: RequisitionState, version: number, broadcast: string, channel: string, livemode: boolean) {
  const ch = svc.channel(channel)!;
  const v = s.versions.find((x) => x.version === version)!;
  return { broadcast_id: broadcast, requisition_id: s.id, requisition_version: version, channel_id: channel, text: variantFor(v.content, svc.taxonomy, ch), retry_schedule_seconds: ch.retry_schedule_seconds, livemode };
}

export async function createBroadcast(platform: Platform, caller: Caller, reqId: string, body: { channel_ids: string[]; budget: MoneyAmount }) {
  const svc = sourcing(platform);
  const entries = [...checkChannels(svc, body.channel_ids), ...checkSpend(body.budget, '/budget')];
  if (entries.length) throw validationError(entries, Math.max(1, body.channel_ids.length));
  const s = await platform.system.state(Requisition, requisitionId(reqId), caller.org);
  published(s);
  const version = current(s).version;
  const id = createdId(caller, BROADCAST_PREFIX);
  const { period, done } = reserve(platform, caller, id, body.budget.amount);
  await done;
  const deliveries = body.channel_ids.map((ch) => ({ delivery_id: derivedId(DELIVERY_PREFIX, [id, ch]), channel_id: ch }));
  await platform.system.ask(Broadcast, id, 'create', { livemode: caller.livemode, requisition_id: s.id, requisition_version: version, period, budget: body.budget, deliveries }, { ...caller, dedupeId: createDedupe(caller) });
  for (const d of deliveries) await platform.system.ask(ChannelDelivery, d.delivery_id, 'create', seedFor(svc, s, version, id, d.channel_id, caller.livemode), { ...caller, noReply: true });
  await platform.system.ask(Requisition, s.id, 'record_broadcast', { broadcast_id: id, version }, { ...caller, noReply: true });
  return getBroadcast(platform, caller, id);
}

export async function getBroadcast(platform: Platform, caller: Caller, id: string) {
  const b = await platform.system.state(Broadcast, broadcastId(id), caller.org);
  const deliveries = (await Promise.all(b.deliveries.map((d) => platform.system.get(ChannelDelivery, d.delivery_id, caller.org)))) as Array<{ id: string; status: string }>;
  return broadcastView(b, deliveries);
}

/** POST /v1/sourcing/deliveries: sends a broadcast's version to one more channel, its budget reserved like a broadcast's. */
export async function addDelivery(platform: Platform, caller: Caller, body: { broadcast_id: string; channel_id: string; budget: MoneyAmount }) {
  const svc = sourcing(platform);
  const entries = [...checkChannels(svc, [body.channel_id]).map((e) => ({ ...e, field: '/channel_id' })), ...checkSpend(body.budget, '/budget')];
  if (entries.length) throw validationError(entries, 1);
  const b = await platform.system.state(Broadcast, broadcastId(body.broadcast_id), caller.org);
  const s = await platform.system.state(Requisition, b.requisition_id, caller.org);
  published(s);
  const existing = b.deliveries.find((d) => d.channel_id === body.channel_id);
  if (existing) throw conflict(`Broadcast ${b.id} already has delivery ${existing.delivery_id} to ${body.channel_id}; retry it instead.`);
  const id = derivedId(DELIVERY_PREFIX, [b.id, body.channel_id]);
  await reserve(platform, caller, id, body.budget.amount).done;
  await platform.system.ask(Broadcast, b.id, 'add_delivery', { delivery_id: id, channel_id: body.channel_id, budget: body.budget }, caller);
  return platform.system.ask(ChannelDelivery, id, 'create', seedFor(svc, s, b.requisition_version, b.id, body.channel_id, caller.livemode), { ...caller, dedupeId: createDedupe(caller) });
}

export async function retryDelivery(platform: Platform, caller: Caller, broadcast: string, delivery: string) {
  const d = await platform.system.state(ChannelDelivery, deliveryId(delivery), caller.org);
  if (d.seed?.broadcast_id !== broadcastId(broadcast)) throw notFound(`delivery of broadcast ${broadcast}`, d.id);
  return platform.system.ask(ChannelDelivery, d.id, 'retry', {}, caller);
}

/** POST /v1/sourcing/spend_ceilings: sets the ceiling of a period (the current one by default). */
export function setSpendCeiling(platform: Platform, caller: Caller, body: { period?: string; amount: MoneyAmount }) {
  const entries = checkSpend(body.amount, '/amount');
  if (entries.length) throw validationError(entries, 1);
  const period = body.period ?? periodOf(platform.clock.now());
  return platform.system.ask(SpendCeiling, ceilingId(caller.org, period), 'set', { period, amount: body.amount.amount, livemode: caller.livemode }, { ...caller, dedupeId: createDedupe(caller) });
}
