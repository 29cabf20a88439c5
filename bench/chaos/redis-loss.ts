/**
 * Redis faults under keyed load: killed -9 and restarted empty (no persistence: snapshots, list
 * indexes and the reminders' due index gone, rebuilt from JetStream), and killed -9 with its own
 * append-only file fsynced on every write, restarted on the same directory (what it acknowledged
 * comes back). Either way nothing acknowledged may be lost: Redis holds only what is rebuildable.
 */
import type { BenchResult } from '../report.ts';
import { sleep } from './client.ts';
import { runFaultScenario } from './fault-run.ts';

/** How long Redis stays down between the kill and the restart. */
const DOWN_MS = Number(process.env.BENCH_CHAOS_REDIS_DOWN_MS ?? 1_000);
const OUTAGE_TARGET_MS = Number(process.env.BENCH_CHAOS_REDIS_OUTAGE_MS ?? 10_000);

export const redisEmpty = (): Promise<BenchResult[]> =>
  runFaultScenario({
    name: 'redis-empty',
    platform: { natsServers: 1 },
    outageTargetMs: OUTAGE_TARGET_MS,
    async fault(p) {
      await p.redis.stop();
      await sleep(DOWN_MS);
      await p.redis.restartEmpty();
    },
  });

export const redisPersistent = (): Promise<BenchResult[]> =>
  runFaultScenario({
    name: 'redis-aof',
    platform: { natsServers: 1, redisPersistent: true },
    outageTargetMs: OUTAGE_TARGET_MS,
    async fault(p) {
      await p.redis.stop();
      await sleep(DOWN_MS);
      await p.redis.restart();
    },
  });
