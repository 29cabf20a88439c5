/**
 * The payout instruction as the API shows it (spec 2.11 PayoutInstruction, FundingCheck; fields
 * beyond the spec: docs/gaps.md#payouts), with what it waits for (next_action, docs/gaps.md
 * "next_action").
 */
import { iso } from '../../runtime/index.ts';
import { type NextAction, nextAction, recordView } from '../../kernel/index.ts';
import type { FundingCheck, InstructionState } from './instruction-state.ts';

const money = (amount: number, currency: string) => ({ amount, currency });

export function instructionView(s: InstructionState) {
  return recordView('payout_instruction', s.id, s.livemode, false, {
    status: s.status,
    source: s.source,
    run_id: s.run_id,
    remittance_id: s.remittance_id,
    total: money(s.total, s.currency),
    line_count: s.line_count,
    idempotency_key: s.idempotency_key,
    signature_verified: s.signature_verified,
    quarantine_reason: s.quarantine_reason,
    quarantine_findings: s.findings,
    route_plan_id: s.route_plan_id,
    key_id: s.key_id,
    document_digest: s.document_digest,
    progress: {
      dispatched: s.dispatched,
      settled: s.settled_count,
      failed: s.failed_count,
      held: s.held_count,
      settled_amount: money(s.settled_amount, s.currency),
      failed_amount: money(s.failed_amount, s.currency),
      held_amount: money(s.held_amount, s.currency),
      reversed: s.reversed_count ?? 0,
      reversed_amount: money(s.reversed_amount ?? 0, s.currency),
    },
    failure_reason: s.failure_reason,
    next_action: instructionNextAction(s),
    created_at: iso(s.created_at),
    executed_at: s.executed_at === null ? null : iso(s.executed_at),
    finished_at: s.finished_at === null ? null : iso(s.finished_at),
  });
}

export function fundingCheckView(s: Pick<InstructionState, 'id' | 'livemode' | 'currency'>, c: FundingCheck) {
  return {
    object: 'funding_check' as const,
    livemode: s.livemode,
    mocked: true,
    instruction_id: s.id,
    sufficient: c.sufficient,
    required_amount: money(c.required_amount, s.currency),
    available_amount: money(c.available_amount, s.currency),
    shortfall: money(c.shortfall, s.currency),
    checked_at: iso(c.checked_at),
  };
}

/**
 * What the instruction waits for (docs/gaps.md "next_action"): a plan, an execute, funds (the amount
 * short), or the causes of its held lines; null while it moves on by itself or once final.
 */
export function instructionNextAction(s: InstructionState): NextAction | null {
  const path = `/v1/payouts/instructions/${s.id}`;
  switch (s.status) {
    case 'received':
      return s.route_plan_id === null ? nextAction('plan_instruction', 'The instruction has no route plan; make one.', { method: 'POST', path: `${path}/plan` }) : null;
    case 'planned':
      return nextAction('execute_instruction', 'The instruction is planned and funded; execute it to pay its lines.', { method: 'POST', path: `${path}/execute` });
    case 'funding_pending': {
      const c = s.funding_check;
      const short = c ? c.shortfall : s.total;
      const details = { amount_short: money(short, s.currency), required_amount: money(s.total, s.currency), available_amount: money(c?.available_amount ?? 0, s.currency) };
      const call = s.livemode ? null : { method: 'POST', path: '/v1/payouts/funding_account/deposits' };
      return nextAction('fund_account', `The funding account is short by ${short} kobo (${s.total} required); ${s.livemode ? 'fund it by bank transfer' : 'deposit'} and the instruction is executed${s.route_plan_id ? '' : ' once planned'}.`, call, details);
    }
    case 'executing': {
      if (s.held_count === 0 || s.outcomes.includes('.')) return null;
      const account = s.held_account_count ?? 0;
      const passport = s.held_count - account;
      const details = { held_count: s.held_count, held_amount: money(s.held_amount, s.currency), held_for_account: account, held_for_passport: passport };
      if (account > 0) return nextAction('add_payee_account', `${account} payee(s) have no bank account on file; their payouts are sent once one is set on the pay profile (GET /v1/payouts/payouts?instruction_id=${s.id}&status=held names them).`, { method: 'PATCH', path: '/v1/pay_profiles/{pay_profile_id}' }, details);
      return nextAction('verify_payee_identity', `${passport} payee(s) have no live passport; their payouts are sent once each payee's identity is verified.`, { method: 'POST', path: '/v1/identity/verifications' }, details);
    }
    case 'quarantined':
    case 'settled':
    case 'partially_settled':
    case 'failed':
      return null;
  }
}
