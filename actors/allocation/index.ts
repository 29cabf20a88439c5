/**
 * Public face of the Allocation area (spec 2.8, 3 Integrity flag, Work orders, offers, assignments,
 * exceptions, 4.7): workers' availability, heartbeats over REST and WebSocket, presence, the H3
 * supply map and integrity flags (supply/); work orders ranked over the map and offered down a
 * cascade (work-orders/); assignments with their proof and exceptions (assignments/); device
 * credentials (devices/). Each family's index.ts lists its part; this face is the one other areas use.
 */
import type { Area } from '../../kernel/index.ts';
import { events } from './events.ts';
import { activePolicy } from './policy.ts';
import { SandboxNetworkCrossCheck, type NetworkCrossCheckProvider } from './providers/network-cross-check.ts';
import { ALLOCATION, AllocationService, heartbeatSocket, IntegrityFlag, supplyRoutes, supplySocket, Worker } from './supply/index.ts';
import { CASCADE_REMOVAL, CascadeRemoval, WorkOrder, workOrderRoutes } from './work-orders/index.ts';
import { Assignment, assignmentRoutes } from './assignments/index.ts';
import { DEVICE_FEED, DEVICE_REVOCATIONS, DeviceCredential, DeviceFeed, DeviceInbox, DeviceRevocations, deviceRoutes, withDeviceAccess, withDeviceSockets } from './devices/index.ts';

export { Worker, IntegrityFlag, AllocationService, WorkOrder, Assignment, CASCADE_REMOVAL };
export { allocationService as allocation } from './supply/index.ts';
export {
  HEARTBEAT_SOCKET_PATH, SUPPLY_SOCKET_PATH, supplyFeed, type SupplyWorker,
  INTEGRITY_FLAG_PREFIX, EXTERNAL_EXCLUSIONS, type ExternalExclusion, workerActorId, type WorkerState, type WorkerEvent,
  heartbeatCounters, ingestHeartbeats, submitHeartbeats, type HeartbeatReceipt, type StoredReadingData,
  excludeWorker, nearestSupply, readmitWorker, setAvailability, supplyStateOf, workerReadings, workerRecord, type SupplyState,
  NearestBuffer, SupplyIndex, type Neighbour, SupplyMap, excludedBecause, EXCLUSION_REASONS, type ExclusionReason,
  SupplyReplica, type SupplyUpdate, SupplyBus,
} from './supply/index.ts';
export { DEVICE_SCOPES, DEVICE_CREDENTIAL_PREFIX, DeviceCredential, withDeviceSockets, DeviceInbox, inboxIdOf, DEVICE_FEED, deviceFeedOf, NOTICE_TYPES, type Notice, type NoticeType } from './devices/index.ts';
/** The ranking over given sources, for the allocation bench beside the bare supply query. */
export { rankWith, rankForOpen, rankingSources, type RankingSources, type Gates, WORK_ORDER_PREFIX, type WorkOrderState, ACTIVE_WEIGHTS } from './work-orders/index.ts';
export { assignmentIdOf } from './assignments/index.ts';
export { activePolicy, loadPolicies, type PolicyPack, type LoadedPolicy } from './policy.ts';
export { distanceMetres } from './geo.ts';
export { NETWORK_TEST_VALUES, type NetworkCrossCheckProvider } from './providers/network-cross-check.ts';

export const area: Area = {
  name: 'allocation',
  kinds: [Worker, IntegrityFlag, WorkOrder, Assignment, DeviceCredential, DeviceInbox],
  // A worker's device credential reaches only its own worker's routes (spec 4.7; devices/device-access.ts).
  routes: withDeviceAccess([...supplyRoutes, ...workOrderRoutes, ...assignmentRoutes, ...deviceRoutes]),
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
    // Offers and assignments to the worker's devices (devices/device-feed.ts).
    const feed = new DeviceFeed(platform);
    platform.services.provide(DEVICE_FEED, feed);
    feed.start();
    const removal = new CascadeRemoval(platform);
    platform.services.provide(CASCADE_REMOVAL, removal);
    removal.start();
  },
  async stop(platform) {
    await platform.services.remove(CASCADE_REMOVAL)?.stop();
    await platform.services.remove(DEVICE_FEED)?.stop();
    await platform.services.remove(DEVICE_REVOCATIONS)?.stop();
    platform.services.remove(ALLOCATION)?.stop();
  },
};
