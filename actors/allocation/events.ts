/**
 * Public event types of this part of allocation (spec 6: allocation has 10 types, the complete list
 * is not shown): these ten, every name ours (docs/gaps.md#allocation). Every other transition of a
 * work order, offer or assignment is recorded and has its audit entry; the ten are the ones a
 * subscriber acts on.
 */
import type { PublicEventDecl } from '../../kernel/index.ts';

export const events: PublicEventDecl[] = [
  {
    type: 'match.worker.availability_changed',
    source: 'match',
    schemaVersion: 1,
    kind: 'allocation_worker',
    on: 'worker.availability_changed',
    description: 'A worker changed their availability through PUT /v1/allocation/availability/{worker_id}.',
    specGap: true,
  },
  {
    type: 'match.worker.presence_changed',
    source: 'match',
    schemaVersion: 1,
    kind: 'allocation_worker',
    on: 'worker.presence_changed',
    description: 'A worker\u2019s presence moved between reporting, stale and ghost (by heartbeats or by the clock).',
    specGap: true,
  },
  {
    type: 'match.integrity_flag.raised',
    source: 'match',
    schemaVersion: 1,
    kind: 'allocation_integrity_flag',
    on: 'integrity_flag.raised',
    description: 'An integrity flag opened for a worker with its first signal; the worker is held out of the supply map.',
    specGap: true,
  },
  {
    type: 'match.integrity_flag.upheld',
    source: 'match',
    schemaVersion: 1,
    kind: 'allocation_integrity_flag',
    on: 'integrity_flag.upheld',
    description: 'A person upheld an integrity flag; suspends is true only with more than one independent signal.',
    specGap: true,
  },
  {
    type: 'match.integrity_flag.dismissed',
    source: 'match',
    schemaVersion: 1,
    kind: 'allocation_integrity_flag',
    on: 'integrity_flag.dismissed',
    description: 'A person dismissed an integrity flag; the flag clears and the worker returns to the supply map.',
    specGap: true,
  },
  {
    type: 'match.offer.made',
    source: 'match',
    schemaVersion: 1,
    kind: 'allocation_work_order',
    on: 'offer.made',
    description: 'An offer went to the next candidate of a work order’s cascade; data is the work order with its cascade counts.',
    specGap: true,
  },
  {
    type: 'match.offer.accepted',
    source: 'match',
    schemaVersion: 1,
    kind: 'allocation_work_order',
    on: 'offer.accepted',
    description: 'A worker accepted an offer (live passport, engagement executed and current); data is the work order, filled when the headcount is reached.',
    specGap: true,
  },
  {
    type: 'match.offer.withdrawn',
    source: 'match',
    schemaVersion: 1,
    kind: 'allocation_work_order',
    on: 'offer.withdrawn',
    description: 'An offer was withdrawn with its reason: the headcount filled, the work order closed, or the worker left supply (cascade removal: identity_revoked, legal_standing_lapsed, licence_lapsed, integrity_flag_upheld).',
    specGap: true,
  },
  {
    type: 'match.supply_gap.declared',
    source: 'match',
    schemaVersion: 1,
    kind: 'allocation_work_order',
    on: 'work_order.unfilled',
    description: 'A work order could not be filled and closed with its reason: no_eligible_supply, every_offer_declined_or_expired or window_passed (spec 6 supply gap).',
    specGap: true,
  },
  {
    type: 'match.exception.raised',
    source: 'match',
    schemaVersion: 1,
    kind: 'allocation_assignment',
    on: 'assignment.exception_raised',
    description: 'An assignment went to an exception: signals disagreed (a passcode with no geofence entry, short dwell, a telemetry gap, an integrity signal) or a person raised it; it does not settle until adjudicated.',
    specGap: true,
  },
];
