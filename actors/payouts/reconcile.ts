/**
 * Reconciling a final instruction's payouts against the rails' statements (spec 4.10; the records
 * and the exception kinds: settlement.ts, reconciliation.ts). Pure: the caller reads the payouts and the statements
 * and records what these functions return.
 */
import { exceptionIdOf } from './ids.ts';
import type { InstructionState } from './instruction.ts';
import type { PayoutState } from './payout.ts';
import type { StatementEntry } from './providers/index.ts';
import type { ReconciliationException } from './reconciliation.ts';
import type { RailTotal } from './settlement.ts';

/** Every payout of the instruction by id. */
export type Payouts = ReadonlyMap<string, PayoutState>;

export interface PayoutCounts {
  settled_count: number;
  settled_amount: number;
  failed_count: number;
  held_count: number;
  reversed_count: number;
  /** Settled payouts per rail of their settled attempt, by rail id. */
  by_rail: RailTotal[];
}

export function countPayouts(ours: Payouts): PayoutCounts {
  const byRail = new Map<string, RailTotal>();
  const c = { settled_count: 0, settled_amount: 0, failed_count: 0, held_count: 0, reversed_count: 0 };
  for (const p of ours.values()) {
    if (p.status === 'failed') c.failed_count++;
    if (p.status === 'held') c.held_count++;
    if (p.status === 'reversed') c.reversed_count++;
    if (p.status !== 'settled') continue;
    c.settled_count++;
    c.settled_amount += p.amount;
    const a = p.attempts[p.attempts.length - 1];
    const t = byRail.get(a.rail_id) ?? { rail_id: a.rail_id, count: 0, amount: 0 };
    t.count++;
    t.amount += p.amount;
    byRail.set(a.rail_id, t);
  }
  return { ...c, by_rail: [...byRail.values()].sort((a, b) => a.rail_id.localeCompare(b.rail_id)) };
}

/** The settled transfers of each payout across every rail's statement, in statement order (paid_twice). */
export function settledTransfersOf(statements: ReadonlyArray<{ entries: readonly StatementEntry[] }>): Map<string, string[]> {
  const settled = new Map<string, string[]>();
  for (const { entries } of statements) {
    for (const e of entries) if (e.status === 'settled') settled.set(e.payout_id, [...(settled.get(e.payout_id) ?? []), e.reference]);
  }
  return settled;
}

/**
 * One rail's statement against our payouts: each entry matches or is an exception, and each payout
 * we hold settled on this rail with no entry is missing_on_rail. A payout settled by more than one
 * transfer is reported once, at its first settled transfer.
 */
export function reconcileRail(rid: string, railId: string, entries: readonly StatementEntry[], ours: Payouts, settledTransfers: ReadonlyMap<string, string[]>): { matched: number; exceptions: ReconciliationException[] } {
  const exceptions: ReconciliationException[] = [];
  const add = (x: Omit<ReconciliationException, 'id'>) => exceptions.push({ id: exceptionIdOf(rid, exceptions.length + 1), ...x });
  const seen = new Set<string>();
  let matched = 0;
  for (const e of entries) {
    seen.add(e.reference);
    const p = ours.get(e.payout_id)!;
    const a = p.attempts.find((x) => x.id === e.reference);
    const weSettled = p.status === 'settled' && p.attempts[p.attempts.length - 1].id === e.reference;
    const weReversed = p.status === 'reversed' && p.reversal?.attempt_id === e.reference;
    if (e.amount !== p.amount) add({ kind: 'amount_mismatch', payout_id: p.id, reference: e.reference, ours: String(p.amount), theirs: String(e.amount), detail: `The rail booked ${e.amount} kobo for a payout of ${p.amount}.` });
    else if (e.status === 'settled' && !weSettled) add({ kind: 'unknown_to_us', payout_id: p.id, reference: e.reference, ours: a ? `attempt ${a.status}` : 'no such attempt', theirs: 'settled', detail: 'The rail credited a transfer that our payout does not hold as its settled attempt.' });
    else if (e.status !== 'settled' && weSettled) add({ kind: 'missing_on_rail', payout_id: p.id, reference: e.reference, ours: 'settled', theirs: e.status, detail: 'We hold this attempt settled; the rail does not.' });
    else if (e.status === 'reversed' && !weReversed) add({ kind: 'unknown_to_us', payout_id: p.id, reference: e.reference, ours: a ? `attempt ${a.status}` : 'no such attempt', theirs: 'reversed', detail: 'The rail returned a credit that our payout does not hold as its settled attempt.' });
    else matched++;
    const transfers = settledTransfers.get(p.id);
    if (e.status === 'settled' && (transfers?.length ?? 0) > 1 && transfers![0] === e.reference) {
      add({ kind: 'paid_twice', payout_id: p.id, reference: e.reference, ours: '1 payment', theirs: `${transfers!.length} settled transfers`, detail: `Payee paid more than once: ${transfers!.join(', ')}.` });
    }
  }
  for (const p of ours.values()) {
    const a = p.attempts[p.attempts.length - 1];
    if (p.status === 'settled' && a.rail_id === railId && !seen.has(a.id)) add({ kind: 'missing_on_rail', payout_id: p.id, reference: a.id, ours: 'settled', theirs: 'no record', detail: 'We hold this attempt settled; the rail has no record of it.' });
  }
  return { matched, exceptions };
}

/**
 * The instruction status a settlement records. A return recorded while making it reaches the
 * instruction by reaction, later: the status is then the one the counts give.
 */
export function settlementStatus(s: InstructionState, reversedNow: number, settledCount: number): string {
  if (reversedNow === 0) return s.status;
  return settledCount === s.line_count ? 'settled' : settledCount === 0 ? 'failed' : 'partially_settled';
}
