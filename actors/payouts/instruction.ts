/**
 * Payout instruction (spec 2.11, 3 "Payout instruction", 4.10). It arrives signed from payroll (or
 * remittance): no amount comes from the caller (spec 1 rule 10). The service checks the signature,
 * the lines and whether the derived idempotency_key was seen before (I/O), then submits the
 * verdict here; a quarantined instruction is kept as evidence and never executed. Every status of
 * spec 2.11 is reached only by the transitions below.
 *
 * status                        command                 condition                                  events                                     next
 * ----------------------------  ----------------------  -----------------------------------------  -----------------------------------------  -----------------
 * (none)                        submit                  signature, lines and key all hold          instruction.received                       received
 * (none)                        submit                  one fails                                  instruction.quarantined (reason)           quarantined
 * received, funding_pending,    record_funding_check    sufficient                                 instruction.funding_checked                planned if a plan, else received
 *   planned                     record_funding_check    shortfall                                  instruction.funding_checked                funding_pending
 * received, funding_pending     plan                    route_plan_id null                         instruction.planned                        planned (funding_pending stays)
 * any                           execute                 route_plan_id null                         refused: a plan must be made first (409)   -
 * planned                       execute                 funds reserved                             instruction.executing                      executing
 * executing                     dispatched              more lines dispatched                      instruction.dispatched                     executing
 * executing                     record_outcomes         new outcomes: final, held (with its cause)  instruction.outcomes_recorded              executing
 *                                                       or released (a held line sent: it waits
 *                                                       again); a held line is not final
 *                                                       every line final: all settled              + instruction.settled (ledger posting)     settled
 *                                                       some settled                               + instruction.partially_settled (posting)  partially_settled
 *                                                       none settled                               + instruction.failed                       failed
 * executing                     record_reversal         (reaction) payout.reversed of a line       instruction.outcomes_recorded (reversed)   executing, or final
 *                                                       not final yet or settled                   (+ the final event when it was the last)   as record_outcomes
 * settled, partially_settled    record_reversal         (reaction) payout.reversed of a settled    instruction.payout_reversed (ledger        by the counts left:
 *                                                       line                                       posting: the amount back in the bank,      partially_settled, or
 *                                                                                                  net pay owed again)                        failed when none stands
 * any                           record_reversal         the line is already reversed               - (nothing)                                same
 * executing                     tally_due               (timer) every tally interval               instruction.tally_due                      executing
 * executing                     mark_unknown, resolve   a person asks                              instruction.marked_unknown / .resolve_asked executing
 * received, funding_pending,    fail                    nothing was sent                           instruction.failed                         failed
 *   planned
 * executing                     fail                    -                                          refused: payouts in flight resolve by asking (409)
 * quarantined                   any                     -                                          refused (409): never executed
 *
 * A reversed line counts as neither settled nor failed: the payee was credited and the credit came
 * back (payout.ts header). While executing it only lowers what the final posting pays out; once the
 * instruction is final its own event posts the return, naming the final posting as reverses_id. The
 * payroll run keeps the outcome it was given (docs/gaps.md#payouts: a later return is shown on the
 * instruction, its payout and the ledger, and the payee is paid by a later instruction).
 */
import { defineActor, type IndexEntry, type Reaction, sortKeyTime, type TimerWish } from '../../runtime/index.ts';
import { ApiError, filterLists } from '../../kernel/index.ts';
import { postingIdFor, type PostingRequest } from '../ledger/index.ts';
import { INSTRUCTION_PREFIX } from './ids.ts';
import type { FundingCheck, InstructionState, InstructionStatus, Outcome, Submission } from './instruction-state.ts';
import { instructionView } from './instruction-views.ts';

export * from './instruction-state.ts';
export { fundingCheckView, instructionNextAction, instructionView } from './instruction-views.ts';

