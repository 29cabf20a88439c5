/**
 * Reconciliation (spec 4.10; its fields are not shown: docs/gaps.md#payouts): one rail's own
 * statement matched against our payouts when a settlement is made (settlements.ts); every
 * mismatch is an exception. Made once and never edited (spec 1 rule 4).
 *
 * status  command  condition  event                     next
 * ------  -------  ---------  ------------------------  --------------------
 * (none)  create   -          reconciliation.completed  matched | exceptions
 * made    create   -          -                         (the same record)
 *
 * Exception kinds: missing_on_rail (we hold it settled, the rail has no settled transfer),
 * unknown_to_us (the rail settled, or returned, a transfer whose attempt we do not hold so),
 * amount_mismatch, paid_twice (one payout settled by more than one transfer). A credit the
 * statement shows returned is first recorded as the payout's reversal, then matched.
 */
import { defineActor, type IndexEntry, iso, sortKeyTime } from '../../runtime/index.ts';
import { factsOf, recordView } from '../../kernel/index.ts';
import { RECONCILIATION_PREFIX } from './ids.ts';

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
    return { ...s, ...factsOf(e), created_at: meta.at };
  },
  indexes: (s: ReconciliationState): IndexEntry[] => [
    { list: 'all', sortKey: sortKeyTime(s.created_at) },
    { list: `instruction:${s.instruction_id}`, sortKey: sortKeyTime(s.created_at) },
    ...(s.exceptions.length ? [{ list: 'with_exceptions', sortKey: sortKeyTime(s.created_at) }] : []),
  ],
  view: reconciliationView,
});

export function reconciliationView(s: ReconciliationState) {
  return recordView('payout_reconciliation', s.id, s.livemode, true, {
    settlement_id: s.settlement_id,
    instruction_id: s.instruction_id,
    rail_id: s.rail_id,
    statement_entries: s.statement_entries,
    matched: s.matched,
    exception_count: s.exceptions.length,
    status: s.exceptions.length === 0 ? 'matched' : 'exceptions',
    created_at: iso(s.created_at),
  });
}

export function exceptionView(s: ReconciliationState, x: ReconciliationException) {
  return { ...x, object: 'reconciliation_exception' as const, livemode: s.livemode, mocked: true, reconciliation_id: s.id, rail_id: s.rail_id, created_at: iso(s.created_at) };
}
