/**
 * Public event types of the payouts module (spec 6: source `route`). The spec names none of them
 * (docs/gaps.md#payouts); each is `route.<resource>.<past_tense>`, and `data` is the record after
 * the event. payroll.run.completed, the run's own event, follows an instruction's settlement.
 */
import { publicEvents, type PublicEventDecl } from '../../kernel/index.ts';

const instruction = publicEvents('route', 'payout_instruction');
const routePlan = publicEvents('route', 'route_plan');
const payout = publicEvents('route', 'payout');
const settlement = publicEvents('route', 'payout_settlement');
const reconciliation = publicEvents('route', 'payout_reconciliation');
const fundingAccount = publicEvents('route', 'payout_funding_account');

export const events: PublicEventDecl[] = [
  instruction('route.payout_instruction.received', 'instruction.received', 'A signed instruction passed its signature, line and duplicate checks.'),
  instruction('route.payout_instruction.quarantined', 'instruction.quarantined', 'A submitted instruction was quarantined (signature_invalid, duplicate_instruction or integrity_mismatch); kept as evidence, never executed.'),
  instruction('route.payout_instruction.funding_checked', 'instruction.funding_checked', 'A funding check compared the instruction\u2019s total with the funding account; a shortfall holds it in funding_pending.'),
  instruction('route.payout_instruction.planned', 'instruction.planned', 'A route plan was fixed for the instruction.'),
  instruction('route.payout_instruction.executing', 'instruction.executing', 'The instruction was executed: funds reserved, one payout per line being sent.'),
  instruction('route.payout_instruction.settled', 'instruction.settled', 'Every payout of the instruction settled.'),
  instruction('route.payout_instruction.partially_settled', 'instruction.partially_settled', 'Every payout is final; some settled, others failed or were held.'),
  instruction('route.payout_instruction.failed', 'instruction.failed', 'No payout of the instruction settled, or it was failed before execution.'),
  routePlan('route.route_plan.created', 'route_plan.created', 'A route plan was made: primary rail, ordered fallbacks, reasoning, max_attempts.'),
  payout('route.payout.held', 'payout.held', 'A line was not sent: its payee has no live passport, or no bank account.'),
  payout('route.payout.attempted', 'payout.attempt_started', 'An attempt was sent to a rail (the first, or the next rail after a definite failure).'),
  payout('route.payout.unknown', 'payout.marked_unknown', 'A person marked a payout unknown; its rail\u2019s status query resolves it.'),
  payout('route.payout.settled', 'payout.settled', 'A payout settled (the rail said 00, at once or by status query).'),
  payout('route.payout.failed', 'payout.failed', 'A payout failed: every rail of its plan refused or failed it, or it was never sendable.'),
  payout('route.payout.reversed', 'payout.reversed', 'A settled payout was reversed: the payee\u2019s bank returned the credit (found on the rail\u2019s statement) or a person recorded a return the bank reported. The payee is not paid; the net pay is owed again.'),
  instruction('route.payout_instruction.payout_reversed', 'instruction.payout_reversed', 'A payout of a final instruction was reversed: its progress and status follow, and its ledger posting returns the amount to the bank and the net pay to what is owed.'),
  settlement('route.settlement.created', 'settlement.created', 'A settlement and its receipt were made for a final instruction.'),
  reconciliation('route.reconciliation.completed', 'reconciliation.completed', 'A rail\u2019s statement was matched against our payouts; every mismatch is an exception.'),
  fundingAccount('route.funding_account.deposited', 'funding.deposited', 'A sandbox funding account was funded.'),
];
