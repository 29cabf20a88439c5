/**
 * The supply family of the allocation area (spec 2.8, 3 Integrity flag, 4.7): workers'
 * availability, heartbeats over REST and WebSocket, presence, integrity flags, and the H3 supply
 * map of the whole cluster with its console feed. The area face (actors/allocation/index.ts)
 * re-exports what other families and areas may use.
 */
export { Worker, workerActorId, INTEGRITY_FLAG_PREFIX, EXTERNAL_EXCLUSIONS, type ExternalExclusion, type WorkerState, type WorkerEvent } from './worker.ts';
export { IntegrityFlag } from './integrity-flag.ts';
export { routes as supplyRoutes } from './routes.ts';
export { heartbeatSocket, HEARTBEAT_SOCKET_PATH } from './socket.ts';
export { supplySocket, SUPPLY_SOCKET_PATH, supplyFeed, type SupplyWorker } from './supply-feed.ts';
export { ALLOCATION, AllocationService, allocationService } from './service.ts';
export { heartbeatCounters, ingestHeartbeats, submitHeartbeats, type HeartbeatReceipt } from './heartbeats.ts';
export { excludeWorker, nearestSupply, readmitWorker, setAvailability, supplyStateOf, workerReadings, workerRecord, type SupplyState } from './workers.ts';
export type { StoredReadingData } from './heartbeat.ts';
export { NearestBuffer, SupplyIndex, type Neighbour } from './supply-index.ts';
export { SupplyMap, excludedBecause, EXCLUSION_REASONS, type ExclusionReason } from './supply-map.ts';
export { SupplyReplica, type SupplyUpdate } from './supply-replica.ts';
export { SupplyBus } from './supply-bus.ts';