export type InstructionEvent =
  | ({ type: 'instruction.received' } & Submission)
  | ({ type: 'instruction.quarantined' } & Submission)
  | { type: 'instruction.funding_checked'; check: FundingCheck; status_after: InstructionStatus }
  | { type: 'instruction.planned'; route_plan_id: string; status_after: InstructionStatus }
  | { type: 'instruction.executing'; check: FundingCheck; tally_next_at: number }
  | { type: 'instruction.dispatched'; through: number }
  | { type: 'instruction.outcomes_recorded'; outcomes: Outcome[] }
  | { type: 'instruction.tally_due'; dispatched: number; tally_next_at: number }
  | { type: 'instruction.marked_unknown'; reason: string }
  | { type: 'instruction.resolve_asked' }
  | { type: 'instruction.payout_reversed'; line: number; amount: number; status_after: InstructionStatus; settled_amount: number; reversed_amount: number; ledger_posting?: PostingRequest }
  | { type: 'instruction.settled' | 'instruction.partially_settled'; run_id: string | null; source: 'run' | 'remit'; livemode: boolean; settled_amount: number; failed_amount: number; held_amount: number; reversed_amount?: number; ledger_posting?: PostingRequest }
  | { type: 'instruction.failed'; run_id: string | null; source: 'run' | 'remit'; livemode: boolean; reason: string; settled_amount: 0; failed_amount: number; held_amount: number; before_execution: boolean };

const conflictOf = (s: InstructionState, why: string) => new ApiError('conflict', `Payout instruction ${s.id} is ${s.status}: ${why}.`, { status: s.status });

function refuseQuarantined(s: InstructionState): void {
  if (s.status === 'quarantined') throw conflictOf(s, `it was quarantined (${s.quarantine_reason}) and is kept as evidence; it is never executed`);
}

/** Net pay leaves the bank (spec 2.3, 2.9): the liability run execution raised is paid off. */
function paidPosting(s: InstructionState, settled: number): PostingRequest | undefined {
  if (settled <= 0) return undefined;
  return {
    currency: s.currency,
    lines: [{ account_code: 'liability.net_pay', debit: settled, credit: 0 }, { account_code: 'asset.bank', debit: 0, credit: settled }],
    memo: `Payouts of instruction ${s.id}${s.run_id ? ` (run ${s.run_id})` : ''}: ${s.settled_count} settled`,
    livemode: s.livemode,
    reverses_id: null,
  };
}

/** The money the bank got back for returned payouts: the net pay they paid is owed again (spec 2.3). */
function returnedPosting(s: InstructionState, line: number, amount: number): PostingRequest {
  return {
    currency: s.currency,
    lines: [{ account_code: 'asset.bank', debit: amount, credit: 0 }, { account_code: 'liability.net_pay', debit: 0, credit: amount }],
    memo: `Payout of line ${line} of instruction ${s.id}${s.run_id ? ` (run ${s.run_id})` : ''} returned by the payee's bank: the amount is back, the net pay owed again`,
    livemode: s.livemode,
    reverses_id: s.posting_event_id ? postingIdFor(s.posting_event_id) : null,
  };
}

const HELD = new Set(['h', 'a']);
const charOf = (o: Outcome): string => (o.outcome === 'held' ? (o.held_reason === 'no_bank_account' ? 'a' : 'h') : o.outcome === 'released' ? '.' : o.outcome[0]);

/** A line is reported ('.' to any outcome), a held line released or held for another cause, or a settled line reversed ('s' to 'r'). */
const changes = (current: string | undefined, o: Outcome) => (current === '.' && o.outcome !== 'released') || (current !== undefined && HELD.has(current) && charOf(o) !== current) || (current === 's' && o.outcome === 'reversed');

/** The status the counts give a final instruction (spec 2.11): every line settled, some, or none. */
function finalStatus(s: Pick<InstructionState, 'settled_count' | 'line_count'>): 'settled' | 'partially_settled' | 'failed' {
  return s.settled_count === s.line_count ? 'settled' : s.settled_count === 0 ? 'failed' : 'partially_settled';
}

