/**
 * The payout records as the API shows them (spec 2.11; fields not shown: docs/gaps.md#payouts): the
 * payout with what it waits for (next_action, docs/gaps.md "next_action"), its attempts and the
 * name enquiry made before paying. The account number is shown by its last four digits only.
 */
import { iso } from '../../runtime/index.ts';
import { type NextAction, nextAction, recordView } from '../../kernel/index.ts';
import { validationIdOf } from './ids.ts';
import { type Attempt, currentAttempt, type PayoutState } from './payout-state.ts';

const mask = (n: string) => `${'*'.repeat(Math.max(0, n.length - 4))}${n.slice(-4)}`;
const money = (amount: number, currency: string) => ({ amount, currency });

/** What a held payout waits for (docs/gaps.md "next_action"); a payout waiting for its rail moves on by itself. */
export function payoutNextAction(s: Pick<PayoutState, 'status' | 'held_reason' | 'payee_ref' | 'pay_profile_id'>): NextAction | null {
  if (s.status !== 'held') return null;
  if (s.held_reason === 'no_bank_account') {
    return nextAction('add_payee_account', `${s.payee_ref} has no bank account on file; the payout is sent once one is set on the pay profile.`, { method: 'PATCH', path: `/v1/pay_profiles/${s.pay_profile_id ?? '{pay_profile_id}'}` }, { payee_ref: s.payee_ref });
  }
  return nextAction('verify_payee_identity', `${s.payee_ref} has no live passport; the payout is sent once the payee's identity is verified and the passport is live.`, { method: 'POST', path: '/v1/identity/verifications' }, { payee_ref: s.payee_ref });
}

export function payoutView(s: PayoutState) {
  const a = currentAttempt(s);
  return recordView('payout', s.id, s.livemode, s.mocked, {
    instruction_id: s.instruction_id,
    line: s.line,
    payslip_id: s.payslip_id,
    payee_ref: s.payee_ref,
    amount: money(s.amount, s.currency),
    status: s.status,
    held_reason: s.held_reason,
    failure_reason: s.failure_reason,
    account: s.account ? { bank_code: s.account.bank_code, account_number_last4: mask(s.account.account_number), account_name: s.account.account_name ?? null } : null,
    account_validation_id: s.validation ? validationIdOf(s.id) : null,
    rail_ids: s.rails,
    max_attempts: s.max_attempts,
    attempt_count: s.attempts.length,
    current_attempt_id: a?.id ?? null,
    current_rail_id: a?.rail_id ?? null,
    next_status_query_at: s.next_query_at === null ? null : iso(s.next_query_at),
    created_at: iso(s.created_at),
    settled_at: s.settled_at === null ? null : iso(s.settled_at),
    failed_at: s.failed_at === null ? null : iso(s.failed_at),
    reversed_at: s.reversal ? iso(s.reversal.at) : null,
    next_action: payoutNextAction(s),
    reversal: s.reversal ? { by: s.reversal.by, attempt_id: s.reversal.attempt_id, code: s.reversal.code, detail: s.reversal.detail, reason: s.reversal.reason } : null,
  });
}

export function attemptView(s: PayoutState, a: Attempt) {
  return recordView('payout_attempt', a.id, s.livemode, s.mocked, {
    payout_id: s.id,
    n: a.n,
    rail_id: a.rail_id,
    reference: a.id,
    amount: money(s.amount, s.currency),
    status: a.status,
    code: a.code,
    detail: a.detail,
    status_queries: a.status_queries,
    sent_at: iso(a.sent_at),
    answered_at: a.answered_at === null ? null : iso(a.answered_at),
  });
}

export function validationView(s: PayoutState) {
  const v = s.validation!;
  return recordView('account_validation', validationIdOf(s.id), s.livemode, s.mocked, {
    payout_id: s.id,
    instruction_id: s.instruction_id,
    bank_code: s.account?.bank_code ?? null,
    account_number_last4: s.account ? mask(s.account.account_number) : null,
    name_on_instruction: s.account?.account_name ?? null,
    name_returned: v.returned_name,
    status: v.status,
    rail_id: v.rail_id,
    code: v.code,
    checked_at: iso(v.checked_at),
  });
}
