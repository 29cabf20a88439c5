/**
 * Worker operations (spec 4.7, 6): a worker's availability set by their own device, the worker's
 * record with presence and supply state, their stored readings, exclusion from the supply map for
 * another area's reason and readmission, and the supply map's nearest-N query. Each runs on the
 * node-local service (service.ts) and the Worker actor (worker.ts).
 */
import { ApiError, type Caller, fieldError, type Platform, readings } from '../../../kernel/index.ts';
import { WORKER_ID, type AvailabilityState, type StoredReadingData } from './heartbeat.ts';
import type { Presence } from './presence.ts';
import { allocationService, type AllocationService } from './service.ts';
import type { ExclusionReason, Neighbour } from './supply-map.ts';
import type { SupplyRecord } from './supply-replica.ts';
import { Worker, type ExternalExclusion } from './worker.ts';

export interface SupplyState {
  object: 'supply_state';
  worker_id: string;
  presence: Presence;
  in_map: boolean;
  excluded_because: ExclusionReason | null;
  cell: string | null;
}

export interface SupplyQuery {
  latitude: number;
  longitude: number;
  radius_metres: number;
  limit?: number;
}

/** The worker's own device sets their availability; the answer already shows the change. */
export async function setAvailability(platform: Platform, caller: Caller, workerId: string, availability: AvailabilityState) {
  if (!WORKER_ID.test(workerId)) throw new ApiError('validation_failed', 'worker_id must be a subject reference of 1 to 255 URL-safe characters.');
  const s = allocationService(platform);
  const id = await actorId(s, caller.org, workerId);
  await platform.system.ask(Worker, id, 'set_availability', { worker_id: workerId, availability, livemode: caller.livemode }, caller);
  await readOwnWrite(s, caller.org, workerId, id);
  return workerRecord(platform, caller.org, workerId);
}

/** The worker's record as the actor views it, with presence and supply state. */
export async function workerRecord(platform: Platform, org: string, workerId: string) {
  const s = allocationService(platform);
  const got = s.liveWorker(org, workerId);
  const lw = got instanceof Promise ? await got : got;
  const r = s.tellSupply(lw, false);
  return { ...(Worker.view(lw.state) as object), presence: r.presence, supply: supplyState(s, r) };
}

/** The worker's supply state: in the map or excluded, and why. */
export async function supplyStateOf(platform: Platform, org: string, workerId: string): Promise<SupplyState> {
  const s = allocationService(platform);
  const got = s.liveWorker(org, workerId);
  const lw = got instanceof Promise ? await got : got;
  return supplyState(s, s.tellSupply(lw, false));
}

/**
 * A worker's stored readings with from <= recorded_at <= to, in recorded_at order (proof of
 * service and telemetry continuity read them) of the organisation's own worker of that worker_id (404 when it has none).
 */
export async function workerReadings(platform: Platform, org: string, workerId: string, from: number, to: number): Promise<{ recordedAt: number; data: StoredReadingData }[]> {
  const { id } = await allocationService(platform).workers.state(org, workerId);
  return (await readings(platform).range(id, from, to)) as { recordedAt: number; data: StoredReadingData }[];
}

/**
 * Exclude a worker from the supply map for a reason of another area (spec 6 cascade rule); the
 * removal is applied when the exclusion commits, before this resolves. readmitWorker lifts it.
 */
export async function excludeWorker(platform: Platform, org: string, workerId: string, reason: ExternalExclusion, requestId?: string): Promise<SupplyState> {
  const s = allocationService(platform);
  const id = await actorId(s, org, workerId);
  await platform.system.ask(Worker, id, 'exclude', { worker_id: workerId, reason }, { org, requestId, principal: 'system' });
  await readOwnWrite(s, org, workerId, id);
  return supplyStateOf(platform, org, workerId);
}

export async function readmitWorker(platform: Platform, org: string, workerId: string, reason: ExternalExclusion, requestId?: string): Promise<SupplyState> {
  const s = allocationService(platform);
  const { id } = await s.workers.state(org, workerId);
  await platform.system.ask(Worker, id, 'readmit', { reason }, { org, requestId, principal: 'system' });
  await readOwnWrite(s, org, workerId, id);
  return supplyStateOf(platform, org, workerId);
}

/** The nearest eligible workers within the radius, nearest first, as the supply map answers on this node. */
export function nearestSupply(platform: Platform, org: string, q: SupplyQuery): { object: 'list'; data: ({ object: 'supply_candidate' } & Neighbour)[]; has_more: false } {
  const s = allocationService(platform);
  const max = s.policy.pack.supply;
  if (q.radius_metres > max.max_query_radius_metres) throw fieldError('/radius_metres', 'out_of_range', `radius_metres is at most ${max.max_query_radius_metres}.`);
  const data = s.nearest(org, q.latitude, q.longitude, q.radius_metres, Math.min(q.limit ?? 25, max.max_query_limit));
  return { object: 'list', data: data.map((n) => ({ object: 'supply_candidate' as const, ...n })), has_more: false };
}

function supplyState(s: AllocationService, r: SupplyRecord): SupplyState {
  const pos = s.replica.map.position(r.org, r.workerId);
  return { object: 'supply_state', worker_id: r.workerId, presence: r.presence, in_map: pos !== undefined, excluded_because: r.excludedBecause, cell: pos?.cell ?? null };
}

/** The actor id of a worker, for a command that may create its record (an old-scheme record is adopted first). */
async function actorId(s: AllocationService, org: string, workerId: string): Promise<string> {
  return s.live.peek(org, workerId)?.id ?? (await s.workers.prepare(org, workerId));
}

/**
 * After a command on a worker: in a cluster its owner may be another node, whose announcement
 * is still on its way; read the committed state so this answer already shows the change.
 */
async function readOwnWrite(s: AllocationService, org: string, workerId: string, id: string): Promise<void> {
  if (!s.bus) return;
  s.mirror(org, workerId, await s.platform.system.state(Worker, id, org));
}

/** How far back a worker's recent readings are read (the card of a person watching the worker). */
export const RECENT_READINGS_WINDOW_MS = 6 * 3_600_000;

/**
 * A worker's last `limit` stored readings of the last RECENT_READINGS_WINDOW_MS, newest first, as a
 * list (docs/gaps.md#allocation): what a dispatcher checks on a worker's card (last positions,
 * battery, connectivity, mock and attestation signals).
 */
export async function recentReadings(platform: Platform, org: string, workerId: string, limit: number) {
  const now = platform.clock.now();
  const all = await workerReadings(platform, org, workerId, now - RECENT_READINGS_WINDOW_MS, now);
  const data = all.slice(-limit).reverse().map((r) => ({ object: 'reading' as const, worker_id: workerId, recorded_at: new Date(r.recordedAt).toISOString(), ...r.data }));
  return { object: 'list' as const, data, has_more: all.length > limit, next_cursor: null };
}