function applyOutcomes(s: InstructionState, outcomes: readonly Outcome[]): InstructionState {
  const sorted = [...outcomes].sort((a, b) => a.line - b.line);
  const parts: string[] = [];
  let at = 0;
  const n = { ...s, reversed_count: s.reversed_count ?? 0, reversed_amount: s.reversed_amount ?? 0, held_account_count: s.held_account_count ?? 0 };
  for (const o of sorted) {
    const was = s.outcomes[o.line - 1];
    if (was === 's') (n.settled_count--, (n.settled_amount -= o.amount)); // a settled line returned
    else if (was === 'h' || was === 'a') (n.held_count--, (n.held_amount -= o.amount), was === 'a' && n.held_account_count--); // released, or held for another cause
    const c = charOf(o);
    parts.push(s.outcomes.slice(at, o.line - 1), c);
    at = o.line;
    if (o.outcome === 'settled') (n.settled_count++, (n.settled_amount += o.amount));
    else if (o.outcome === 'failed') (n.failed_count++, (n.failed_amount += o.amount));
    else if (o.outcome === 'reversed') (n.reversed_count++, (n.reversed_amount += o.amount));
    else if (o.outcome === 'held') (n.held_count++, (n.held_amount += o.amount), c === 'a' && n.held_account_count++);
  }
  parts.push(s.outcomes.slice(at));
  n.outcomes = parts.join('');
  return n;
}

/** outcomes_recorded for the lines that change, and the final event when every line is then final. */
function recordOutcomes(s: InstructionState, outcomes: readonly Outcome[]): InstructionEvent[] {
  // The latest report of a line wins (a released line's settlement may arrive in the same batch as its release).
  const latest = new Map<number, Outcome>();
  for (const o of outcomes) if (o.line >= 1 && o.line <= s.line_count) latest.set(o.line, o);
  const fresh = [...latest.values()].filter((o) => changes(s.outcomes[o.line - 1], o));
  if (fresh.length === 0) return [];
  const events: InstructionEvent[] = [{ type: 'instruction.outcomes_recorded', outcomes: fresh }];
  const after = applyOutcomes(s, fresh);
  // A held line waits for its cause to clear (payout.ts release), so the instruction stays executing.
  if (after.settled_count + after.failed_count + after.reversed_count! < s.line_count) return events;
  const common = { run_id: s.run_id, source: s.source, livemode: s.livemode, failed_amount: after.failed_amount, held_amount: after.held_amount, ...(after.reversed_count ? { reversed_amount: after.reversed_amount } : {}) };
  const status = finalStatus(after);
  if (status === 'failed') events.push({ type: 'instruction.failed', ...common, reason: after.reversed_count ? 'no payout stands settled (every credit was returned, failed or held)' : 'no payout settled', settled_amount: 0, before_execution: false });
  else {
    const posting = paidPosting(after, after.settled_amount);
    events.push({ type: status === 'settled' ? 'instruction.settled' : 'instruction.partially_settled', ...common, settled_amount: after.settled_amount, ...(posting ? { ledger_posting: posting } : {}) });
  }
  return events;
}

/** A payout's return reaches its instruction by reaction (at least once, deduplicated): durable, whatever node dies. */
function fromReversedPayout(): Reaction {
  return {
    from: 'payout',
    events: ['payout.reversed'],
    command: 'record_reversal',
    target: (event) => {
      const d = event.data as { instruction_id: string; line: number; amount: number };
      return { id: d.instruction_id, payload: { line: d.line, amount: d.amount } };
    },
  };
}

