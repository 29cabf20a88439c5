/**
 * Broadcast (spec 4.6 POST .../broadcasts, GET /v1/sourcing/broadcasts/{broadcast_id}; fields
 * "not shown", docs/gaps.md#sourcing): one version of a published requisition sent to channels,
 * one delivery per channel, with the budget the organisation declared for it. The budget is
 * reserved against the period's spend ceiling before the broadcast exists (broadcasts.ts); no
 * charge is computed (spec 4.6). Its deliveries are actors of their own (channel-delivery.ts);
 * the read gathers their state.
 *
 * status   command       condition                          event                    next
 * -------  ------------  ---------------------------------  -----------------------  -------
 * (none)   create        -                                  broadcast.created        created
 * created  add_delivery  channel not yet in the broadcast   broadcast.channel_added  created
 * created  add_delivery  channel already in the broadcast   409 conflict             created
 */
import { defineActor, type IndexEntry, iso, sortKeyTime } from '../../runtime/index.ts';
import { assertNever, conflict, recordView } from '../../kernel/index.ts';
import { BROADCAST_PREFIX } from './ids.ts';
import type { MoneyAmount } from './taxonomy.ts';

export interface BroadcastDelivery {
  delivery_id: string;
  channel_id: string;
}

export interface BroadcastState {
  id: string;
  org: string;
  livemode: boolean;
  requisition_id: string;
  requisition_version: number;
  period: string;
  /** Declared spend reserved against the period's ceiling: the broadcast's and each added channel's. */
  budget: MoneyAmount;
  deliveries: BroadcastDelivery[];
  created_at: number;
}

export type BroadcastEvent =
  | { type: 'broadcast.created'; livemode: boolean; requisition_id: string; requisition_version: number; period: string; budget: MoneyAmount; deliveries: BroadcastDelivery[] }
  | { type: 'broadcast.channel_added'; delivery: BroadcastDelivery; budget: MoneyAmount };

export const Broadcast = defineActor({
  kind: 'sourcing_broadcast',
  prefix: BROADCAST_PREFIX,
  creates: ['create'],
  initial: (id: string, org: string): BroadcastState => ({ id, org, livemode: false, requisition_id: '', requisition_version: 0, period: '', budget: { amount: 0, currency: 'NGN' }, deliveries: [], created_at: 0 }),
  decide: {
    create(_s: BroadcastState, cmd: Omit<Extract<BroadcastEvent, { type: 'broadcast.created' }>, 'type'>, ctx): BroadcastEvent[] {
      if (ctx.version > 0) return [];
      return [{ type: 'broadcast.created', ...cmd }];
    },
    add_delivery(s: BroadcastState, cmd: BroadcastDelivery & { budget: MoneyAmount }): BroadcastEvent[] {
      const same = s.deliveries.find((d) => d.channel_id === cmd.channel_id);
      if (same?.delivery_id === cmd.delivery_id) return [];
      if (same) throw conflict(`Broadcast ${s.id} already has delivery ${same.delivery_id} to ${cmd.channel_id}; retry it instead.`);
      return [{ type: 'broadcast.channel_added', delivery: { delivery_id: cmd.delivery_id, channel_id: cmd.channel_id }, budget: cmd.budget }];
    },
  },
  evolve(s: BroadcastState, e: BroadcastEvent, meta): BroadcastState {
    switch (e.type) {
      case 'broadcast.created':
        return { ...s, livemode: e.livemode, requisition_id: e.requisition_id, requisition_version: e.requisition_version, period: e.period, budget: e.budget, deliveries: e.deliveries, created_at: meta.at };
      case 'broadcast.channel_added':
        return { ...s, budget: { ...s.budget, amount: s.budget.amount + e.budget.amount }, deliveries: [...s.deliveries, e.delivery] };
      default:
        return assertNever(e);
    }
  },
  view: (s: BroadcastState) => broadcastView(s, undefined),
  indexes(s: BroadcastState): IndexEntry[] {
    const k = sortKeyTime(s.created_at);
    return [
      { list: 'all', sortKey: k },
      { list: `requisition:${s.requisition_id}`, sortKey: k },
    ];
  },
});

export type BroadcastStatus = 'in_progress' | 'delivered' | 'partially_delivered' | 'failed';

/** The broadcast with its deliveries' states when given (the read); status follows them. */
export function broadcastView(s: BroadcastState, deliveries: Array<{ id: string; status: string; [k: string]: unknown }> | undefined) {
  let status: BroadcastStatus | null = null;
  if (deliveries) {
    const st = deliveries.map((d) => d.status);
    status = st.some((x) => x === 'in_flight' || x === 'retrying')
      ? 'in_progress'
      : st.every((x) => x === 'delivered')
        ? 'delivered'
        : st.some((x) => x === 'delivered')
          ? 'partially_delivered'
          : 'failed';
  }
  return recordView('broadcast', s.id, s.livemode, true, {
    requisition_id: s.requisition_id,
    requisition_version: s.requisition_version,
    period: s.period,
    status,
    budget: s.budget,
    channel_ids: s.deliveries.map((d) => d.channel_id),
    deliveries: deliveries ?? s.deliveries.map((d) => ({ id: d.delivery_id, channel_id: d.channel_id })),
    created_at: iso(s.created_at),
  });
}
