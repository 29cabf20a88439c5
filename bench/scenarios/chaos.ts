/**
 * Chaos bench (DESIGN "Stores", "Sharding"; docs/cluster.md): faults under keyed load with
 * retries, each counted against zero or a bound: node-kill, node-down, redis-empty, redis-aof,
 * nats-leader and payout (bench/chaos/), each on a NATS and a Redis of its own, so the shared
 * servers are never touched. BENCH_CHAOS_ONLY=a,b runs those only; BENCH_CHAOS_LOG_DIR=DIR keeps each
 * node's log there (`<node>.log`, overwritten by the next scenario's nodes of the same name). There is no baseline: these are counts of faults.
 */
import { CHAOS_SCENARIOS } from '../chaos/index.ts';
import type { BenchResult } from '../report.ts';

export default async function chaos(): Promise<BenchResult[]> {
  const only = process.env.BENCH_CHAOS_ONLY?.split(',').map((s) => s.trim()).filter(Boolean);
  const names = only ?? Object.keys(CHAOS_SCENARIOS);
  const unknown = names.filter((n) => !(n in CHAOS_SCENARIOS));
  if (unknown.length) throw new Error(`BENCH_CHAOS_ONLY: unknown ${unknown.join(', ')}; known: ${Object.keys(CHAOS_SCENARIOS).join(', ')}`);
  const rows: BenchResult[] = [];
  for (const name of names) {
    process.stderr.write(`[chaos] ${name} ...\n`);
    // node-kill names its rows plainly; every row carries its scenario so one table reads whole
    rows.push(...(await CHAOS_SCENARIOS[name]()).map((r) => (r.name.startsWith('[') ? r : { ...r, name: `[${name}] ${r.name}` })));
  }
  return rows;
}
