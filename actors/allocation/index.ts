/**
 * Public face of the Allocation area, part I (spec 2.8, 3 Integrity flag, 4.7): workers'
 * availability, heartbeats over REST and WebSocket, presence, the H3 supply map, integrity flags.
 * Later allocation work (work orders, ranking, offers) queries the map through `allocation()`.
 */
import type { Area, Platform } from '../../kernel/index.ts';
import { events } from './events.ts';
import { IntegrityFlag } from './supply/integrity-flag.ts';
import { activePolicy } from './policy.ts';
import { SandboxNetworkCrossCheck, type NetworkCrossCheckProvider } from './providers/network-cross-check.ts';
import { routes, service } from './supply/routes.ts';
import { dispatchRoutes } from './work-orders/routes.ts';
import { withDeviceAccess, withDeviceSockets } from './devices/device-access.ts';
import { DeviceCredential } from './devices/device-credential.ts';
import { DEVICE_REVOCATIONS, DeviceRevocations } from './devices/device-revocations.ts';
import { deviceRoutes } from './devices/routes.ts';
import { CASCADE_REMOVAL, CascadeRemoval } from './work-orders/cascade-removal.ts';
import { WorkOrder } from './work-orders/work-order.ts';
import { Assignment } from './assignments/assignment.ts';
import { ALLOCATION, AllocationService } from './supply/service.ts';
import { heartbeatSocket } from './supply/socket.ts';
import { supplySocket } from './supply/supply-feed.ts';
import { Worker } from './supply/worker.ts';

export { Worker, IntegrityFlag, AllocationService };
export { HEARTBEAT_SOCKET_PATH } from './supply/socket.ts';
export { SUPPLY_SOCKET_PATH, supplyFeed, type SupplyWorker } from './supply/supply-feed.ts';
export { DEVICE_SCOPES } from './devices/device-credentials.ts';
export { DEVICE_CREDENTIAL_PREFIX } from './devices/device-credential.ts';
/** The ranking over given sources, for the allocation bench beside the bare supply query. */
export { rankWith, rankForOpen, rankingSources, type RankingSources, type Gates } from './work-orders/work-orders.ts';
export { WorkOrder, Assignment };
export { WORK_ORDER_PREFIX } from './work-orders/work-order.ts';
export { assignmentIdOf } from './assignments/assignments.ts';
export { ACTIVE_WEIGHTS } from './work-orders/weights.ts';
export { INTEGRITY_FLAG_PREFIX, EXTERNAL_EXCLUSIONS, type ExternalExclusion } from './supply/worker.ts';
export { activePolicy, loadPolicies, type PolicyPack, type LoadedPolicy } from './policy.ts';
export { NearestBuffer, SupplyIndex, type Neighbour } from './supply/supply-index.ts';
export { SupplyMap, excludedBecause, EXCLUSION_REASONS, type ExclusionReason } from './supply/supply-map.ts';
export { SupplyReplica, type SupplyUpdate } from './supply/supply-replica.ts';
export { SupplyBus } from './supply/supply-bus.ts';
export { distanceMetres } from './geo.ts';
export { NETWORK_TEST_VALUES, type NetworkCrossCheckProvider } from './providers/network-cross-check.ts';
export type { HeartbeatReceipt, SupplyState } from './supply/service.ts';
export type { StoredReadingData } from './supply/heartbeat.ts';

/** The running allocation service of a platform (supply queries, heartbeats). */
export const allocation = (platform: Platform): AllocationService => service(platform);

export const area: Area = {
  name: 'allocation',
  kinds: [Worker, IntegrityFlag, WorkOrder, Assignment, DeviceCredential],
  // A worker's device credential reaches only its own worker's routes (spec 4.7; device-access.ts).
  routes: withDeviceAccess([...routes, ...dispatchRoutes, ...deviceRoutes]),
  events,
  sockets: withDeviceSockets(heartbeatSocket, [supplySocket]),
  start(platform) {
    const version = platform.config.ALLOCATION_POLICY_VERSION;
    const network: NetworkCrossCheckProvider = new SandboxNetworkCrossCheck();
    const s = new AllocationService(platform, activePolicy(version || undefined), network);
    platform.services.provide(ALLOCATION, s);
    s.start();
    const revocations = new DeviceRevocations(platform);
    platform.services.provide(DEVICE_REVOCATIONS, revocations);
    revocations.start();
    const removal = new CascadeRemoval(platform);
    platform.services.provide(CASCADE_REMOVAL, removal);
    removal.start();
  },
  async stop(platform) {
    await platform.services.remove(CASCADE_REMOVAL)?.stop();
    await platform.services.remove(DEVICE_REVOCATIONS)?.stop();
    platform.services.remove(ALLOCATION)?.stop();
  },
};
