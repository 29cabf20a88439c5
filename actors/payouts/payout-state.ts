/**
 * The payout's state and the figures read from it (spec 2.11 "Individual payout"; the actor and
 * its table: payout.ts): statuses, attempts, timing, and when an answer is overdue or the next
 * status query due. Kept apart from the actor so its views (payout-views.ts) and the jobs that
 * read payouts (outcomes.ts) need not load the rules.
 */

export type PayoutStatus = 'held' | 'sending' | 'pending' | 'unknown' | 'settled' | 'failed' | 'reversed';
export type AttemptStatus = 'sending' | 'settled' | 'refused' | 'pending' | 'unknown' | 'failed' | 'reversed';
export const PAYOUT_STATUSES: readonly PayoutStatus[] = ['held', 'sending', 'pending', 'unknown', 'settled', 'failed', 'reversed'];
/** Statuses reported to the instruction: final ones, and held (the line waits; it is not final, payout.ts header). */
export const FINAL: ReadonlySet<PayoutStatus> = new Set(['held', 'settled', 'failed', 'reversed']);

/** Why a payout waits before its first attempt; it is released when the cause clears (holds.ts). */
export type HeldReason = 'passport_not_live' | 'no_bank_account';

export interface Reversal {
  by: 'rail' | 'operator';
  attempt_id: string;
  code: string | null;
  detail: string;
  reason: string | null;
  principal: string | null;
  at: number;
}

export interface BankAccount {
  bank_code: string;
  account_number: string;
  account_name?: string | null;
}

export interface AccountValidation {
  status: 'matched' | 'name_mismatch' | 'not_found' | 'not_compared';
  returned_name: string | null;
  rail_id: string;
  code: string;
  checked_at: number;
}

export interface PayoutTiming {
  answer_timeout_ms: Record<string, number>;
  query_delays_ms: { first: number; fast: number; fast_tries: number; slow: number };
  not_found_is_failed_after_ms: number;
}

export interface Attempt {
  id: string;
  n: number;
  rail_id: string;
  status: AttemptStatus;
  code: string | null;
  detail: string | null;
  sent_at: number;
  answered_at: number | null;
  status_queries: number;
}

export interface PayoutState {
  id: string;
  org: string;
  livemode: boolean;
  mocked: boolean;
  instruction_id: string;
  line: number;
  payslip_id: string | null;
  payee_ref: string;
  amount: number;
  currency: string;
  account: BankAccount | null;
  validation: AccountValidation | null;
  rails: string[];
  max_attempts: number;
  timing: PayoutTiming;
  status: PayoutStatus;
  held_reason: HeldReason | null;
  /** The payee's pay profile (a run's line), where a held line's account is read on release; absent on older states. */
  pay_profile_id?: string | null;
  failure_reason: string | null;
  attempts: Attempt[];
  next_query_at: number | null;
  created_at: number;
  updated_at: number;
  settled_at: number | null;
  failed_at: number | null;
  /** Absent on states made before reversals existed: read as null. */
  reversal?: Reversal | null;
}

export interface CreatePayout {
  instruction_id: string;
  line: number;
  payslip_id: string | null;
  pay_profile_id?: string | null;
  payee_ref: string;
  amount: number;
  currency: string;
  account: BankAccount | null;
  validation: AccountValidation | null;
  passport_live: boolean;
  /** The plan's rails (primary first) that reach this account and allow this amount. */
  rails: string[];
  max_attempts: number;
  timing: PayoutTiming;
  livemode: boolean;
  mocked: boolean;
}

export interface Answer {
  attempt_id: string;
  outcome: 'settled' | 'refused' | 'pending' | 'timeout';
  code: string;
  detail: string;
}

export interface StatusResult {
  attempt_id: string;
  status: 'settled' | 'failed' | 'pending' | 'not_found' | 'reversed';
  code: string;
  detail: string;
}


export const currentAttempt = (s: PayoutState): Attempt | undefined => s.attempts[s.attempts.length - 1];

/** When the current attempt's answer is overdue (its rail's time-out after sending); null unless sending. */
export function answerDueAt(s: PayoutState): number | null {
  const a = currentAttempt(s);
  return s.status === 'sending' && a && a.status === 'sending' ? a.sent_at + (s.timing.answer_timeout_ms[a.rail_id] ?? 60_000) : null;
}

export function queryDelay(t: PayoutTiming, n: number): number {
  return n <= 1 ? t.query_delays_ms.first : n <= t.query_delays_ms.fast_tries ? t.query_delays_ms.fast : t.query_delays_ms.slow;
}
