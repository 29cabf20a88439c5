/**
 * One of three node processes killed -9 under keyed load (DESIGN "Sharding"): besides the common
 * counts (rows.ts: lost, duplicates, credentials, list entries, reminders, write outage), every
 * shard must be owned by a live node again within the lease bound and at every look for the rest
 * of the watch (lease-watch.ts). node-kill.ts kills a node too and then restarts all three; this one
 * gives the same fault the counts every fault scenario prints.
 */
import type { BenchResult } from '../report.ts';
import { runFaultScenario } from './fault-run.ts';
import { LeaseTable } from './lease-table.ts';
import { WATCH_MS, watchLeases } from './lease-watch.ts';

/** A lapsed lease (the nodes' default lifetime) and a retry on another node, with room. */
const OUTAGE_TARGET_MS = Number(process.env.BENCH_CHAOS_NODE_OUTAGE_MS ?? 10_000);

let killed = '';
let table: LeaseTable | undefined;

export const nodeDown = (): Promise<BenchResult[]> =>
  runFaultScenario({
    name: 'node-down',
    platform: { natsServers: 1 },
    outageTargetMs: OUTAGE_TARGET_MS,
    afterMs: WATCH_MS,
    async fault(p) {
      table = await LeaseTable.open(p.nats.servers.map((s) => s.url), p.namespace);
      const victim = p.procs[1];
      killed = victim.id;
      await p.nodes.kill(victim);
    },
    async watch(p, faultAt) {
      if (!table) throw new Error('the lease table is opened by the fault');
      try {
        return await watchLeases(p, table, faultAt, 'node-down', `node ${killed} killed -9`);
      } finally {
        await table.close();
        table = undefined;
      }
    },
  });
