/**
 * Making an instruction's settlement (spec 4.10; the records: settlement.ts, reconciliation.ts; the matching:
 * reconcile.ts), in named steps: read every payout, read each rail's statement, record the credits
 * the statements show returned, reconcile each rail, then record the settlement with its receipt
 * digest. Made once: asking again answers the settlement already made. The reads the routes make
 * of what it recorded (its receipt, each rail's reconciliation and exceptions) follow.
 */
import { ApiError, type Caller, contentHash, derivedId, idOf, isApiError, listEnvelope, type ListEnvelope, parseListQuery, type Platform } from '../../kernel/index.ts';
import { EXCEPTION_PREFIX, payoutIdOf, reconciliationIdOf, SETTLEMENT_PREFIX } from './ids.ts';
import { type InstructionState, PayoutInstruction } from './instruction.ts';
import { Payout, type PayoutState } from './payout.ts';
import type { Rail, StatementEntry } from './providers/index.ts';
import { payoutsService } from './service.ts';
import { countPayouts, reconcileRail, settledTransfersOf, settlementStatus } from './reconcile.ts';
import { exceptionView, Reconciliation } from './reconciliation.ts';
import { Settlement, type settlementView } from './settlement.ts';

const SYSTEM = 'system';
const PAGE = 500;

interface RailStatement {
  rail: Rail;
  /** The statement's entries for this instruction's payouts. */
  entries: StatementEntry[];
}

/** POST /v1/payouts/settlements: one settlement per final instruction. */
export async function settle(platform: Platform, caller: Caller, instructionId: string): Promise<unknown> {
  const { system } = platform;
  const { rails } = payoutsService(platform);
  const s = await settleable(platform, caller, instructionId);
  const id = derivedId(SETTLEMENT_PREFIX, [s.id]);
  try {
    return await system.get(Settlement, id, caller.org);
  } catch (e) {
    if (!isApiError(e) || e.code !== 'not_found') throw e;
  }
  const ours = await payoutsByLine(platform, caller.org, s);
  const statements = await statementsOf(rails, caller.org, ours, platform.clock.now());
  const settledTransfers = settledTransfersOf(statements);
  const reversedNow = await recordReversals(platform, caller.org, statements, ours);
  const c = countPayouts(ours);
  const { reconciliation_ids, exceptionCount } = await recordReconciliations(platform, caller, s, id, statements, ours, settledTransfers);
  const body = {
    livemode: s.livemode, instruction_id: s.id, run_id: s.run_id, instruction_status: settlementStatus(s, reversedNow, c.settled_count), currency: s.currency,
    settled_count: c.settled_count, settled_amount: c.settled_amount, failed_count: c.failed_count, held_count: c.held_count, reversed_count: c.reversed_count,
    by_rail: c.by_rail, reconciliation_ids, exception_count: exceptionCount,
  };
  return system.ask(Settlement, id, 'create', { ...body, receipt_digest: contentHash(body) }, { ...caller, dedupeId: `settle:${id}` });
}

/** The instruction, if every payout of it is final after execution (else 409). */
async function settleable(platform: Platform, caller: Caller, instructionId: string): Promise<InstructionState> {
  const s = await platform.system.state(PayoutInstruction, instructionId, caller.org);
  if (s.status !== 'settled' && s.status !== 'partially_settled' && !(s.status === 'failed' && s.executed_at !== null)) {
    throw new ApiError('conflict', `Payout instruction ${s.id} is ${s.status}; a settlement is made once every payout of an executed instruction is final.`, { status: s.status });
  }
  return s;
}

/**
 * Every line's payout by its derived id, not through the instruction's list: a list write is made
 * after its commit, so a node killed in between leaves a payout off the list while the payout
 * itself is recorded.
 */
async function payoutsByLine(platform: Platform, org: string, s: InstructionState): Promise<Map<string, PayoutState>> {
  const ours = new Map<string, PayoutState>();
  for (let from = 1; from <= s.line_count; from += PAGE) {
    const lines = Array.from({ length: Math.min(PAGE, s.line_count - from + 1) }, (_, k) => from + k);
    const states = await Promise.all(lines.map((line) => platform.system.state(Payout, payoutIdOf(s.id, line), org).catch((e: unknown) => {
      if (isApiError(e) && e.code === 'not_found') return undefined;
      throw e;
    })));
    for (const p of states) if (p) ours.set(p.id, p);
  }
  return ours;
}

