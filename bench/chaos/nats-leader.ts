/**
 * The journal-leading server of a three-server NATS cluster killed -9 under keyed load, the nodes
 * on NATS_REPLICAS=3 (docs/cluster.md "Leases"): besides the common counts, every shard must be
 * owned by a live node again within LEASE_BOUND_MS and at every look after that for the rest of
 * the watch (lease-watch.ts), and the write outage p99 stays within 10 s.
 */
import { jetstreamManager } from '@nats-io/jetstream';
import { absolute, type BenchResult } from '../report.ts';
import { runFaultScenario } from './fault-run.ts';
import { LeaseTable } from './lease-table.ts';
import { WATCH_MS, watchLeases } from './lease-watch.ts';

const OUTAGE_TARGET_MS = Number(process.env.BENCH_CHAOS_NATS_OUTAGE_MS ?? 10_000);

let killed = '';
/** Opened before the kill: opening asks JetStream for account info, which has no answer during the meta election. */
let table: LeaseTable | undefined;

export const natsLeader = (): Promise<BenchResult[]> =>
  runFaultScenario({
    name: 'nats-leader',
    platform: { natsServers: 3 },
    outageTargetMs: OUTAGE_TARGET_MS,
    afterMs: WATCH_MS,
    async fault(p) {
      const jsm = await jetstreamManager(p.stores.nats, { timeout: 5_000 });
      const leader = (await jsm.streams.info(`${p.namespace}_journal`)).cluster?.leader;
      if (!leader) throw new Error('the journal stream has no leader to kill');
      killed = leader;
      table = await LeaseTable.open(p.nats.servers.map((s) => s.url), p.namespace);
      await p.nats.kill(leader);
    },
    async watch(p, faultAt) {
      if (!table) throw new Error('the lease table is opened by the fault');
      try {
        const rows = await watchLeases(p, table, faultAt, 'nats-leader', `server ${killed} (journal leader) killed -9`);
        const nodesAlive = p.procs.filter((x) => x.child.exitCode === null).length;
        return [...rows, absolute('[nats-leader] node processes alive at the end', nodesAlive, 'nodes', 3, true)];
      } finally {
        await table.close();
        table = undefined;
      }
    },
  });
