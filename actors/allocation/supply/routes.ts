/** Allocation routes (spec 4.7): heartbeats, availability, integrity flags, the supply map. */
import { Type } from '@sinclair/typebox';
import { callerOf, callerRef, enumOf, idOf, listQueryWith, parseListQuery, route, type RouteDef, filteredList } from '../../../kernel/index.ts';
import { assertWorkerSetsAvailability } from '../devices/device-access.ts';
import { AVAILABILITY_STATES, HeartbeatBatchSchema } from './heartbeat.ts';
import { FLAG_STATUSES, IntegrityFlag } from './integrity-flag.ts';
import { adjudicateFlag } from './integrity-flags.ts';
import { heartbeatCounters, submitHeartbeats } from './heartbeats.ts';
import { nearestSupply, recentReadings, setAvailability, supplyStateOf, workerRecord } from './workers.ts';
import { INTEGRITY_FLAG_PREFIX } from './worker.ts';

const MODULE = 'match';

/** The batch schema for the OpenAPI document only: the gateway lets any body through to parseBatch. */
const HeartbeatBatchDoc = Type.Unknown(JSON.parse(JSON.stringify(HeartbeatBatchSchema)) as Record<string, unknown>);

const AvailabilityBody = Type.Object({ availability: enumOf(AVAILABILITY_STATES) });

const FlagListQuery = listQueryWith({
  status: Type.Optional(enumOf(FLAG_STATUSES)),
  worker_id: Type.Optional(callerRef('Only this worker\u2019s flags.')),
});

const AdjudicateBody = Type.Object({
  outcome: enumOf(['upheld', 'dismissed'] as const),
  reason: Type.String({ minLength: 1 }),
  accepted_signals: Type.Optional(Type.Array(Type.String())),
});

const ReadingsQuery = Type.Object({
  worker_id: callerRef('Whose readings.'),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
});
const SupplyQuery = Type.Object({
  latitude: Type.Number({ minimum: -90, maximum: 90 }),
  longitude: Type.Number({ minimum: -180, maximum: 180 }),
  radius_metres: Type.Number({ exclusiveMinimum: 0 }),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 25 })),
});

