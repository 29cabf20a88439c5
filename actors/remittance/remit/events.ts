/**
 * Public event types of the remit part (spec 6: source `remit`). The spec names none of them
 * (docs/gaps.md, "Remittance: remittances, legs, receipts, returns"); each is
 * `remit.<resource>.<past_tense>`, and `data` is the record after the event.
 */
import { publicEvents, type PublicEventDecl } from '../../../kernel/index.ts';

const remittance = publicEvents('remit', 'remittance');
const leg = publicEvents('remit', 'remittance_leg');
const receipt = publicEvents('remit', 'remittance_receipt');
const taxReturn = publicEvents('remit', 'remittance_return');

export const events: PublicEventDecl[] = [
  remittance('remit.remittance.created', 'remittance.created', 'A remittance was made from an accepted instruction set, one leg per authority; it waits for approval.'),
  remittance('remit.remittance.approved', 'remittance.approved', 'A remittance was approved (maker-checker by person).'),
  remittance('remit.remittance.executing', 'remittance.executing', 'A remittance was executed: each leg pays its authority on its own.'),
  remittance('remit.remittance.completed', 'remittance.completed', 'Every leg of the remittance has a vaulted receipt.'),
  leg('remit.leg.created', 'leg.created', 'A leg was made for one authority of an executing remittance.'),
  leg('remit.leg.retried', 'leg.attempt_started', 'A leg started a payment attempt (the first, or a retry after its last instruction failed for good) with its own instruction_ref.'),
  leg('remit.leg.paying', 'leg.payment_started', 'The leg\u2019s signed instruction was accepted and executed by the payouts module.'),
  leg('remit.leg.failed', 'leg.failed', 'The leg\u2019s payment attempt failed (or could not execute); other legs are not held.'),
  leg('remit.leg.paid', 'leg.paid', 'The leg\u2019s payout settled; it waits for the authority\u2019s receipt.'),
  leg('remit.leg.completed', 'leg.completed', 'A receipt agreeing with the leg was vaulted; the leg is complete.'),
  receipt('remit.receipt.vaulted', 'receipt.vaulted', 'A receipt whose amount, period and authority agree with its leg was vaulted.'),
  receipt('remit.receipt.quarantined', 'receipt.quarantined', 'A receipt disagreeing with its leg (amount, period or authority) was quarantined and kept as evidence.'),
  taxReturn('remit.return.prepared', 'return.prepared', 'A monthly schedule or the annual employer return was prepared; it waits for approval.'),
  taxReturn('remit.return.approved', 'return.approved', 'A return was approved (maker-checker by person).'),
  taxReturn('remit.return.submitted', 'return.submitted', 'The authority\u2019s sandbox acknowledged the return.'),
  taxReturn('remit.return.rejected', 'return.rejected', 'The authority\u2019s sandbox rejected the return; the reasons are kept.'),
];
