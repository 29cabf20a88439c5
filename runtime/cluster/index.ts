/** Public face of runtime/cluster: a node that shards the actor system over NATS (DESIGN "Sharding"). */
export { ClusterNode, type ClusterNodeOptions } from './node.ts';
export { DEFAULT_TIMINGS, type LeaseTimings } from './leases.ts';
export { DEFAULT_SHARDS, shardOf, shardOfStream, preferredOwner } from './shards.ts';
