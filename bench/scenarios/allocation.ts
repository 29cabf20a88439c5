/**
 * Allocation bench (spec 4.7, 6, 8; DESIGN "Gates between areas", "The supply map"). Three parts,
 * each figure beside its baseline measured in the same run, over BENCH_ROUNDS rounds (default 3):
 * the figure is the median of its rounds and the note lists every round.
 *
 * (a) Ranking with every gate over 1,000,000 workers at random over Lagos, in a child process
 *     pinned to core 0 (`--expose-gc`): the area's SupplyMap, and beside it per worker the gate
 *     read models in the shape the owning modules keep them (identity: entries and live maps;
 *     engagements: current count per worker; credentials: licences per occupation; reliability and
 *     last reading), each with its column by subject number (kernel SubjectNumbers, one numbering
 *     shared with the map) as the modules keep them too. A work order needing a licensed occupation is ranked with allocation's own
 *     rankWith (nearest candidate_pool, then passport, engagement and licence gates, then the
 *     weighted score, as opening a work order ranks: rankForOpen), beside the bare supply query it
 *     starts from (the same nearest-N query at the same points); the explained ranking of GET
 *     .../ranking (every factor of every candidate) is shown beside it, informative. Targets: >= 0.5x its queries/s, p99 <= 1 ms, resident memory per worker
 *     (map and gate models) <= 1 KB. The gate models are stand-ins with the real ones' shape and
 *     cost model (map lookups); the real ones are fed by the journal and cannot be filled with a
 *     million workers in a bench's time.
 * (b) Cascade removal, embedded (memory stores, this process, a platform of its own after (c)'s is
 *     stopped): 10,000 live work orders with cascades of 20 pending offers over 200 workers, so
 *     each worker is in 1,000 cascades; each of
 *     BENCH_REVOCATIONS workers (default 20, real live passports) also holds an unstarted
 *     assignment. Their passports are ended one at a time (blocklist entry through the API); the
 *     time from the passport.ended commit to the commit that withdrew the last of their 1,000
 *     offers and cancelled the assignment. Target p99 <= 100 ms; the ratio to the spec's 60 s is
 *     printed.
 * (c) Through the gateway (the load generator in a child process pinned to core 1): opening a work
 *     order (ranked over 200 available workers near the point, 20 of them eligible) and accepting
 *     an offer with the worker's own device credential, each beside the gateway's no-op idempotent
 *     POST. Target >= 0.25x. Each accept needs an offer of its own, prepared before the run:
 *     BENCH_ACCEPTS (default 16,000) of them, so the accept run lasts about as long as the other
 *     runs (BENCH_SECONDS): a shorter run is mostly the connections' ramp-up and the drain of the
 *     last requests, not accepts.
 * (d) Offers to the phone (allocation-devices.ts, on a platform of its own after (b)): offer made to
 *     its frame received at one of 19,800 connected devices, p99 <= 50 ms, beside the cascade's own
 *     decision time; (e) the same across three cluster node processes, p99 <= 150 ms.
 * BENCH_CPU_PROF=<dir> writes .cpuprofile files of the server's open and accept runs, of the
 * cascade's revocations and of the ranking child. BENCH_RANK_WORKERS, BENCH_RANK_QUERIES,
 * BENCH_SECONDS, BENCH_ACCEPTS override sizes; BENCH_ALLOCATION_PARTS (letters, default `abcd`)
 * runs only the parts named.
 *
 * Each part is a file of allocation/: ranking.ts (a), cascade-removal.ts (b), open-accept.ts (c),
 * on the embedded platforms of embedded.ts; this file runs them in turn and writes the rows.
 */
import { loadPinning } from '../http-load.ts';
import { absolute, compared, round, type BenchResult } from '../report.ts';
import { clusterRows, deviceRows } from './allocation-devices.ts';
import { CASCADE, WORK_ORDERS, cascadeRemoval } from './allocation/cascade-removal.ts';
import { closeEmbedded, embedded, load } from './allocation/embedded.ts';
import { ACCEPTS, CONNECTIONS, openAndAccept, type OpenAcceptRows } from './allocation/open-accept.ts';
import { RANK_QUERIES, RANK_WORKERS, type RankingFigures, runRanking } from './allocation/ranking.ts';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const spread = (xs: number[], digits = 0) => `rounds ${xs.map((x) => round(x, digits).toLocaleString('en-US')).join(', ')}`;
const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];

