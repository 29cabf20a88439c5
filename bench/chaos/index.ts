/**
 * The chaos bench's scenarios by name (bench/scenarios/chaos.ts runs them; BENCH_CHAOS_ONLY picks
 * some). Each starts what it breaks and returns its rows.
 */
import type { BenchResult } from '../report.ts';
import { natsLeader } from './nats-leader.ts';
import { nodeDown } from './node-down.ts';
import { nodeKill } from './node-kill.ts';
import { payoutFailover } from './payout.ts';
import { redisEmpty, redisPersistent } from './redis-loss.ts';

export const CHAOS_SCENARIOS: Readonly<Record<string, () => Promise<BenchResult[]>>> = {
  'node-kill': nodeKill,
  'node-down': nodeDown,
  'redis-empty': redisEmpty,
  'redis-aof': redisPersistent,
  'nats-leader': natsLeader,
  payout: payoutFailover,
};