export const routes: RouteDef[] = [
  route({
    method: 'POST',
    path: '/v1/allocation/heartbeats',
    auth: 'key',
    module: MODULE,
    idempotent: true,
    // Documented in full, checked by parseBatch (the socket's check too), so both transports refuse
    // a malformed batch with the same report, indexed by reading position.
    body: HeartbeatBatchDoc,
    summary: 'Submit a batch of heartbeat readings of one worker; refused readings are named in rejections, the rest stored.',
    // Spec 4.7 lists 404: a worker_id with no availability record in the caller's organisation.
    errors: ['not_found'],
    handler: (req) => submitHeartbeats(req.platform, callerOf(req), req.body),
  }),
  route({
    method: 'GET',
    path: '/v1/allocation/heartbeats',
    auth: 'key',
    module: MODULE,
    idempotent: false,
    query: ReadingsQuery,
    summary: 'A worker\u2019s last stored readings of the last six hours, newest first (at most limit): positions, battery, connectivity and the device\u2019s signals.',
    specGap: 'Not named by the spec; a dispatcher\u2019s worker card reads it (docs/gaps.md#allocation).',
    errors: ['not_found'],
    handler: (req) => recentReadings(req.platform, req.org, req.query.worker_id, req.query.limit ?? 20),
  }),
  route({
    method: 'PUT',
    path: '/v1/allocation/availability/{worker_id}',
    auth: 'key',
    module: MODULE,
    idempotent: false,
    body: AvailabilityBody,
    summary: 'Set the availability of a worker with the worker\u2019s own device credential (the worker owns it; an organisation key is refused); the only way availability changes.',
    specGap: 'Request and response shapes and the availability states other than available are not shown; see docs/gaps.md#allocation.',
    handler: (req) => {
      assertWorkerSetsAvailability(req.principal); // spec 4.7; the device's worker is checked by withDeviceAccess
      return setAvailability(req.platform, callerOf(req), req.params.worker_id, req.body.availability);
    },
  }),
  route({
    method: 'GET',
    path: '/v1/allocation/availability/{worker_id}',
    auth: 'key',
    module: MODULE,
    idempotent: false,
    summary: 'Retrieve a worker\u2019s availability, presence and supply state.',
    specGap: 'Not named by the spec; the read of the record PUT writes. See docs/gaps.md#allocation.',
    handler: (req) => workerRecord(req.platform, req.org, req.params.worker_id),
  }),
  route({
    method: 'GET',
    path: '/v1/allocation/integrity_flags',
    auth: 'key',
    module: MODULE,
    idempotent: false,
    query: FlagListQuery,
    summary: 'List integrity flags, newest first; filters status and worker_id; next_cursor continues the list.',
    handler: async (req) => {
      const { limit, after } = parseListQuery(req.query);
      const { status, worker_id } = req.query;
      const list = filteredList({ worker: worker_id, status });
      const page = await req.platform.system.list(IntegrityFlag, req.org, list, { after, limit, order: 'desc' });
      const last = page.data[page.data.length - 1] as { id: string } | undefined;
      return { object: 'list', data: page.data, has_more: page.has_more, next_cursor: page.has_more && last ? last.id : null };
    },
  }),
  route({
    method: 'GET',
    path: '/v1/allocation/integrity_flags/{integrity_flag_id}',
    auth: 'key',
    module: MODULE,
    idempotent: false,
    summary: 'Retrieve an integrity flag.',
    specGap: 'Not named by the spec; a read by id like every other record. See docs/gaps.md#allocation.',
    handler: (req) => req.platform.system.get(IntegrityFlag, idOf(req.params.integrity_flag_id, INTEGRITY_FLAG_PREFIX, 'integrity flag'), req.org),
  }),
  route({
    method: 'POST',
    path: '/v1/allocation/integrity_flags/{integrity_flag_id}/adjudicate',
    auth: 'key',
    module: MODULE,
    idempotent: true,
    body: AdjudicateBody,
    summary: 'Decide an open integrity flag: upheld (suspends only with more than one independent signal) or dismissed (the worker returns).',
    handler: async (req) => adjudicateFlag(req.platform, callerOf(req), idOf(req.params.integrity_flag_id, INTEGRITY_FLAG_PREFIX, 'integrity flag'), req.body),
  }),
  route({
    method: 'GET',
    path: '/v1/allocation/supply',
    auth: 'key',
    module: MODULE,
    idempotent: false,
    query: SupplyQuery,
    summary: 'The nearest eligible workers within radius_metres of a point, nearest first (exact).',
    specGap: 'Supply state is not shown; this read exposes the supply map query work orders rank from. See docs/gaps.md#allocation.',
    handler: async (req) => nearestSupply(req.platform, req.org, req.query),
  }),
  route({
    method: 'GET',
    path: '/v1/allocation/supply/{worker_id}',
    auth: 'key',
    module: MODULE,
    idempotent: false,
    summary: 'A worker\u2019s supply state: in the map or excluded, and why (excluded_because).',
    specGap: 'Fields of supply state are not shown beyond excluded_because; see docs/gaps.md#allocation.',
    handler: (req) => supplyStateOf(req.platform, req.org, req.params.worker_id),
  }),
  route({
    method: 'GET',
    path: '/v1/allocation/counters',
    auth: 'key',
    module: MODULE,
    idempotent: false,
    summary: 'Heartbeat counters of the answering node for the caller\u2019s organisation since the node started: batches, readings received, accepted and refused (by reason).',
    specGap: 'Not named by the spec; the platform\u2019s own count a load test is checked against. See docs/gaps.md#console.',
    handler: async (req) => heartbeatCounters(req.platform, req.org),
  }),
];
