/**
 * Public event types of the sourcing module (spec 6: source `flow`; the complete list is not
 * shown, so every name here is ours, in the spec's module.resource.past_tense_verb style;
 * docs/gaps.md#sourcing). Each is produced when a sourcing actor commits the journal event `on`.
 */
import { publicEvents, type PublicEventDecl } from '../../kernel/index.ts';

const requisition = publicEvents('flow', 'sourcing_requisition');
const broadcast = publicEvents('flow', 'sourcing_broadcast');
const delivery = publicEvents('flow', 'sourcing_delivery');
const lead = publicEvents('flow', 'sourcing_lead');
const spendCeiling = publicEvents('flow', 'sourcing_spend_ceiling');

export const events: PublicEventDecl[] = [
  requisition('flow.requisition.created', 'requisition.created', 'A requisition was created; inferred fields listed, its text screened (quarantined at once on a blocking rule).'),
  requisition('flow.requisition.updated', 'requisition.updated', 'A requisition not yet broadcast was edited in place and screened again.'),
  requisition('flow.requisition.versioned', 'requisition.versioned', 'A requisition was edited after a broadcast: a new version was made; leads stay on theirs.'),
  requisition('flow.requisition.inferences_confirmed', 'requisition.inferences_confirmed', 'Inferred fields were accepted or corrected.'),
  requisition('flow.requisition.published', 'requisition.published', 'A requisition was published.'),
  requisition('flow.requisition.quarantined', 'requisition.quarantined', 'A person quarantined a requisition.'),
  requisition('flow.requisition.contested', 'requisition.contested', 'A quarantine finding was contested; the requisition is under review.'),
  requisition('flow.requisition.quarantine_upheld', 'requisition.quarantine_upheld', 'A person upheld a contested quarantine.'),
  requisition('flow.requisition.quarantine_released', 'requisition.quarantine_released', 'A person released a contested quarantine.'),
  requisition('flow.requisition.closed', 'requisition.closed', 'A requisition was closed.'),
  broadcast('flow.broadcast.created', 'broadcast.created', 'A requisition version was broadcast to channels within the spend ceiling.'),
  delivery('flow.delivery.delivered', 'delivery.delivered', 'A channel accepted a delivery.'),
  delivery('flow.delivery.attempt_failed', 'delivery.attempt_failed', 'A delivery attempt timed out; the next attempt is scheduled.'),
  delivery('flow.delivery.failed', 'delivery.failed', 'A channel refused a delivery, or its last retry timed out.'),
  lead('flow.lead.received', 'lead.received', 'A channel delivered a lead; it was screened against its requisition version.'),
  lead('flow.lead.promoted', 'lead.promoted', 'A lead was promoted to a subject with a subject_ref.'),
  spendCeiling('flow.spend_ceiling.set', 'spend_ceiling.set', 'The spend ceiling of a period was set.'),
];