/** Each rail's statement, page by page, kept to the entries of our payouts. */
async function statementsOf(rails: readonly Rail[], org: string, ours: ReadonlyMap<string, PayoutState>, now: number): Promise<RailStatement[]> {
  const statements: RailStatement[] = [];
  for (const rail of rails) {
    const entries: StatementEntry[] = [];
    let after: string | undefined;
    for (;;) {
      const page = await rail.statement(org, { after, limit: PAGE }, now);
      for (const e of page.entries) if (ours.has(e.payout_id)) entries.push(e);
      if (!page.hasMore || page.entries.length === 0) break;
      after = page.entries[page.entries.length - 1].reference;
    }
    statements.push({ rail, entries });
  }
  return statements;
}

/**
 * A credit the rail's statement shows returned is a reversal of the payout that holds it settled
 * (payout.ts record_reversal): recorded before anything is counted, so the settlement counts it.
 * Updates `ours` with each reversed payout's state; answers how many were recorded.
 */
async function recordReversals(platform: Platform, org: string, statements: readonly RailStatement[], ours: Map<string, PayoutState>): Promise<number> {
  const { system } = platform;
  let reversedNow = 0;
  for (const { rail, entries } of statements) {
    for (const e of entries) {
      const p = ours.get(e.payout_id)!;
      if (e.status !== 'reversed' || p.status !== 'settled' || p.attempts[p.attempts.length - 1].id !== e.reference) continue;
      await system.ask(Payout, p.id, 'record_reversal', { attempt_id: e.reference, code: e.code, detail: `The payee's bank returned the credit (${rail.id} statement, code ${e.code}).` }, { org, principal: SYSTEM, lane: 'system', dedupeId: `reversal:${e.reference}` });
      ours.set(p.id, await system.state(Payout, p.id, org));
      reversedNow++;
    }
  }
  return reversedNow;
}

/** One reconciliation record per rail, in the rails' order. */
async function recordReconciliations(platform: Platform, caller: Caller, s: InstructionState, settlementId: string, statements: readonly RailStatement[], ours: ReadonlyMap<string, PayoutState>, settledTransfers: ReadonlyMap<string, string[]>): Promise<{ reconciliation_ids: string[]; exceptionCount: number }> {
  const reconciliation_ids: string[] = [];
  let exceptionCount = 0;
  for (const { rail, entries } of statements) {
    const rid = reconciliationIdOf(settlementId, rail.id);
    const { matched, exceptions } = reconcileRail(rid, rail.id, entries, ours, settledTransfers);
    exceptionCount += exceptions.length;
    await platform.system.ask(Reconciliation, rid, 'create', { livemode: s.livemode, settlement_id: settlementId, instruction_id: s.id, rail_id: rail.id, statement_entries: entries.length, matched, exceptions }, { ...caller, dedupeId: `reconcile:${settlementId}` });
    reconciliation_ids.push(rid);
  }
  return { reconciliation_ids, exceptionCount };
}

/** GET .../settlements/{settlement_id}/receipt: totals per rail and the digest that covers them. */
export async function settlementReceipt(platform: Platform, org: string, id: string): Promise<unknown> {
  const s = await platform.system.state(Settlement, id, org);
  const v = Settlement.view(s) as ReturnType<typeof settlementView>;
  return { object: 'payout_settlement_receipt', livemode: s.livemode, mocked: true, settlement_id: s.id, instruction_id: s.instruction_id, run_id: s.run_id, settled_count: s.settled_count, settled_amount: v.settled_amount, by_rail: v.by_rail, digest: s.receipt_digest, issued_at: v.created_at };
}

const reconciliationState = (platform: Platform, org: string, id: string) => platform.system.state(Reconciliation, id, org);

export async function reconciliationOf(platform: Platform, org: string, id: string): Promise<unknown> {
  return Reconciliation.view(await reconciliationState(platform, org, id));
}

/** GET .../reconciliations/{reconciliation_id}/exceptions: the reconciliation is read before the query is. */
export async function exceptionsOf(platform: Platform, org: string, id: string, query: { limit?: number; starting_after?: string } | undefined): Promise<ListEnvelope<unknown>> {
  const s = await reconciliationState(platform, org, id);
  const { limit, after } = parseListQuery(query);
  const from = after ? s.exceptions.findIndex((x) => x.id === after) + 1 : 0;
  const rest = after && from === 0 ? [] : s.exceptions.slice(from);
  return listEnvelope(rest.slice(0, limit).map((x) => exceptionView(s, x)), rest.length > limit);
}

/** The reconciliation is read before the exception id is checked, so an unknown reconciliation answers not_found first. */
export async function exceptionOf(platform: Platform, org: string, reconciliationId: string, exceptionId: string): Promise<unknown> {
  const s = await reconciliationState(platform, org, reconciliationId);
  const id = idOf(exceptionId, EXCEPTION_PREFIX, 'reconciliation exception');
  const x = s.exceptions.find((e) => e.id === id);
  if (!x) throw new ApiError('not_found', `No reconciliation exception with id ${id}.`);
  return exceptionView(s, x);
}