/** Part (a)'s rows. */
function rankingRows(a: RankingFigures, aLoad: string): BenchResult[] {
  return [
    compared('(a) ranking with every gate (passport, engagement, licence), nearest 200 in 5 km', round(median(a.ranked), 0), 'rankings/s', 'bare supply query, same nearest-200 at the same points', round(median(a.bare), 0), 0.5,
      `${spread(a.ranked)} vs ${spread(a.bare)}; ${RANK_WORKERS.toLocaleString('en-US')} workers over Lagos, ${RANK_QUERIES.toLocaleString('en-US')} points a round; ${round(a.candidates, 1)} ranked and ${round(a.excluded, 1)} excluded per work order; child on core 0; ${aLoad}`),
    compared('(a) ranking with every gate per CPU-second of the child (informative: preemption excluded)', round(median(a.rankedCpu), 0), 'rankings/CPU-s', 'bare supply query per CPU-second', round(median(a.bareCpu), 0), undefined, `${spread(a.rankedCpu)} vs ${spread(a.bareCpu)}`),
    absolute('(a) ranking p99', round(a.p99, 4), 'ms', 1, false, `wall clock: p50 ${round(a.p50, 4)} ms; bare query p99 ${round(a.bareP99, 4)} ms; CPU time of one ranking p99 ${round(a.p99Cpu, 4)} ms (process.cpuUsage, microsecond resolution); ${aLoad}`),
    compared('(a) explained ranking of GET .../ranking (every factor of every candidate, informative)', round(median(a.explained), 0), 'rankings/s', 'bare supply query, same nearest-200 at the same points', round(median(a.bare), 0), undefined, spread(a.explained)),
    absolute('(a) resident memory per worker (supply map and gate models)', round(a.rssPerWorker, 1), 'bytes', 1024, false, `the supply map alone ${round(a.mapPerWorker, 1)} B; heap ${round(a.heapPerWorker, 1)} B/worker; gate models are stand-ins shaped as the modules keep theirs`),
  ];
}

/** Part (b)'s row. */
function cascadeRow(b: { latencies: number[]; cpuMs: number[] }, bLoad: string): BenchResult {
  const { latencies, cpuMs } = b;
  const p99b = percentile(latencies, 0.99);
  return absolute('(b) cascade removal p99, passport.ended to the last of 1,000 offers withdrawn and the assignment cancelled', round(p99b, 1), 'ms', 100, false,
    `ratio to the spec's 60 s: ${round(p99b / 60_000, 5)}; p50 ${round(percentile(latencies, 0.5), 1)} ms, max ${round(Math.max(...latencies), 1)} ms over ${latencies.length} revocations one at a time (in order: ${latencies.map((x) => round(x, 0)).join(', ')} ms; this process's CPU per revocation, the blocklist request included: p50 ${round(percentile(cpuMs, 0.5), 1)} ms, max ${round(Math.max(...cpuMs), 1)} ms); ${WORK_ORDERS.toLocaleString('en-US')} live work orders x ${CASCADE} offers; embedded; ${bLoad}`);
}

/** Part (c)'s rows. */
function openAcceptRows(rows: OpenAcceptRows, notes: string[], pin: string, cLoad: string): BenchResult[] {
  return [
    compared('(c) open work order through the gateway', round(median(rows.open)), 'req/s', 'no-op idempotent POST', round(median(rows.noop)), 0.25, `${spread(rows.open)} vs ${spread(rows.noop)}; ${notes.map((x) => x.split(',')[0]).join('; ')}; ranked over 200 available workers; ${CONNECTIONS} connections, ${pin}; ${cLoad}`),
    compared('(c) open work order per server CPU-second (informative)', round(median(rows.openCpu)), 'req/CPU-s', 'no-op idempotent POST', round(median(rows.noopCpu)), undefined, `${spread(rows.openCpu)} vs ${spread(rows.noopCpu)} (the run and the feed work it left)`),
    compared('(c) accept offer per server CPU-second (informative)', round(median(rows.acceptCpu)), 'req/CPU-s', 'no-op idempotent POST', round(median(rows.noopCpu)), undefined, `${spread(rows.acceptCpu)} vs ${spread(rows.noopCpu)}`),
    compared('(c) accept offer through the gateway (device credential)', round(median(rows.accept)), 'req/s', 'no-op idempotent POST', round(median(rows.noop)), 0.25, `${spread(rows.accept)} vs ${spread(rows.noop)}; ${notes.map((x) => x.split(', ')[1]).join('; ')}; ${ACCEPTS} accepts a round`),
  ];
}

/** The parts to run (BENCH_ALLOCATION_PARTS, letters of the header's parts; (d) runs (e) with it). */
const PARTS = process.env.BENCH_ALLOCATION_PARTS ?? 'abcd';

export default async function allocationBench(): Promise<BenchResult[]> {
  const rows: BenchResult[] = [];
  if (PARTS.includes('a')) {
    process.stderr.write(`  (a) ranking over ${RANK_WORKERS.toLocaleString('en-US')} workers (child on core 0)\n`);
    const a = await runRanking();
    rows.push(...rankingRows(a, load()));
  }
  const { SystemClock } = await import('../../runtime/index.ts');
  const clock = new SystemClock();
  // (c) first, then (b) on a platform of its own: (c) leaves some 150,000 live work orders behind,
  // and a full collection of that heap landing in a revocation is (c)'s cost, not the cascade rule's.
  let c: Awaited<ReturnType<typeof openAndAccept>> | undefined;
  if (PARTS.includes('c')) {
    const cPlatform = await embedded('Allocation', clock);
    c = await openAndAccept(cPlatform, clock);
    await closeEmbedded(cPlatform);
  }
  if (PARTS.includes('b')) {
    const bPlatform = await embedded('Cascade', clock);
    const b = await cascadeRemoval(bPlatform, clock);
    rows.push(cascadeRow(b, load()));
    await closeEmbedded(bPlatform);
  }
  if (c) rows.push(...openAcceptRows(c.rows, c.notes, loadPinning(), c.load));
  if (PARTS.includes('d')) {
    process.stderr.write('  (d) offers to the phone\n');
    rows.push(...(await deviceRows()), ...(await clusterRows()));
  }
  return rows;
}