export const PayoutInstruction = defineActor({
  kind: 'payout_instruction',
  prefix: INSTRUCTION_PREFIX,
  creates: ['submit'],
  snapshotEvery: 25,
  initial: (id: string, org: string): InstructionState => ({
    id, org, source: 'run', run_id: null, remittance_id: null, total: 0, currency: 'NGN', line_count: 0, idempotency_key: '', signature_verified: false, quarantine_reason: null, findings: [],
    key_id: '', document_digest: '', instruction_ref: null, livemode: false, tally_interval_ms: 30_000,
    status: 'received', route_plan_id: null, funding_check: null, created_at: 0, executed_at: null, finished_at: null, failure_reason: null, dispatched: 0, outcomes: '',
    settled_count: 0, settled_amount: 0, failed_count: 0, failed_amount: 0, held_count: 0, held_amount: 0, tally_next_at: null,
  }),
  decide: {
    submit(_s: InstructionState, cmd: Submission, ctx): InstructionEvent[] {
      if (ctx.version > 0) throw new ApiError('conflict', `Payout instruction ${ctx.id} was already submitted.`);
      return [{ type: cmd.quarantine_reason === null ? 'instruction.received' : 'instruction.quarantined', ...cmd }];
    },
    record_funding_check(s: InstructionState, cmd: FundingCheck): InstructionEvent[] {
      refuseQuarantined(s);
      if (s.status !== 'received' && s.status !== 'funding_pending' && s.status !== 'planned') throw conflictOf(s, 'a funding check is made before execution');
      const status_after: InstructionStatus = !cmd.sufficient ? 'funding_pending' : s.route_plan_id ? 'planned' : 'received';
      return [{ type: 'instruction.funding_checked', check: cmd, status_after }];
    },
    plan(s: InstructionState, cmd: { route_plan_id: string }): InstructionEvent[] {
      refuseQuarantined(s);
      if (s.route_plan_id !== null) throw conflictOf(s, `its route plan ${s.route_plan_id} was fixed when it was made`);
      if (s.status !== 'received' && s.status !== 'funding_pending') throw conflictOf(s, 'only an instruction not yet executed can be planned');
      return [{ type: 'instruction.planned', route_plan_id: cmd.route_plan_id, status_after: s.status === 'funding_pending' ? 'funding_pending' : 'planned' }];
    },
    execute(s: InstructionState, cmd: { check: FundingCheck }, ctx): InstructionEvent[] {
      refuseQuarantined(s);
      if (s.route_plan_id === null) throw conflictOf(s, 'route_plan_id is null; a plan must be made first (POST .../plan)');
      if (s.status !== 'planned') throw conflictOf(s, s.status === 'funding_pending' ? 'the funding account is short; fund it and run the funding check again' : 'only a planned instruction can be executed');
      if (!cmd.check.sufficient) throw conflictOf(s, 'the funding check found a shortfall');
      return [{ type: 'instruction.executing', check: cmd.check, tally_next_at: ctx.now + s.tally_interval_ms }];
    },
    dispatched(s: InstructionState, cmd: { through: number }): InstructionEvent[] {
      if (s.status !== 'executing' || cmd.through <= s.dispatched) return [];
      return [{ type: 'instruction.dispatched', through: Math.min(cmd.through, s.line_count) }];
    },
    record_outcomes(s: InstructionState, cmd: { outcomes: Outcome[] }): InstructionEvent[] {
      if (s.status !== 'executing') return [];
      return recordOutcomes(s, cmd.outcomes);
    },
    record_reversal(s: InstructionState, cmd: { line: number; amount: number }): InstructionEvent[] {
      const o: Outcome = { line: cmd.line, outcome: 'reversed', amount: cmd.amount };
      if (s.status === 'executing') return recordOutcomes(s, [o]);
      if ((s.status !== 'settled' && s.status !== 'partially_settled') || s.outcomes[cmd.line - 1] !== 's') return [];
      const after = applyOutcomes(s, [o]);
      return [{ type: 'instruction.payout_reversed', line: cmd.line, amount: cmd.amount, status_after: finalStatus(after), settled_amount: after.settled_amount, reversed_amount: after.reversed_amount!, ledger_posting: returnedPosting(s, cmd.line, cmd.amount) }];
    },
    tally_due(s: InstructionState, _cmd: unknown, ctx): InstructionEvent[] {
      if (s.status !== 'executing') return [];
      return [{ type: 'instruction.tally_due', dispatched: s.dispatched, tally_next_at: ctx.now + s.tally_interval_ms }];
    },
    mark_unknown(s: InstructionState, cmd: { reason: string }): InstructionEvent[] {
      refuseQuarantined(s);
      if (s.status !== 'executing') throw conflictOf(s, 'only the payouts of an executing instruction can be marked unknown');
      return [{ type: 'instruction.marked_unknown', reason: cmd.reason }];
    },
    resolve(s: InstructionState): InstructionEvent[] {
      refuseQuarantined(s);
      if (s.status !== 'executing') throw conflictOf(s, 'only the payouts of an executing instruction wait for an answer');
      return [{ type: 'instruction.resolve_asked' }];
    },
    fail(s: InstructionState, cmd: { reason: string }): InstructionEvent[] {
      refuseQuarantined(s);
      if (s.status === 'executing') throw conflictOf(s, 'payouts already sent are never assumed failed: each resolves by its rail\u2019s answer (POST .../resolve asks now)');
      if (s.status !== 'received' && s.status !== 'funding_pending' && s.status !== 'planned') throw conflictOf(s, 'it is already final');
      return [{ type: 'instruction.failed', run_id: s.run_id, source: s.source, livemode: s.livemode, reason: cmd.reason, settled_amount: 0, failed_amount: s.total, held_amount: 0, before_execution: true }];
    },
  },
  evolve(s: InstructionState, e: InstructionEvent, meta): InstructionState {
    switch (e.type) {
      case 'instruction.received':
      case 'instruction.quarantined': {
        const { type, ...sub } = e;
        return { ...s, ...sub, status: type === 'instruction.received' ? 'received' : 'quarantined', created_at: meta.at, outcomes: type === 'instruction.received' ? '.'.repeat(sub.line_count) : '' };
      }
      case 'instruction.funding_checked':
        return { ...s, funding_check: e.check, status: e.status_after };
      case 'instruction.planned':
        return { ...s, route_plan_id: e.route_plan_id, status: e.status_after };
      case 'instruction.executing':
        return { ...s, status: 'executing', funding_check: e.check, executed_at: meta.at, tally_next_at: e.tally_next_at };
      case 'instruction.dispatched':
        return { ...s, dispatched: e.through };
      case 'instruction.outcomes_recorded':
        return applyOutcomes(s, e.outcomes);
      case 'instruction.tally_due':
        return { ...s, tally_next_at: e.tally_next_at };
      case 'instruction.marked_unknown':
      case 'instruction.resolve_asked':
        return s;
      case 'instruction.payout_reversed':
        return { ...applyOutcomes(s, [{ line: e.line, outcome: 'reversed', amount: e.amount }]), status: e.status_after };
      case 'instruction.settled':
        return { ...s, status: 'settled', finished_at: meta.at, tally_next_at: null, posting_event_id: e.ledger_posting ? meta.eventId : null };
      case 'instruction.partially_settled':
        return { ...s, status: 'partially_settled', finished_at: meta.at, tally_next_at: null, posting_event_id: e.ledger_posting ? meta.eventId : null };
      case 'instruction.failed':
        return { ...s, status: 'failed', finished_at: meta.at, tally_next_at: null, failure_reason: e.reason };
    }
  },
  reactions: [fromReversedPayout()],
  timers(s: InstructionState): TimerWish[] {
    // Only lines not yet reported are watched: a held line waits for its cause, not for a rail.
    return s.status === 'executing' && s.tally_next_at !== null && s.outcomes.includes('.') ? [{ name: 'tally', dueAt: s.tally_next_at, command: 'tally_due', payload: {} }] : [];
  },
  indexes(s: InstructionState): IndexEntry[] {
    return filterLists({ run: s.run_id, status: s.status }, sortKeyTime(s.created_at));
  },
  view: instructionView,
});
