/**
 * Watching the shard lease table after a fault (docs/cluster.md "Leases"): every shard must be
 * owned by a live node again within LEASE_BOUND_MS, and at every look after that until the watch
 * ends (BENCH_CHAOS_WATCH_MS, 60 s by default), whatever died: a NATS server or a node.
 */
import { absolute, round, type BenchResult } from '../report.ts';
import { sleep } from './client.ts';
import type { LeaseTable } from './lease-table.ts';
import { unowned } from './lease-table.ts';
import type { ChaosPlatform } from './platform.ts';

/** A JetStream election or a lapsed lease (a few seconds) plus a lease period, with room. */
export const LEASE_BOUND_MS = 10_000;
export const WATCH_MS = Number(process.env.BENCH_CHAOS_WATCH_MS ?? 60_000);
const LOOK_EVERY_MS = 250;

/** Looks at the table from `faultAt` (performance.now()) for WATCH_MS; rows named `[name] ...`. `boundMs`: nodes with longer leases lapse later. */
export async function watchLeases(p: ChaosPlatform, table: LeaseTable, faultAt: number, name: string, what: string, boundMs = LEASE_BOUND_MS): Promise<BenchResult[]> {
  let reowned = Infinity;
  let looks = 0;
  let unreadable = 0;
  const late: string[] = [];
  while (performance.now() - faultAt < WATCH_MS) {
    const live = p.procs.filter((x) => x.up && x.child.exitCode === null).map((x) => x.id);
    const leases = await table.read();
    const since = performance.now() - faultAt;
    if (leases) {
      const n = unowned(leases, live, Date.now());
      if (n === 0 && reowned === Infinity) reowned = since;
      if (since > boundMs) {
        looks++;
        if (n > 0) late.push(`${round(since / 1000, 1)} s: ${n}`);
      }
    } else if (since > boundMs) unreadable++;
    await sleep(LOOK_EVERY_MS);
  }
  return [
    absolute(`[${name}] every shard owned again after`, round(reowned), 'ms', boundMs, false, what),
    absolute(`[${name}] looks with a shard unowned while nodes live`, late.length, 'looks', 0, false, `${looks} looks from ${boundMs / 1000} s to ${round(WATCH_MS / 1000)} s after the kill${late.length ? `; first ${late.slice(0, 3).join(', ')}` : ''}${unreadable ? `; ${unreadable} looks with the table unreadable` : ''}`),
  ];
}
