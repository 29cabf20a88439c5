/**
 * Public face of the Allocation area, part I (spec 2.8, 3 Integrity flag, 4.7): workers'
 * availability, heartbeats over REST and WebSocket, presence, the H3 supply map, integrity flags.
 * Later allocation work (work orders, ranking, offers) queries the map through `allocation()`.
 */
import type { Area, Platform } from '../../kernel/index.ts';
import { events } from './events.ts';
import { IntegrityFlag } from './integrity-flag.ts';
import { activePolicy } from './policy.ts';
import { SandboxNetworkCrossCheck, type NetworkCrossCheckProvider } from './providers/network-cross-check.ts';
import { routes, service } from './routes.ts';
import { dispatchRoutes } from './dispatch-routes.ts';
import { CASCADE_REMOVAL, CascadeRemoval } from './cascade-removal.ts';
import { WorkOrder } from './work-order.ts';
import { Assignment } from './assignment.ts';
import { ALLOCATION, AllocationService } from './service.ts';
import { heartbeatSocket } from './socket.ts';
import { Worker } from './worker.ts';

export { Worker, IntegrityFlag, AllocationService };
export { HEARTBEAT_SOCKET_PATH } from './socket.ts';
export { INTEGRITY_FLAG_PREFIX, EXTERNAL_EXCLUSIONS, type ExternalExclusion } from './worker.ts';
export { activePolicy, loadPolicies, type PolicyPack, type LoadedPolicy } from './policy.ts';
export { SupplyIndex, type Neighbour } from './supply-index.ts';
export { SupplyMap, excludedBecause, EXCLUSION_REASONS, type ExclusionReason } from './supply-map.ts';
export { distanceMetres } from './geo.ts';
export { NETWORK_TEST_VALUES, type NetworkCrossCheckProvider } from './providers/network-cross-check.ts';
export type { HeartbeatReceipt, SupplyState } from './service.ts';
export type { StoredReadingData } from './heartbeat.ts';

/** The running allocation service of a platform (supply queries, heartbeats). */
export const allocation = (platform: Platform): AllocationService => service(platform);

export const area: Area = {
  name: 'allocation',
  kinds: [Worker, IntegrityFlag, WorkOrder, Assignment],
  routes: [...routes, ...dispatchRoutes],
  events,
  sockets: [heartbeatSocket],
  start(platform) {
    const version = platform.config.ALLOCATION_POLICY_VERSION;
    const network: NetworkCrossCheckProvider = new SandboxNetworkCrossCheck();
    const s = new AllocationService(platform, activePolicy(version || undefined), network);
    platform.services.provide(ALLOCATION, s);
    s.start();
    const removal = new CascadeRemoval(platform);
    platform.services.provide(CASCADE_REMOVAL, removal);
    removal.start();
  },
  async stop(platform) {
    await platform.services.remove(CASCADE_REMOVAL)?.stop();
    platform.services.remove(ALLOCATION)?.stop();
  },
};
