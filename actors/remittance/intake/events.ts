/**
 * Public event types of the remittance intake and obligations (spec 6: source `remit`). The spec
 * names none of them (docs/gaps.md, "Remittance: intake, authorities, obligations"); each is
 * `remit.<resource>.<past_tense>`, and `data` is the record after the event.
 */
import { publicEvents, type PublicEventDecl } from '../../../kernel/index.ts';

const instructionSet = publicEvents('remit', 'remittance_instruction_set');
const obligation = publicEvents('remit', 'remittance_obligation');

export const events: PublicEventDecl[] = [
  instructionSet('remit.instruction_set.received', 'set.received', 'An instruction set was received: made from an executed run, submitted through the API or imported from a file.'),
  instructionSet('remit.instruction_set.validation_started', 'set.validating', 'Every line of the set is being checked (status validating).'),
  instructionSet('remit.instruction_set.validated', 'set.validated', 'The validation report is ready (status pending_acceptance); the set waits for accept or reject, with its discrepancies open.'),
  instructionSet('remit.discrepancy.overridden', 'set.discrepancy_overridden', 'A discrepancy of the set was overridden with a published reason code.'),
  instructionSet('remit.instruction_set.accepted', 'set.accepted', 'The set was accepted: its lines are committed as obligations and it may be remitted.'),
  instructionSet('remit.instruction_set.rejected', 'set.rejected', 'The set was rejected; nothing of it was committed.'),
  obligation('remit.obligation.created', 'obligation.created', 'An obligation to an authority for a levy and period was made, with its due date from the calendar rules.'),
  obligation('remit.obligation.remitted', 'obligation.remitted', 'The obligation was remitted: its leg\u2019s receipt was vaulted.'),
  obligation('remit.obligation.late', 'obligation.late', 'The obligation\u2019s due date passed before it was remitted.'),
];
