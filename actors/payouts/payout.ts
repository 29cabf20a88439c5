/**
 * One payout: one line of an instruction paid to one payee (spec 2.11; the design card: every payout
 * is an actor). The rule it carries (spec 3 Individual payout): a payout that times out is unknown,
 * never failed, and it resolves by asking the rail's status query, never by assumption; only an
 * answer of failed lets it try the next rail of its plan. A definite refusal moves on at once.
 * Attempts are recorded in the actor; each attempt's id is the reference sent to its rail, so the
 * same attempt sent again (after a node died mid-call) is never paid twice.
 *
 * A rail's answer normally arrives within its call (a time-out is an answer: unknown). The answer
 * time-out that catches a send lost with its node is watched per instruction, not by a reminder per
 * payout: the instruction's tally reminder reads the lines still open once outcomes stop arriving
 * and sends answer_overdue to those sending past their rail's time-out (outcomes.ts tally), so the
 * happy path costs no durable timer. Status queries keep their reminder per payout (few wait).
 *
 * status            command           condition                                   events                                   next
 * ----------------  ----------------  ------------------------------------------  ---------------------------------------  ---------
 * (none)            create            payee's passport not live, or no account    payout.held                              held
 * (none)            create            name enquiry named another holder           payout.failed (never sent)               failed
 * (none)            create            no rail of the plan reaches or allows it    payout.failed (never sent)               failed
 * (none)            create            -                                           payout.created, payout.attempt_started   sending
 * held              release           (holds.ts) the cause cleared; account and   payout.released, payout.attempt_started  sending
 *                                     live passport now; as create otherwise      (or payout.failed as create)             (failed)
 * held              release           another cause remains                       payout.hold_changed (the new reason)     held
 * held              release           the same cause remains                      - (nothing)                              held
 * sending           record_answer     settled (00)                                payout.settled (the answer's code)       settled
 * sending           record_answer     refused; a next rail and attempts left      payout.attempt_answered,                 sending
 *                                                                                 payout.attempt_started (next rail)
 * sending           record_answer     refused; no rail or attempt left            payout.attempt_answered, payout.failed   failed
 * sending           record_answer     in progress (09)                            payout.attempt_answered                  pending
 * sending           record_answer     time-out / unknown code                     payout.attempt_answered                  unknown
 * sending           answer_overdue    no answer by the rail's time-out (the       payout.attempt_answered (no_answer)      unknown
 *                                     instruction's tally finds it; too early: -)
 * pending, unknown  query_due         (timer) next status query due               payout.status_query_due                  same
 * pending, unknown  record_status     settled                                     payout.status_answered, payout.settled   settled
 * pending, unknown  record_status     failed, or not located after the window     payout.status_answered, then as refused  sending / failed
 * pending, unknown  record_status     pending, or not located within the window   payout.status_answered                   same
 * pending, unknown  record_status     reversed (credited, then returned)          payout.status_answered, then as refused  sending / failed
 * sending, pending  mark_unknown      a person says the outcome is unknown        payout.marked_unknown                    unknown
 * settled           record_reversal   the rail returned the credit (its statement) payout.reversed (by rail)                reversed
 * settled           reverse           a person records a return the bank reported payout.reversed (by operator, reason)     reversed
 * reversed          record_reversal   -                                           - (nothing: the same return again)       reversed
 * not settled       reverse,          -                                           refused (409): only a settled payout is   -
 *                   record_reversal                                               reversed
 * any other         record_answer,    stale attempt or final payout               - (nothing: late answers change nothing)
 *                   answer_overdue,
 *                   query_due,
 *                   record_status
 *
 * A reversal (reference 3.4: a success can later become a reversal; NEFT returns unapplied items)
 * means the payee's bank gave the money back: the payee is not paid, the amount is back with us and
 * the net pay is owed again. It is final: a reversed payout is never sent again by itself (the
 * account may be closed); the payee is paid by a later instruction. A held payout is not final: it
 * waits for its cause to clear and is then released (holds.ts). The
 * instruction records it (instruction.ts record_reversal) with the ledger posting.
 */
import { defineActor, type IndexEntry, sortKeyTime, type TimerWish } from '../../runtime/index.ts';
import { ApiError } from '../../kernel/index.ts';
import { attemptIdOf, DISBURSEMENT_PREFIX } from './ids.ts';
import { type AccountValidation, answerDueAt, type Answer, type Attempt, type AttemptStatus, type BankAccount, type CreatePayout, currentAttempt as current, type HeldReason, PAYOUT_STATUSES, type PayoutState, type PayoutStatus, queryDelay, type Reversal, type StatusResult } from './payout-state.ts';
import { payoutView } from './payout-views.ts';

