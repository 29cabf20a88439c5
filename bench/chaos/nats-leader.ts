/**
 * The journal-leading server of a three-server NATS cluster killed -9 under keyed load, the nodes
 * on NATS_REPLICAS=3 (docs/cluster.md "Leases"): besides the common counts, every shard must be
 * owned by a live node again within LEASE_BOUND_MS and at every look after that for the rest of
 * the watch (BENCH_CHAOS_WATCH_MS, 60 s by default), and the write outage p99 stays within 10 s.
 */
import { jetstreamManager } from '@nats-io/jetstream';
import { absolute, round, type BenchResult } from '../report.ts';
import { sleep } from './client.ts';
import { runFaultScenario } from './fault-run.ts';
import { LeaseTable, unowned } from './lease-table.ts';

/** A JetStream election (a few seconds) plus a lease period (3 s), with room. */
const LEASE_BOUND_MS = 10_000;
const WATCH_MS = Number(process.env.BENCH_CHAOS_WATCH_MS ?? 60_000);
const OUTAGE_TARGET_MS = Number(process.env.BENCH_CHAOS_NATS_OUTAGE_MS ?? 10_000);
const LOOK_EVERY_MS = 250;

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
      let reowned = Infinity;
      let looks = 0;
      let unreadable = 0;
      const late: string[] = [];
      try {
        while (performance.now() - faultAt < WATCH_MS) {
          const live = p.procs.filter((x) => x.up && x.child.exitCode === null).map((x) => x.id);
          const leases = await table.read();
          const since = performance.now() - faultAt;
          if (leases) {
            const n = unowned(leases, live, Date.now());
            if (n === 0 && reowned === Infinity) reowned = since;
            if (since > LEASE_BOUND_MS) {
              looks++;
              if (n > 0) late.push(`${round(since / 1000, 1)} s: ${n}`);
            }
          } else if (since > LEASE_BOUND_MS) unreadable++;
          await sleep(LOOK_EVERY_MS);
        }
      } finally {
        await table.close();
        table = undefined;
      }
      const nodesAlive = p.procs.filter((x) => x.child.exitCode === null).length;
      return [
        absolute('[nats-leader] every shard owned again after', round(reowned), 'ms', LEASE_BOUND_MS, false, `server ${killed} (journal leader) killed -9`),
        absolute('[nats-leader] looks with a shard unowned while nodes live', late.length, 'looks', 0, false, `${looks} looks from ${LEASE_BOUND_MS / 1000} s to ${round(WATCH_MS / 1000)} s after the kill${late.length ? `; first ${late.slice(0, 3).join(', ')}` : ''}${unreadable ? `; ${unreadable} looks with the table unreadable` : ''}`),
        absolute('[nats-leader] node processes alive at the end', nodesAlive, 'nodes', 3, true),
      ];
    },
  });
