/**
 * What a worker's device credential may do (spec 4.7: it "authenticates that worker's heartbeat
 * socket, heartbeats, PUT /v1/allocation/availability/{worker_id}, and their own offers and
 * assignment steps"; "an organisation key cannot change a worker's availability").
 *
 * Every allocation route passes through withDeviceAccess: a device principal reaches only the
 * routes of DEVICE_ROUTES, marked `devices` (the gateway refuses it on every other route of any
 * area, such as the module's event and audit lists), and only for its own worker (the worker the
 * request acts for is read from the path, the batch, the offer or the assignment); anything else
 * is 403 forbidden. It carries only DEVICE_SCOPES besides (spec 5.6). The heartbeat socket
 * checks each batch with deviceMayActFor; every other allocation socket refuses a device's frames
 * (withDeviceSockets). docs/gaps.md#allocation records the rules.
 */
import { ApiError, idOf, type Platform, type Principal, type RouteDef, type RouteRequest, type SocketDef } from '../../../kernel/index.ts';
import { Assignment, ASSIGNMENT_PREFIX } from '../assignments/assignment.ts';
import { DEVICE_REVOCATIONS, type DeviceRevocations } from './device-revocations.ts';
import { OFFER_PREFIX, WorkOrder, workOrderIdOfOffer } from '../work-orders/work-order.ts';

type WorkerOf = (req: RouteRequest) => string | undefined | Promise<string | undefined>;

const fromPath: WorkerOf = (req) => req.params.worker_id;
/** The batch's worker_id; a batch without a readable one is parseBatch's to refuse (400). */
const fromBatch: WorkerOf = (req) => {
  const b = req.body as { worker_id?: unknown } | null;
  return b !== null && typeof b === 'object' && typeof b.worker_id === 'string' ? b.worker_id : undefined;
};
const fromOffer: WorkerOf = async (req) => {
  const offerId = idOf(req.params.offer_id!, OFFER_PREFIX, 'offer');
  const wo = await req.platform.system.state(WorkOrder, workOrderIdOfOffer(offerId), req.org).catch((e: unknown) => {
    if (e instanceof ApiError && e.code === 'not_found') throw new ApiError('not_found', `No offer ${offerId}.`);
    throw e;
  });
  const o = wo.offers.find((x) => x.id === offerId);
  if (!o) throw new ApiError('not_found', `No offer ${offerId}.`);
  return o.worker_id;
};
const fromAssignment: WorkerOf = async (req) =>
  (await req.platform.system.state(Assignment, idOf(req.params.assignment_id!, ASSIGNMENT_PREFIX, 'assignment'), req.org)).worker_id;

/** A list's worker_id filter; a device that gives none lists its own worker's. */
const fromQuery: WorkerOf = (req) => {
  const w = (req.query as { worker_id?: unknown } | undefined)?.worker_id;
  return typeof w === 'string' ? w : undefined;
};

/** The routes a device may use, each with where its worker is read. */
const DEVICE_ROUTES = new Map<string, WorkerOf>([
  ['GET /v1/allocation/offers', fromQuery],
  ['GET /v1/allocation/assignments', fromQuery],
  ['POST /v1/allocation/heartbeats', fromBatch],
  ['PUT /v1/allocation/availability/{worker_id}', fromPath],
  ['GET /v1/allocation/availability/{worker_id}', fromPath],
  ['GET /v1/allocation/supply/{worker_id}', fromPath],
  ['GET /v1/allocation/offers/{offer_id}', fromOffer],
  ['POST /v1/allocation/offers/{offer_id}/accept', fromOffer],
  ['POST /v1/allocation/offers/{offer_id}/decline', fromOffer],
  ['GET /v1/allocation/assignments/{assignment_id}', fromAssignment],
  ...['start', 'arrive', 'arrival', 'depart', 'complete', 'completion'].map((op): [string, WorkerOf] => [`POST /v1/allocation/assignments/{assignment_id}/${op}`, fromAssignment]),
]);

/** A device credential acting for a worker not its own: 403 forbidden, naming both (spec 7). */
function notItsWorker(p: Principal, worker: string): ApiError {
  return new ApiError('forbidden', `This device credential acts only for worker ${p.worker}; it cannot act for worker ${worker.length > 80 ? `${worker.slice(0, 80)}...` : worker}.`);
}

/** Refuses a device principal acting for another worker, or whose credential was revoked (an open socket). */
export function deviceMayActFor(platform: Platform, p: Principal, worker: string): void {
  if (p.kind !== 'device') return;
  if (platform.services.get(DEVICE_REVOCATIONS)?.isRevoked(p.id) ?? false) throw new ApiError('unauthenticated', `Device credential ${p.id} was revoked.`);
  if (worker !== p.worker) throw notItsWorker(p, worker);
}

/** Spec 4.7: availability is the worker's; only their device credential changes it. */
export function assertWorkerSetsAvailability(p: Principal | undefined): void {
  if (p?.kind !== 'device') {
    throw new ApiError(
      'forbidden',
      'Availability is the worker\u2019s own (spec 4.7): only the worker\u2019s device credential can change it (POST /v1/allocation/device_credentials issues one); an organisation key cannot.',
    );
  }
}

/** Every allocation route, with a device principal confined to DEVICE_ROUTES and its own worker. */
export function withDeviceAccess(routes: readonly RouteDef[]): RouteDef[] {
  const mounted = new Set(routes.map((r) => `${r.method} ${r.path}`));
  for (const k of DEVICE_ROUTES.keys()) if (!mounted.has(k)) throw new Error(`device access: ${k} is not an allocation route`);
  return routes.map((def): RouteDef => {
    const workerOf = DEVICE_ROUTES.get(`${def.method} ${def.path}`);
    const handler = def.handler;
    return {
      ...def,
      // the gateway refuses a device principal on a route without it (kernel RouteDef.devices)
      devices: workerOf !== undefined,
      handler: async (req) => {
        const p = req.principal;
        if (p?.kind === 'device') {
          if (!workerOf) throw new ApiError('forbidden', `A device credential acts only for its worker's heartbeats, availability, offers and assignment steps; ${def.method} ${def.path} needs an organisation key.`);
          const worker = await workerOf(req);
          if (worker !== undefined) deviceMayActFor(req.platform, p, worker);
        }
        return handler(req);
      },
    };
  });
}

/** The heartbeat socket (which checks each batch's worker itself), then the others, which refuse a device's frames. */
export function withDeviceSockets(heartbeat: SocketDef, others: readonly SocketDef[]): SocketDef[] {
  return [heartbeat, ...others.map((def): SocketDef => {
    const onMessage = def.onMessage;
    return {
      ...def,
      onMessage: (frame, ctx) => {
        if (ctx.principal.kind === 'device') return Promise.reject(new ApiError('forbidden', `A device credential sends only its worker's heartbeats; ${def.path} needs an organisation key.`));
        return onMessage.call(def, frame, ctx);
      },
    };
  })];
}

export type { DeviceRevocations };