export * from './payout-state.ts';
export { attemptView, payoutView, validationView } from './payout-views.ts';

type Created = Omit<CreatePayout, 'passport_live'>;

/** What releasing a held payout is judged on, read when its cause cleared (holds.ts). */
export interface ReleasePayout {
  account: BankAccount | null;
  passport_live: boolean;
  validation: AccountValidation | null;
  /** The plan's rails that reach this account and allow this amount. */
  rails: string[];
}
export type PayoutEvent =
  | ({ type: 'payout.created' } & Created)
  | ({ type: 'payout.held'; held_reason: HeldReason } & Created)
  | { type: 'payout.hold_changed'; held_reason: HeldReason; payee_ref: string; line: number; instruction_id: string; amount: number }
  | { type: 'payout.released'; account: BankAccount; validation: AccountValidation | null; rails: string[]; payee_ref: string }
  | ({ type: 'payout.failed'; reason: string; amount: number; line: number; instruction_id: string; before_created?: Created })
  | { type: 'payout.attempt_started'; attempt_id: string; n: number; rail_id: string; reference: string; amount: number; bank_code: string; account_number: string }
  | { type: 'payout.attempt_answered'; attempt_id: string; status: AttemptStatus; code: string; detail: string }
  | { type: 'payout.status_query_due'; attempt_id: string; rail_id: string; reference: string; n: number; next_query_at: number }
  | { type: 'payout.status_answered'; attempt_id: string; status: AttemptStatus; code: string; detail: string }
  | { type: 'payout.marked_unknown'; attempt_id: string; reason: string }
  /** code and detail: the rail's answer when the settlement is that answer (absent after a status answer, which carries them). */
  | { type: 'payout.settled'; attempt_id: string; rail_id: string; amount: number; line: number; instruction_id: string; code?: string; detail?: string }
  | { type: 'payout.reversed'; attempt_id: string; rail_id: string; amount: number; line: number; instruction_id: string; by: 'rail' | 'operator'; code: string | null; detail: string; reason: string | null; principal: string | null };

function withAttempt(s: PayoutState, id: string, f: (a: Attempt) => Attempt): Attempt[] {
  return s.attempts.map((a) => (a.id === id ? f(a) : a));
}

/** The next attempt after a definite failure: the next rail of the plan, or the payout fails. */
function next(s: PayoutState, failedAttempt: Attempt, why: string): PayoutEvent[] {
  const tried = new Set(s.attempts.map((a) => a.rail_id));
  const rail = s.rails.find((r) => !tried.has(r));
  if (!rail || s.attempts.length >= s.max_attempts) {
    const reason = !rail ? `every rail of the plan refused or failed it; last: ${failedAttempt.rail_id} ${why}` : `max_attempts (${s.max_attempts}) reached; last: ${failedAttempt.rail_id} ${why}`;
    return [{ type: 'payout.failed', reason, amount: s.amount, line: s.line, instruction_id: s.instruction_id }];
  }
  return [started(s, rail, s.attempts.length + 1)];
}

function started(s: Pick<PayoutState, 'id' | 'amount' | 'account'>, rail: string, n: number): PayoutEvent {
  const attempt_id = attemptIdOf(s.id, n);
  return { type: 'payout.attempt_started', attempt_id, n, rail_id: rail, reference: attempt_id, amount: s.amount, bank_code: s.account!.bank_code, account_number: s.account!.account_number };
}

const NO_TIMERS: TimerWish[] = [];

function reversed(s: PayoutState, a: Attempt, r: Pick<Reversal, 'by' | 'code' | 'detail' | 'reason' | 'principal'>): PayoutEvent {
  return { type: 'payout.reversed', attempt_id: a.id, rail_id: a.rail_id, amount: s.amount, line: s.line, instruction_id: s.instruction_id, ...r };
}

const STATUSES = PAYOUT_STATUSES;
const STATUS_LIST = Object.fromEntries(STATUSES.map((st) => [st, `status:${st}`])) as Record<PayoutStatus, string>;
/** The list names of an instruction's payouts, made once per instruction (indexes() runs twice per commit). */
const names = new Map<string, { lines: string; status: Record<PayoutStatus, string> }>();
function listNames(instructionId: string): { lines: string; status: Record<PayoutStatus, string> } {
  let n = names.get(instructionId);
  if (!n) {
    if (names.size >= 64) names.clear();
    n = { lines: `instruction:${instructionId}`, status: Object.fromEntries(STATUSES.map((st) => [st, `instruction:${instructionId}:status:${st}`])) as Record<PayoutStatus, string> };
    names.set(instructionId, n);
  }
  return n;
}

