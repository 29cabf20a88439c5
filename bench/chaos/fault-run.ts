/**
 * The shape every fault scenario but the payout one shares: its own platform, keyed load, consent
 * reminders armed to fall due around the fault, the fault itself some seconds into the load, the
 * load kept up for a while after it, then the counts (rows.ts). A scenario gives its fault and,
 * optionally, a watch that runs from the fault alongside the load and adds rows of its own.
 */
import type { BenchResult } from '../report.ts';
import { deadCredentials, journalCounts, missingFromList } from './checks.ts';
import { sleep } from './client.ts';
import { keyedLoad, longestGap, outageP99 } from './keyed-load.ts';
import { startPlatform, type ChaosPlatform, type PlatformOptions } from './platform.ts';
import { armReminders, LATE_BOUND_MS, REMINDERS, watchReminders } from './reminders.ts';
import { commonRows } from './rows.ts';

const BEFORE_MS = Number(process.env.BENCH_CHAOS_BEFORE_MS ?? 4_000);
const AFTER_MS = Number(process.env.BENCH_CHAOS_AFTER_MS ?? 12_000);

export interface FaultScenario {
  name: string;
  platform: Omit<PlatformOptions, 'name'>;
  outageTargetMs: number;
  fault(p: ChaosPlatform): Promise<void>;
  /** Runs from the fault (its time on performance.now()) while the load goes on; its rows follow the common ones. */
  watch?(p: ChaosPlatform, faultAt: number): Promise<BenchResult[]>;
  /** How long the load goes on after the fault; the watch's span when it is longer. */
  afterMs?: number;
}

export async function runFaultScenario(s: FaultScenario): Promise<BenchResult[]> {
  const p = await startPlatform({ name: s.name, ...s.platform });
  try {
    const reminders = await armReminders(p.procs, p.apiKey, s.name, BEFORE_MS + 1_000, 4_000);
    // watched from now on, so a token is seen expired when it expires, not when the load ends
    const firing = watchReminders(p.procs, p.apiKey, reminders);
    const load = keyedLoad(p.procs, p.apiKey, s.name);
    await sleep(BEFORE_MS);
    const faultAt = performance.now();
    process.stderr.write(`[chaos ${s.name}] fault at ${load.writes.length} writes begun\n`);
    await s.fault(p);
    const [watched] = await Promise.all([s.watch?.(p, faultAt) ?? Promise.resolve([]), sleep(s.afterMs ?? AFTER_MS)]);
    await load.stop();
    process.stderr.write(`[chaos ${s.name}] load stopped; counting\n`);
    const [journal, credentials, list, fired] = await Promise.all([
      journalCounts(p.stores, load.writes),
      deadCredentials(p.procs, load.writes, faultAt),
      missingFromList(p.procs, p.apiKey, load.writes),
      firing,
    ]);
    return [
      ...commonRows(s.name, {
        writes: load.writes,
        journal,
        credentials,
        list,
        reminders: { ...fired, armed: REMINDERS, lateBoundMs: LATE_BOUND_MS },
        outageP99: outageP99(load.writes, faultAt),
        longestGap: longestGap(load.writes, faultAt),
        outageTargetMs: s.outageTargetMs,
      }),
      ...watched,
    ];
  } finally {
    await p.close();
  }
}
