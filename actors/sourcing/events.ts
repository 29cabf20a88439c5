/**
 * Public event types of the sourcing module (spec 6: source `flow`; the complete list is not
 * shown, so every name here is ours, in the spec's module.resource.past_tense_verb style;
 * docs/gaps.md#sourcing). Each is produced when a sourcing actor commits the journal event `on`.
 */
import type { PublicEventDecl } from '../../kernel/index.ts';

const ev = (type: string, kind: string, on: string, description: string): PublicEventDecl => ({ type, source: 'flow', schemaVersion: 1, kind, on, description, specGap: true });
const REQ = 'sourcing_requisition';
const DEL = 'sourcing_delivery';

export const events: PublicEventDecl[] = [
  ev('flow.requisition.created', REQ, 'requisition.created', 'A requisition was created; inferred fields listed, its text screened (quarantined at once on a blocking rule).'),
  ev('flow.requisition.updated', REQ, 'requisition.updated', 'A requisition not yet broadcast was edited in place and screened again.'),
  ev('flow.requisition.versioned', REQ, 'requisition.versioned', 'A requisition was edited after a broadcast: a new version was made; leads stay on theirs.'),
  ev('flow.requisition.inferences_confirmed', REQ, 'requisition.inferences_confirmed', 'Inferred fields were accepted or corrected.'),
  ev('flow.requisition.published', REQ, 'requisition.published', 'A requisition was published.'),
  ev('flow.requisition.quarantined', REQ, 'requisition.quarantined', 'A person quarantined a requisition.'),
  ev('flow.requisition.contested', REQ, 'requisition.contested', 'A quarantine finding was contested; the requisition is under review.'),
  ev('flow.requisition.quarantine_upheld', REQ, 'requisition.quarantine_upheld', 'A person upheld a contested quarantine.'),
  ev('flow.requisition.quarantine_released', REQ, 'requisition.quarantine_released', 'A person released a contested quarantine.'),
  ev('flow.requisition.closed', REQ, 'requisition.closed', 'A requisition was closed.'),
  ev('flow.broadcast.created', 'sourcing_broadcast', 'broadcast.created', 'A requisition version was broadcast to channels within the spend ceiling.'),
  ev('flow.delivery.delivered', DEL, 'delivery.delivered', 'A channel accepted a delivery.'),
  ev('flow.delivery.attempt_failed', DEL, 'delivery.attempt_failed', 'A delivery attempt timed out; the next attempt is scheduled.'),
  ev('flow.delivery.failed', DEL, 'delivery.failed', 'A channel refused a delivery, or its last retry timed out.'),
  ev('flow.lead.received', 'sourcing_lead', 'lead.received', 'A channel delivered a lead; it was screened against its requisition version.'),
  ev('flow.lead.promoted', 'sourcing_lead', 'lead.promoted', 'A lead was promoted to a subject with a subject_ref.'),
  ev('flow.spend_ceiling.set', 'sourcing_spend_ceiling', 'spend_ceiling.set', 'The spend ceiling of a period was set.'),
];
