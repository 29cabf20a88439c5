/**
 * Public event types of the remittance intake and obligations (spec 6: source `remit`). The spec
 * names none of them (docs/gaps.md, "Remittance: intake, authorities, obligations"); each is
 * `remit.<resource>.<past_tense>`, and `data` is the record after the event.
 */
import type { PublicEventDecl } from '../../../kernel/index.ts';

const ev = (type: string, kind: string, on: string, description: string): PublicEventDecl => ({ type, source: 'remit', schemaVersion: 1, kind, on, description, specGap: true });
const SET = 'remittance_instruction_set';
const OBLIGATION = 'remittance_obligation';

export const events: PublicEventDecl[] = [
  ev('remit.instruction_set.received', SET, 'set.received', 'An instruction set was received: made from an executed run, submitted through the API or imported from a file.'),
  ev('remit.instruction_set.validation_started', SET, 'set.validating', 'Every line of the set is being checked (status validating).'),
  ev('remit.instruction_set.validated', SET, 'set.validated', 'The validation report is ready (status pending_acceptance); the set waits for accept or reject, with its discrepancies open.'),
  ev('remit.discrepancy.overridden', SET, 'set.discrepancy_overridden', 'A discrepancy of the set was overridden with a published reason code.'),
  ev('remit.instruction_set.accepted', SET, 'set.accepted', 'The set was accepted: its lines are committed as obligations and it may be remitted.'),
  ev('remit.instruction_set.rejected', SET, 'set.rejected', 'The set was rejected; nothing of it was committed.'),
  ev('remit.obligation.created', OBLIGATION, 'obligation.created', 'An obligation to an authority for a levy and period was made, with its due date from the calendar rules.'),
  ev('remit.obligation.remitted', OBLIGATION, 'obligation.remitted', 'The obligation was remitted: its leg\u2019s receipt was vaulted.'),
  ev('remit.obligation.late', OBLIGATION, 'obligation.late', 'The obligation\u2019s due date passed before it was remitted.'),
];
