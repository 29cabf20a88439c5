/**
 * Public event types of the payouts module (spec 6: source `route`). The spec names none of them
 * (docs/gaps.md#payouts); each is `route.<resource>.<past_tense>`, and `data` is the record after
 * the event. payroll.run.completed, the run's own event, follows an instruction's settlement.
 */
import type { PublicEventDecl } from '../../kernel/index.ts';

const ev = (type: string, kind: string, on: string, description: string): PublicEventDecl => ({ type, source: 'route', schemaVersion: 1, kind, on, description, specGap: true });

export const events: PublicEventDecl[] = [
  ev('route.payout_instruction.received', 'payout_instruction', 'instruction.received', 'A signed instruction passed its signature, line and duplicate checks.'),
  ev('route.payout_instruction.quarantined', 'payout_instruction', 'instruction.quarantined', 'A submitted instruction was quarantined (signature_invalid, duplicate_instruction or integrity_mismatch); kept as evidence, never executed.'),
  ev('route.payout_instruction.funding_checked', 'payout_instruction', 'instruction.funding_checked', 'A funding check compared the instruction\u2019s total with the funding account; a shortfall holds it in funding_pending.'),
  ev('route.payout_instruction.planned', 'payout_instruction', 'instruction.planned', 'A route plan was fixed for the instruction.'),
  ev('route.payout_instruction.executing', 'payout_instruction', 'instruction.executing', 'The instruction was executed: funds reserved, one payout per line being sent.'),
  ev('route.payout_instruction.settled', 'payout_instruction', 'instruction.settled', 'Every payout of the instruction settled.'),
  ev('route.payout_instruction.partially_settled', 'payout_instruction', 'instruction.partially_settled', 'Every payout is final; some settled, others failed or were held.'),
  ev('route.payout_instruction.failed', 'payout_instruction', 'instruction.failed', 'No payout of the instruction settled, or it was failed before execution.'),
  ev('route.route_plan.created', 'route_plan', 'route_plan.created', 'A route plan was made: primary rail, ordered fallbacks, reasoning, max_attempts.'),
  ev('route.payout.held', 'payout', 'payout.held', 'A line was not sent: its payee has no live passport, or no bank account.'),
  ev('route.payout.attempted', 'payout', 'payout.attempt_started', 'An attempt was sent to a rail (the first, or the next rail after a definite failure).'),
  ev('route.payout.unknown', 'payout', 'payout.marked_unknown', 'A person marked a payout unknown; its rail\u2019s status query resolves it.'),
  ev('route.payout.settled', 'payout', 'payout.settled', 'A payout settled (the rail said 00, at once or by status query).'),
  ev('route.payout.failed', 'payout', 'payout.failed', 'A payout failed: every rail of its plan refused or failed it, or it was never sendable.'),
  ev('route.payout.reversed', 'payout', 'payout.reversed', 'A settled payout was reversed: the payee\u2019s bank returned the credit (found on the rail\u2019s statement) or a person recorded a return the bank reported. The payee is not paid; the net pay is owed again.'),
  ev('route.payout_instruction.payout_reversed', 'payout_instruction', 'instruction.payout_reversed', 'A payout of a final instruction was reversed: its progress and status follow, and its ledger posting returns the amount to the bank and the net pay to what is owed.'),
  ev('route.settlement.created', 'payout_settlement', 'settlement.created', 'A settlement and its receipt were made for a final instruction.'),
  ev('route.reconciliation.completed', 'payout_reconciliation', 'reconciliation.completed', 'A rail\u2019s statement was matched against our payouts; every mismatch is an exception.'),
  ev('route.funding_account.deposited', 'payout_funding_account', 'funding.deposited', 'A sandbox funding account was funded.'),
];
