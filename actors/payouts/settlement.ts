/**
 * Settlement (spec 4.10; its fields are not shown: docs/gaps.md#payouts). A settlement is made for
 * a final instruction: what settled, per rail, and a receipt whose digest covers it. Making it
 * reconciles each rail's own statement against our payouts (reconciliation.ts). Made once and
 * never edited (spec 1 rule 4).
 *
 * status  command  condition           event               next
 * ------  -------  ------------------  ------------------  --------------------
 * (none)  create   instruction final   settlement.created  made
 * made    create   -                   -                   (the same record)
 */
import { defineActor, iso } from '../../runtime/index.ts';
import { oneShotRecord, type OneShotState, recordView } from '../../kernel/index.ts';
import { SETTLEMENT_PREFIX } from './ids.ts';

export interface RailTotal {
  rail_id: string;
  count: number;
  amount: number;
}

export interface CreateSettlement {
  livemode: boolean;
  instruction_id: string;
  run_id: string | null;
  instruction_status: string;
  currency: string;
  settled_count: number;
  settled_amount: number;
  failed_count: number;
  held_count: number;
  /** Payouts reversed (credits returned) by the time the settlement was made; absent on older ones. */
  reversed_count?: number;
  by_rail: RailTotal[];
  reconciliation_ids: string[];
  exception_count: number;
  receipt_digest: string;
}

export type SettlementState = OneShotState & CreateSettlement;

export const Settlement = defineActor({
  kind: 'payout_settlement',
  prefix: SETTLEMENT_PREFIX,
  ...oneShotRecord(
    'settlement.created',
    (): CreateSettlement => ({ livemode: false, instruction_id: '', run_id: null, instruction_status: '', currency: 'NGN', settled_count: 0, settled_amount: 0, failed_count: 0, held_count: 0, by_rail: [], reconciliation_ids: [], exception_count: 0, receipt_digest: '' }),
    { command: 'create', lists: (s) => [`instruction:${s.instruction_id}`] },
  ),
  view: settlementView,
});

export function settlementView(s: SettlementState) {
  return recordView('payout_settlement', s.id, s.livemode, true, {
    instruction_id: s.instruction_id,
    run_id: s.run_id,
    instruction_status: s.instruction_status,
    settled_count: s.settled_count,
    settled_amount: { amount: s.settled_amount, currency: s.currency },
    failed_count: s.failed_count,
    held_count: s.held_count,
    reversed_count: s.reversed_count ?? 0,
    by_rail: s.by_rail.map((r) => ({ rail_id: r.rail_id, count: r.count, amount: { amount: r.amount, currency: s.currency } })),
    reconciliation_ids: s.reconciliation_ids,
    exception_count: s.exception_count,
    status: s.exception_count === 0 ? 'reconciled' : 'exceptions_open',
    created_at: iso(s.created_at),
  });
}
