/**
 * Settlement and reconciliation (spec 4.10; their fields are not shown: docs/gaps.md#payouts).
 * A settlement is made for a final instruction: what settled, per rail, and a receipt whose digest
 * covers it. Making it reconciles each rail's own statement against our payouts; every mismatch is
 * an exception (kinds below). Both are made once and never edited (spec 1 rule 4).
 *
 * record          status  command  condition           event                     next
 * --------------  ------  -------  ------------------  ------------------------  --------------------
 * settlement      (none)  create   instruction final   settlement.created        made
 * reconciliation  (none)  create   -                   reconciliation.completed  matched | exceptions
 * either          made    create   -                   - (the same record)       (same)
 *
 * Exception kinds: missing_on_rail (we hold it settled, the rail has no settled transfer),
 * unknown_to_us (the rail settled, or returned, a transfer whose attempt we do not hold so),
 * amount_mismatch, paid_twice (one payout settled by more than one transfer). A credit the
 * statement shows returned is first recorded as the payout's reversal, then matched.
 */
import { defineActor, type IndexEntry, iso, sortKeyTime } from '../../runtime/index.ts';
import { RECONCILIATION_PREFIX, SETTLEMENT_PREFIX } from './ids.ts';

export interface RailTotal {
  rail_id: string;
  count: number;
  amount: number;
}

export interface SettlementState {
  id: string;
  org: string;
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
  created_at: number;
}

export type CreateSettlement = Omit<SettlementState, 'id' | 'org' | 'created_at'>;

export const Settlement = defineActor({
  kind: 'payout_settlement',
  prefix: SETTLEMENT_PREFIX,
  creates: ['create'],
  initial: (id: string, org: string): SettlementState => ({ id, org, livemode: false, instruction_id: '', run_id: null, instruction_status: '', currency: 'NGN', settled_count: 0, settled_amount: 0, failed_count: 0, held_count: 0, by_rail: [], reconciliation_ids: [], exception_count: 0, receipt_digest: '', created_at: 0 }),
  decide: {
    create(_s: SettlementState, cmd: CreateSettlement, ctx) {
      return ctx.version > 0 ? [] : [{ type: 'settlement.created' as const, ...cmd }];
    },
  },
  evolve: (s: SettlementState, e: { type: 'settlement.created' } & CreateSettlement, meta): SettlementState => {
    const { type: _t, ...rest } = e;
    return { ...s, ...rest, created_at: meta.at };
  },
  indexes: (s: SettlementState): IndexEntry[] => [{ list: 'all', sortKey: sortKeyTime(s.created_at) }, { list: `instruction:${s.instruction_id}`, sortKey: sortKeyTime(s.created_at) }],
  view: settlementView,
});

export function settlementView(s: SettlementState) {
  return {
    id: s.id,
    object: 'payout_settlement' as const,
    livemode: s.livemode,
    mocked: true,
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
  };
}

export interface ReconciliationException {
  id: string;
  kind: 'missing_on_rail' | 'unknown_to_us' | 'amount_mismatch' | 'paid_twice';
  payout_id: string;
  reference: string | null;
  ours: string;
  theirs: string;
  detail: string;
}

export interface ReconciliationState {
  id: string;
  org: string;
  livemode: boolean;
  settlement_id: string;
  instruction_id: string;
  rail_id: string;
  statement_entries: number;
  matched: number;
  exceptions: ReconciliationException[];
  created_at: number;
}

export type CreateReconciliation = Omit<ReconciliationState, 'id' | 'org' | 'created_at'>;

export const Reconciliation = defineActor({
  kind: 'payout_reconciliation',
  prefix: RECONCILIATION_PREFIX,
  creates: ['create'],
  initial: (id: string, org: string): ReconciliationState => ({ id, org, livemode: false, settlement_id: '', instruction_id: '', rail_id: '', statement_entries: 0, matched: 0, exceptions: [], created_at: 0 }),
  decide: {
    create(_s: ReconciliationState, cmd: CreateReconciliation, ctx) {
      return ctx.version > 0 ? [] : [{ type: 'reconciliation.completed' as const, ...cmd }];
    },
  },
  evolve: (s: ReconciliationState, e: { type: 'reconciliation.completed' } & CreateReconciliation, meta): ReconciliationState => {
    const { type: _t, ...rest } = e;
    return { ...s, ...rest, created_at: meta.at };
  },
  indexes: (s: ReconciliationState): IndexEntry[] => [
    { list: 'all', sortKey: sortKeyTime(s.created_at) },
    { list: `instruction:${s.instruction_id}`, sortKey: sortKeyTime(s.created_at) },
    ...(s.exceptions.length ? [{ list: 'with_exceptions', sortKey: sortKeyTime(s.created_at) }] : []),
  ],
  view: reconciliationView,
});

export function reconciliationView(s: ReconciliationState) {
  return {
    id: s.id,
    object: 'payout_reconciliation' as const,
    livemode: s.livemode,
    mocked: true,
    settlement_id: s.settlement_id,
    instruction_id: s.instruction_id,
    rail_id: s.rail_id,
    statement_entries: s.statement_entries,
    matched: s.matched,
    exception_count: s.exceptions.length,
    status: s.exceptions.length === 0 ? 'matched' : 'exceptions',
    created_at: iso(s.created_at),
  };
}

export function exceptionView(s: ReconciliationState, x: ReconciliationException) {
  return { ...x, object: 'reconciliation_exception' as const, livemode: s.livemode, mocked: true, reconciliation_id: s.id, rail_id: s.rail_id, created_at: iso(s.created_at) };
}
