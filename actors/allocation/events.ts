/**
 * Public event types of this part of allocation (spec 6: allocation has 10 types, the complete list
 * is not shown). Five are emitted here; the remaining five are left for work orders, offers,
 * assignments and exceptions. Every name is ours (docs/gaps.md#allocation).
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
];
