/**
 * Public event types of this part of allocation (spec 6: allocation has 10 types, the complete list
 * is not shown): these ten, every name ours (docs/gaps.md#allocation). Every other transition of a
 * work order, offer or assignment is recorded and has its audit entry; the ten are the ones a
 * subscriber acts on.
 */
import { publicEvents, type PublicEventDecl } from '../../kernel/index.ts';

const worker = publicEvents('match', 'allocation_worker');
const integrityFlag = publicEvents('match', 'allocation_integrity_flag');
const workOrder = publicEvents('match', 'allocation_work_order');
const assignment = publicEvents('match', 'allocation_assignment');

export const events: PublicEventDecl[] = [
  worker('match.worker.availability_changed', 'worker.availability_changed', 'A worker changed their availability through PUT /v1/allocation/availability/{worker_id}.'),
  worker('match.worker.presence_changed', 'worker.presence_changed', 'A worker\u2019s presence moved between reporting, stale and ghost (by heartbeats or by the clock).'),
  integrityFlag('match.integrity_flag.raised', 'integrity_flag.raised', 'An integrity flag opened for a worker with its first signal; the worker is held out of the supply map.'),
  integrityFlag('match.integrity_flag.upheld', 'integrity_flag.upheld', 'A person upheld an integrity flag; suspends is true only with more than one independent signal.'),
  integrityFlag('match.integrity_flag.dismissed', 'integrity_flag.dismissed', 'A person dismissed an integrity flag; the flag clears and the worker returns to the supply map.'),
  workOrder('match.offer.made', 'offer.made', 'An offer went to the next candidate of a work order\u2019s cascade; data is the work order with its cascade counts.'),
  workOrder('match.offer.accepted', 'offer.accepted', 'A worker accepted an offer (live passport, engagement executed and current); data is the work order, filled when the headcount is reached.'),
  workOrder('match.offer.withdrawn', 'offer.withdrawn', 'An offer was withdrawn with its reason: the headcount filled, the work order closed, or the worker left supply (cascade removal: identity_revoked, legal_standing_lapsed, licence_lapsed, integrity_flag_upheld).'),
  workOrder('match.supply_gap.declared', 'work_order.unfilled', 'A work order could not be filled and closed with its reason: no_eligible_supply, every_offer_declined_or_expired or window_passed (spec 6 supply gap).'),
  assignment('match.exception.raised', 'assignment.exception_raised', 'An assignment went to an exception: signals disagreed (a passcode with no geofence entry, short dwell, a telemetry gap, an integrity signal) or a person raised it; it does not settle until adjudicated.'),
];
