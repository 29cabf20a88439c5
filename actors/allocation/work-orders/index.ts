/**
 * The work-orders family of the allocation area (spec 3 "Work orders, offers, assignments,
 * exceptions", 4.7, 6): work orders ranked over the supply map and offered down a cascade, their
 * offers, and the cascade removal that follows other areas' exclusions. The area face
 * (actors/allocation/index.ts) re-exports what other families and areas may use.
 */
export { WorkOrder, WORK_ORDER_PREFIX, type WorkOrderState } from './work-order.ts';
export { workOrderRoutes } from './routes.ts';
export { rankWith, rankForOpen, rankingSources, type RankingSources, type Gates } from './candidates.ts';
export { ACTIVE_WEIGHTS } from './weights.ts';
export { CASCADE_REMOVAL, CascadeRemoval } from './cascade-removal.ts';