const refuse = (s: PayoutState, why: string) => new ApiError('conflict', `Payout ${s.id} is ${s.status}: ${why}.`);

export const Payout = defineActor({
  kind: 'payout',
  prefix: DISBURSEMENT_PREFIX,
  creates: ['create'],
  snapshotEvery: 50,
  initial: (id: string, org: string): PayoutState => ({
    // every field a create folds in is named here (pay_profile_id too), so the create's spread of
    // the command over this state overwrites fields rather than adding them: V8 builds a literal
    // that adds fields to a spread source on a slow path, a new hidden class per payout
    id, org, livemode: false, mocked: true, instruction_id: '', line: 0, payslip_id: null, pay_profile_id: null, payee_ref: '', amount: 0, currency: 'NGN', account: null, validation: null,
    rails: [], max_attempts: 1, timing: { answer_timeout_ms: {}, query_delays_ms: { first: 60_000, fast: 60_000, fast_tries: 3, slow: 3_600_000 }, not_found_is_failed_after_ms: 1_800_000 },
    status: 'sending', held_reason: null, failure_reason: null, attempts: [], next_query_at: null, created_at: 0, updated_at: 0, settled_at: null, failed_at: null,
  }),
  decide: {
    create(s: PayoutState, cmd: CreatePayout, ctx): PayoutEvent[] {
      if (ctx.version > 0) return [];
      const { passport_live, ...created } = cmd;
      const me = { ...s, ...created, id: ctx.id };
      if (!created.account) return [{ type: 'payout.held', held_reason: 'no_bank_account', ...created }];
      if (!passport_live) return [{ type: 'payout.held', held_reason: 'passport_not_live', ...created }];
      const base = { amount: cmd.amount, line: cmd.line, instruction_id: cmd.instruction_id, before_created: created };
      if (cmd.validation && cmd.validation.status !== 'matched' && cmd.validation.status !== 'not_compared') {
        return [{ type: 'payout.failed', reason: cmd.validation.status === 'name_mismatch' ? `account_name_mismatch: the account is held by "${cmd.validation.returned_name}"` : 'account_not_found at name enquiry', ...base }];
      }
      if (cmd.rails.length === 0) return [{ type: 'payout.failed', reason: 'no_eligible_rail: no rail of the plan reaches this bank or allows this amount', ...base }];
      return [{ type: 'payout.created', ...created }, started(me, cmd.rails[0], 1)];
    },
    release(s: PayoutState, cmd: ReleasePayout): PayoutEvent[] {
      if (s.status !== 'held') return [];
      const still: HeldReason | null = !cmd.account ? 'no_bank_account' : !cmd.passport_live ? 'passport_not_live' : null;
      if (still) return still === s.held_reason ? [] : [{ type: 'payout.hold_changed', held_reason: still, payee_ref: s.payee_ref, line: s.line, instruction_id: s.instruction_id, amount: s.amount }];
      const base = { amount: s.amount, line: s.line, instruction_id: s.instruction_id };
      if (cmd.validation && cmd.validation.status !== 'matched' && cmd.validation.status !== 'not_compared') {
        return [{ type: 'payout.failed', reason: cmd.validation.status === 'name_mismatch' ? `account_name_mismatch: the account is held by "${cmd.validation.returned_name}"` : 'account_not_found at name enquiry', ...base }];
      }
      if (cmd.rails.length === 0) return [{ type: 'payout.failed', reason: 'no_eligible_rail: no rail of the plan reaches this bank or allows this amount', ...base }];
      return [{ type: 'payout.released', account: cmd.account!, validation: cmd.validation, rails: cmd.rails, payee_ref: s.payee_ref }, started({ ...s, account: cmd.account }, cmd.rails[0], 1)];
    },
    record_answer(s: PayoutState, cmd: Answer, ctx): PayoutEvent[] {
      const a = current(s);
      if (!a || a.id !== cmd.attempt_id || a.status !== 'sending' || s.status !== 'sending') return [];
      switch (cmd.outcome) {
        case 'settled':
          // One event: the answer is the settlement (the attempt takes its code and words).
          return [{ type: 'payout.settled', attempt_id: a.id, rail_id: a.rail_id, amount: s.amount, line: s.line, instruction_id: s.instruction_id, code: cmd.code, detail: cmd.detail }];
        case 'refused':
          return [{ type: 'payout.attempt_answered', attempt_id: a.id, status: 'refused', code: cmd.code, detail: cmd.detail }, ...next(s, a, `refused ${cmd.code}`)];
        case 'pending':
          return [{ type: 'payout.attempt_answered', attempt_id: a.id, status: 'pending', code: cmd.code, detail: cmd.detail }];
        case 'timeout':
          return [{ type: 'payout.attempt_answered', attempt_id: a.id, status: 'unknown', code: cmd.code, detail: cmd.detail }];
        default:
          throw new ApiError('validation_failed', `Unknown rail outcome ${String((cmd as { outcome: unknown }).outcome)} at ${ctx.now}.`);
      }
    },
    answer_overdue(s: PayoutState, cmd: { attempt_id: string }, ctx): PayoutEvent[] {
      const a = current(s);
      const due = answerDueAt(s);
      if (!a || a.id !== cmd.attempt_id || due === null || ctx.now < due) return [];
      return [{ type: 'payout.attempt_answered', attempt_id: a.id, status: 'unknown', code: 'no_answer', detail: `No answer from ${a.rail_id} within its time-out; the outcome is unknown until the status query answers.` }];
    },
    query_due(s: PayoutState, _cmd: unknown, ctx): PayoutEvent[] {
      const a = current(s);
      if (!a || (s.status !== 'pending' && s.status !== 'unknown')) return [];
      const n = a.status_queries + 1;
      return [{ type: 'payout.status_query_due', attempt_id: a.id, rail_id: a.rail_id, reference: a.id, n, next_query_at: ctx.now + queryDelay(s.timing, n + 1) }];
    },
    record_status(s: PayoutState, cmd: StatusResult, ctx): PayoutEvent[] {
      const a = current(s);
      if (!a || a.id !== cmd.attempt_id || (s.status !== 'pending' && s.status !== 'unknown')) return [];
      const answered = (status: AttemptStatus): PayoutEvent => ({ type: 'payout.status_answered', attempt_id: a.id, status, code: cmd.code, detail: cmd.detail });
      if (cmd.status === 'settled') return [answered('settled'), { type: 'payout.settled', attempt_id: a.id, rail_id: a.rail_id, amount: s.amount, line: s.line, instruction_id: s.instruction_id }];
      if (cmd.status === 'failed') return [answered('failed'), ...next(s, a, `failed ${cmd.code} (status query)`)];
      // Credited and then returned before we knew it settled: the money is back, as after a failure.
      if (cmd.status === 'reversed') return [answered('reversed'), ...next(s, a, `reversed ${cmd.code} (status query)`)];
      if (cmd.status === 'not_found' && ctx.now - a.sent_at >= s.timing.not_found_is_failed_after_ms) {
        return [{ ...answered('failed'), detail: `${cmd.detail} Not located ${Math.round((ctx.now - a.sent_at) / 1000)} s after sending (policy window): not received.` } as PayoutEvent, ...next(s, a, `not located (${cmd.code})`)];
      }
      return [answered(s.status)];
    },
    record_reversal(s: PayoutState, cmd: { attempt_id: string; code: string; detail: string }, ctx): PayoutEvent[] {
      if (s.status === 'reversed') return [];
      const a = current(s);
      if (s.status !== 'settled' || !a || a.id !== cmd.attempt_id) throw refuse(s, `the rail reports attempt ${cmd.attempt_id} returned, but only the settled attempt of a settled payout is reversed`);
      return [reversed(s, a, { by: 'rail', code: cmd.code, detail: cmd.detail, reason: null, principal: ctx.principal ?? null })];
    },
    reverse(s: PayoutState, cmd: { reason: string }, ctx): PayoutEvent[] {
      const a = current(s);
      if (s.status !== 'settled' || !a) throw refuse(s, s.status === 'reversed' ? 'it was already reversed' : 'only a settled payout can be reversed');
      return [reversed(s, a, { by: 'operator', code: null, detail: `Reversal recorded by ${ctx.principal ?? 'a person'}: ${cmd.reason}`, reason: cmd.reason, principal: ctx.principal ?? null })];
    },
    mark_unknown(s: PayoutState, cmd: { reason: string }): PayoutEvent[] {
      const a = current(s);
      if (s.status === 'unknown') return [];
      if (!a || (s.status !== 'sending' && s.status !== 'pending')) throw refuse(s, 'only a payout waiting for its rail can be marked unknown');
      return [{ type: 'payout.marked_unknown', attempt_id: a.id, reason: cmd.reason }];
    },
  },
  evolve(s: PayoutState, e: PayoutEvent, meta): PayoutState {
    const at = meta.at;
    switch (e.type) {
      case 'payout.created': {
        const { type: _t, ...c } = e;
        return { ...s, ...c, status: 'sending', created_at: at, updated_at: at };
      }
      case 'payout.held': {
        const { type: _t, held_reason, ...c } = e;
        return { ...s, ...c, status: 'held', held_reason, created_at: at, updated_at: at };
      }
      case 'payout.hold_changed':
        return { ...s, held_reason: e.held_reason, updated_at: at };
      case 'payout.released':
        return { ...s, account: e.account, validation: e.validation, rails: e.rails, held_reason: null, status: 'sending', updated_at: at };
      case 'payout.failed': {
        const first = e.before_created ? { ...s, ...e.before_created, created_at: at } : s;
        return { ...first, status: 'failed', failure_reason: e.reason, failed_at: at, updated_at: at, next_query_at: null };
      }
      case 'payout.attempt_started':
        return { ...s, status: 'sending', next_query_at: null, updated_at: at, attempts: [...s.attempts, { id: e.attempt_id, n: e.n, rail_id: e.rail_id, status: 'sending', code: null, detail: null, sent_at: at, answered_at: null, status_queries: 0 }] };
      case 'payout.attempt_answered': {
        const status: PayoutStatus = e.status === 'pending' ? 'pending' : e.status === 'unknown' ? 'unknown' : s.status;
        return { ...s, status, updated_at: at, next_query_at: status === 'pending' || status === 'unknown' ? at + queryDelay(s.timing, 1) : s.next_query_at, attempts: withAttempt(s, e.attempt_id, (a) => ({ ...a, status: e.status, code: e.code, detail: e.detail, answered_at: at })) };
      }
      case 'payout.status_query_due':
        return { ...s, next_query_at: e.next_query_at, updated_at: at, attempts: withAttempt(s, e.attempt_id, (a) => ({ ...a, status_queries: e.n })) };
      case 'payout.status_answered':
        return { ...s, updated_at: at, attempts: withAttempt(s, e.attempt_id, (a) => ({ ...a, status: e.status, code: e.code, detail: e.detail, answered_at: at })) };
      case 'payout.marked_unknown':
        return { ...s, status: 'unknown', updated_at: at, next_query_at: at + queryDelay(s.timing, 1), attempts: withAttempt(s, e.attempt_id, (a) => ({ ...a, status: 'unknown', code: a.code ?? 'marked_unknown', detail: e.reason })) };
      case 'payout.reversed': {
        const reversal: Reversal = { by: e.by, attempt_id: e.attempt_id, code: e.code, detail: e.detail, reason: e.reason, principal: e.principal, at };
        return { ...s, status: 'reversed', updated_at: at, reversal, attempts: withAttempt(s, e.attempt_id, (x) => ({ ...x, status: 'reversed' })) };
      }
      case 'payout.settled': {
        const answered = e.code === undefined ? s.attempts : withAttempt(s, e.attempt_id, (a) => ({ ...a, status: 'settled', code: e.code!, detail: e.detail ?? null, answered_at: at }));
        return { ...s, status: 'settled', settled_at: at, updated_at: at, next_query_at: null, attempts: answered };
      }
    }
  },
  timers(s: PayoutState): TimerWish[] {
    // Only a payout waiting for its status query has a reminder; the answer time-out is the instruction's (header).
    if ((s.status === 'pending' || s.status === 'unknown') && s.next_query_at !== null) return [{ name: 'query', dueAt: s.next_query_at, command: 'query_due', payload: {} }];
    return NO_TIMERS;
  },
  indexes(s: PayoutState): IndexEntry[] {
    const key = sortKeyTime(s.created_at);
    const line = String(s.line).padStart(9, '0');
    const names = listNames(s.instruction_id);
    const out: IndexEntry[] = [
      { list: 'all', sortKey: key },
      { list: names.lines, sortKey: line },
      { list: STATUS_LIST[s.status], sortKey: key },
      { list: names.status[s.status], sortKey: line },
    ];
    if (s.validation) out.push({ list: 'validated', sortKey: key });
    return out;
  },
  view: payoutView,
});

