/**
 * Which processes of a cluster are still members (DESIGN "Sharding"; docs/cluster.md
 * "Idempotency claims"). Work a process claims outside the actor system, such as an
 * Idempotency-Key in flight, names the claimant's `member`; another process takes the claim over
 * once that member has lapsed, instead of waiting out the claim's own lease. A cluster node
 * provides it (runtime/cluster ClusterNode); over the local stores createPlatform provides the sole
 * process's (soleProcessMembership); over the memory stores there is none, and claims then end
 * only with their lease (nothing outlives the process anyway).
 */
import { newId } from './base/index.ts';
import { serviceKey } from './services.ts';

export interface Membership {
  /** This process as a member: its node id and an incarnation fresh at each start. */
  readonly member: string;
  /**
   * True once `member` surely holds no membership lease (lapsed, left, or its node restarted);
   * false while this process cannot tell (itself cut off, or a member not heard of yet).
   */
  hasLapsed(member: string): boolean;
  /** How many members are live now, this one included (a budget shared by the nodes, gateway/rate-limits.ts); one where absent. */
  liveCount?(): number;
}

export const MEMBERSHIP = serviceKey<Membership>('membership');

/**
 * Over stores one process serves at a time (the local family: the data directory's lock), every
 * member but this process is a process that has ended: a claim it left when killed is taken over
 * at once by the next start, not after the claim's lease.
 */
export function soleProcessMembership(): Membership {
  const member = newId('proc_');
  return { member, hasLapsed: (m) => m !== member };
}
