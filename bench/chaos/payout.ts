/**
 * A LINES-line payout instruction executing across three nodes (support/chaos/payouts-node-main.ts:
 * 10 s leases, the policy's waits x 0.01), the node dispatching it (the owner of its shard) killed
 * -9 once a third of the lines are dispatched, with keyed API-key load and consent reminders
 * running across the kill. Counted on the sandbox rails' own books (read from the scenario's
 * stores, not through a node): payees credited more than once, payees never credited, and payees
 * not final on the instruction; then the common counts (rows.ts) and the lease watch after the
 * kill (lease-watch.ts).
 */
import { Kvm } from '@nats-io/kv';
import { INSTRUCTION_KIND, PAYOUTS_POLICY, sandboxRails } from '../../actors/payouts/index.ts';
import { shardOf } from '../../runtime/cluster/index.ts';
import { absolute, round, type BenchResult } from '../report.ts';
import type { ClusterStores } from '../../stores/index.ts';
import { deadCredentials, journalCounts, missingFromList } from './checks.ts';
import { ask } from './client.ts';
import { keyedLoad, longestGap, outageP99 } from './keyed-load.ts';
import { LeaseTable } from './lease-table.ts';
import { watchLeases } from './lease-watch.ts';
import { LINES, plannedInstruction, waitFor } from './payout-setup.ts';
import { startPlatform } from './platform.ts';
import { armReminders, REMINDERS, watchReminders } from './reminders.ts';
import { commonRows } from './rows.ts';

const FINAL_MS = Number(process.env.BENCH_CHAOS_PAYOUT_FINAL_MS ?? 600_000);
/** A 10 s lease lapses about 11 s after the kill; a write waits that plus a takeover. */
const OUTAGE_TARGET_MS = Number(process.env.BENCH_CHAOS_PAYOUT_OUTAGE_MS ?? 20_000);
/** A reminder of an actor on the killed node fires once its 10 s lease lapses and a survivor polls: the same bound as a write. */
const PAYOUT_LATE_BOUND_MS = Number(process.env.BENCH_CHAOS_PAYOUT_LATE_MS ?? 20_000);

/** Settled credits per payee account on every sandbox rail's statement. */
async function creditsByAccount(stores: ClusterStores, org: string): Promise<Map<string, number>> {
  const credits = new Map<string, number>();
  for (const rail of sandboxRails(PAYOUTS_POLICY.pack.rails, stores.kv, stores.indexes, { resolveAfterMs: 1, latencyMs: 0 })) {
    for (let after: string | undefined; ; ) {
      const page = await rail.statement(org, { after, limit: 1_000 }, Date.now());
      for (const e of page.entries) if (e.status === 'settled') credits.set(e.account_number, (credits.get(e.account_number) ?? 0) + 1);
      if (!page.hasMore || page.entries.length === 0) break;
      after = page.entries[page.entries.length - 1].reference;
    }
  }
  return credits;
}

export async function payoutFailover(): Promise<BenchResult[]> {
  const p = await startPlatform({
    name: 'payout',
    natsServers: 1,
    main: 'support/chaos/payouts-node-main.ts',
    nodeArgs: ['--max-semi-space-size=64'],
    env: { PAYOUTS_TIME_SCALE: '0.01', PAYOUTS_SANDBOX_LATENCY_MS: '1' },
  });
  try {
    const began = performance.now();
    const instr = await plannedInstruction(p.procs, p.apiKey);
    const setupS = (performance.now() - began) / 1000;
    process.stderr.write(`[chaos payout] ${LINES} lines set up in ${round(setupS)} s\n`);
    const kv = await new Kvm(p.stores.nats).open(`${p.namespace}_shards`);
    const ownerId = (await kv.get(`s.${shardOf(INSTRUCTION_KIND, instr.id)}`))!.json<{ node: string }>().node;
    const owner = p.procs.find((x) => x.id === ownerId)!;

    const load = keyedLoad(p.procs, p.apiKey, 'payout-load');
    // due from a few seconds after execute on, so some fall due across the kill
    const reminders = await armReminders(p.procs, p.apiKey, 'payout', 3_000, 8_000);
    const firing = watchReminders(p.procs, p.apiKey, reminders, PAYOUT_LATE_BOUND_MS);
    // The deposit executes the run's planned instruction by reaction (docs/gaps.md#payouts "Paid by reaction").
    const ex = await ask(p.procs, p.apiKey, 'POST', '/v1/payouts/funding_account/deposits', { amount: instr.total }, `payout-exec-${process.pid}`);
    if (ex.status !== 200) throw new Error(`deposit: ${ex.status} ${JSON.stringify(ex.body)}`);
    const progress = async () => (await ask(p.procs, p.apiKey, 'GET', `/v1/payouts/instructions/${instr.id}`)).body;
    const atKill = await waitFor('a third of the lines dispatched', async () => {
      const b = await progress();
      return b.progress.dispatched >= LINES / 3 ? b : undefined;
    }, 300_000, 20);
    const table = await LeaseTable.open(p.nats.servers.map((s) => s.url), p.namespace);
    await p.nodes.kill(owner);
    const faultAt = performance.now();
    process.stderr.write(`[chaos payout] killed ${ownerId} at ${atKill.progress.dispatched} dispatched, ${atKill.progress.settled} settled\n`);
    const leases = watchLeases(p, table, faultAt, 'payout', `node ${ownerId} killed -9 (its leases last 10 s)`, OUTAGE_TARGET_MS).finally(() => table.close());
    const done = await waitFor('the instruction final', async () => {
      const b = await progress();
      return b.status !== 'executing' ? b : undefined;
    }, FINAL_MS).catch(async () => progress());
    const finalS = (performance.now() - faultAt) / 1000;
    const leaseRows = await leases;
    await load.stop();

    const [credits, journal, credentials, list, fired] = await Promise.all([
      creditsByAccount(p.stores, p.org),
      journalCounts(p.stores, load.writes),
      deadCredentials(p.procs, load.writes, faultAt),
      missingFromList(p.procs, p.apiKey, load.writes),
      firing,
    ]);
    const paidTwice = [...credits.values()].filter((n) => n > 1).length;
    const final = (done.progress.settled as number) + (done.progress.failed as number);
    return [
      ...commonRows('payout', {
        writes: load.writes,
        journal,
        credentials,
        list,
        reminders: { ...fired, armed: REMINDERS, lateBoundMs: PAYOUT_LATE_BOUND_MS },
        outageP99: outageP99(load.writes, faultAt),
        longestGap: longestGap(load.writes, faultAt),
        outageTargetMs: OUTAGE_TARGET_MS,
      }),
      absolute('[payout] payees paid twice on the rails\u2019 books', paidTwice, 'payees', 0, false, `${LINES} lines; ${ownerId} (dispatching) killed -9 at ${atKill.progress.dispatched} dispatched, ${atKill.progress.settled} settled`),
      absolute('[payout] payees never credited', LINES - credits.size, 'payees', 0, false, 'no settled credit on any rail'),
      absolute('[payout] payees not final', LINES - final, 'payees', 0, false, `instruction ${done.status}: ${done.progress.settled} settled, ${done.progress.failed} failed, ${done.progress.held} held`),
      absolute('[payout] kill to instruction final', round(finalS * 1000), 'ms', undefined, false, `set-up ${round(setupS)} s`),
      ...leaseRows,
    ];
  } finally {
    await p.close();
  }
}
