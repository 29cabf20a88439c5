/**
 * Loopback fault helpers shared by test/cluster and the chaos bench (bench/chaos): servers and node
 * processes of the caller's own, each stopped by its PID, never the shared NATS or Redis.
 */
export { NatsCluster, NATS_SERVER, type NatsServer } from './nats-cluster.ts';
export { OwnRedis, REDIS_SERVER } from './redis-server.ts';
export { NodeProcesses, type Proc } from './node-processes.ts';
export { payoutsFixtureArea } from './payouts-fixtures.ts';
