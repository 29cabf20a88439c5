/**
 * Public event types of the remit part (spec 6: source `remit`). The spec names none of them
 * (docs/gaps.md, "Remittance: remittances, legs, receipts, returns"); each is
 * `remit.<resource>.<past_tense>`, and `data` is the record after the event.
 */
import type { PublicEventDecl } from '../../../kernel/index.ts';

const ev = (type: string, kind: string, on: string, description: string): PublicEventDecl => ({ type, source: 'remit', schemaVersion: 1, kind, on, description, specGap: true });

export const events: PublicEventDecl[] = [
  ev('remit.remittance.created', 'remittance', 'remittance.created', 'A remittance was made from an accepted instruction set, one leg per authority; it waits for approval.'),
  ev('remit.remittance.approved', 'remittance', 'remittance.approved', 'A remittance was approved (maker-checker by person).'),
  ev('remit.remittance.executing', 'remittance', 'remittance.executing', 'A remittance was executed: each leg pays its authority on its own.'),
  ev('remit.remittance.completed', 'remittance', 'remittance.completed', 'Every leg of the remittance has a vaulted receipt.'),
  ev('remit.leg.created', 'remittance_leg', 'leg.created', 'A leg was made for one authority of an executing remittance.'),
  ev('remit.leg.retried', 'remittance_leg', 'leg.attempt_started', 'A leg started a payment attempt (the first, or a retry after its last instruction failed for good) with its own instruction_ref.'),
  ev('remit.leg.paying', 'remittance_leg', 'leg.payment_started', 'The leg\u2019s signed instruction was accepted and executed by the payouts module.'),
  ev('remit.leg.failed', 'remittance_leg', 'leg.failed', 'The leg\u2019s payment attempt failed (or could not execute); other legs are not held.'),
  ev('remit.leg.paid', 'remittance_leg', 'leg.paid', 'The leg\u2019s payout settled; it waits for the authority\u2019s receipt.'),
  ev('remit.leg.completed', 'remittance_leg', 'leg.completed', 'A receipt agreeing with the leg was vaulted; the leg is complete.'),
  ev('remit.receipt.vaulted', 'remittance_receipt', 'receipt.vaulted', 'A receipt whose amount, period and authority agree with its leg was vaulted.'),
  ev('remit.receipt.quarantined', 'remittance_receipt', 'receipt.quarantined', 'A receipt disagreeing with its leg (amount, period or authority) was quarantined and kept as evidence.'),
  ev('remit.return.prepared', 'remittance_return', 'return.prepared', 'A monthly schedule or the annual employer return was prepared; it waits for approval.'),
  ev('remit.return.approved', 'remittance_return', 'return.approved', 'A return was approved (maker-checker by person).'),
  ev('remit.return.submitted', 'remittance_return', 'return.submitted', 'The authority\u2019s sandbox acknowledged the return.'),
  ev('remit.return.rejected', 'remittance_return', 'return.rejected', 'The authority\u2019s sandbox rejected the return; the reasons are kept.'),
];
