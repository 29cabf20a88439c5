/**
 * The sandbox record cap across nodes (docs/gaps.md#sandbox-caps; kernel/sandbox-budget.ts), over
 * real NATS JetStream and Redis: every node admits a sandbox request's create only against slots
 * of the organisation's budget it took from the mark the nodes share, so creates at once on several
 * nodes stop at the cap, where each node going by its own count (the feed brings it the others'
 * records late) let them pass it by as many as there were nodes; and a budget's slots a node took
 * and left unspent come back once the mark lapses.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type Area, createPlatform, type Platform, sandboxCaps, stopPlatform } from '../../kernel/index.ts';
import { SLOT_LIFE_MS } from '../../kernel/sandbox-budget.ts';
import { ManualClock } from '../../runtime/index.ts';
import { clusterTestStores, tempDir, testNamespace } from '../../support/stores.ts';
import { until } from '../../support/until.ts';
import { Counter } from '../runtime/counter.ts';

const RECORDS = 30;
const NODES = 3;
const PER_NODE = 25;
const packFile = join(tempDir('wf-budget-'), 'pack.json');
writeFileSync(packFile, JSON.stringify({ name: 'sandbox_policy', version: '2026.11.2', records: RECORDS, heavy_work: { per_organisation: 1, per_node: 1, retry_after_seconds: 1, operations: [] } }));
const area: Area = { name: 'budget-probe', kinds: [Counter], routes: [] };
const clock = new ManualClock();
const namespace = testNamespace('budget');
const nodes: Platform[] = [];

afterAll(async () => {
  for (const p of nodes.splice(0)) await stopPlatform(p);
  await (await clusterTestStores(clock, { namespace, ephemeral: true })).close();
}, 120_000);

/** One sandbox request on `node` that creates one record, as the gateway runs it, sent again while retryable: true when it was made. */
async function createOne(node: Platform, org: string, requestId: string): Promise<boolean> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await createOnce(node, org, `${requestId}_${attempt}`);
    } catch (e) {
      if (!(e as { retryable?: boolean }).retryable || attempt >= 5) throw e;
    }
  }
}

async function createOnce(node: Platform, org: string, requestId: string): Promise<boolean> {
  const caps = sandboxCaps(node);
  caps.began(requestId, org);
  try {
    await caps.prepare(requestId, undefined);
    await node.system.ask(Counter, `ctr_${requestId}`, 'open', {}, { org, requestId });
    return true;
  } catch (e) {
    if ((e as { code?: string }).code === 'sandbox_record_limit_reached') return false;
    throw e;
  } finally {
    caps.ended(requestId);
  }
}

describe('the sandbox record cap across cluster nodes (docs/gaps.md#sandbox-caps)', { timeout: 120_000 }, () => {
  it('creates at once on several nodes stop at the cap: each node admits only against slots it took from the shared mark', async () => {
    for (let i = 0; i < NODES; i++) {
      nodes.push(await createPlatform({ areas: [area], stores: await clusterTestStores(clock, { namespace, ephemeral: false }), clock, config: { SANDBOX_POLICY_FILE: packFile } }));
    }
    const org = 'org_budget_at_once';
    const tries = nodes.flatMap((node, n) => Array.from({ length: PER_NODE }, (_, i) => createOne(node, org, `req_budget_${n}_${i}`)));
    const made = (await Promise.all(tries)).filter(Boolean).length;
    expect(made).toBeLessThanOrEqual(RECORDS);
    // the budget is used, not stranded: a slot a refused request gave back waits on its node for
    // that node's next request, at most one per node after a burst like this one
    expect(made).toBeGreaterThanOrEqual(RECORDS - NODES);
    // every node counts what the others made (the feed)
    for (const node of nodes) await until(() => sandboxCaps(node).recordsOf(org) === made, 10_000);
    // and past the cap, nothing more is made on any node
    const more = (await Promise.all(nodes.map((node, n) => createOne(node, org, `req_budget_after_${n}`)))).filter(Boolean).length;
    expect(made + more).toBeLessThanOrEqual(RECORDS);
  });

  it('slots a node took and left unspent come back once the mark lapses, so the cap is reached on another node', async () => {
    const org = 'org_budget_stranded';
    const [first, second] = nodes;
    // the first node takes a slice and spends one slot of it
    expect(await createOne(first!, org, 'req_stranded_0')).toBe(true);
    // the second node fills what the mark leaves
    let made = 1;
    for (let i = 0; i < RECORDS && (await createOne(second!, org, `req_stranded_b_${i}`)); i++) made++;
    expect(made).toBeLessThan(RECORDS); // the first node's unspent slots are not the second's
    // once the first node's slots and then the mark have lapsed, the second node reaches the cap
    await clock.advance(2 * SLOT_LIFE_MS + 1);
    await until(() => sandboxCaps(second!).recordsOf(org) === made, 10_000);
    for (let i = 0; i < RECORDS && (await createOne(second!, org, `req_stranded_c_${i}`)); i++) made++;
    expect(made).toBe(RECORDS);
  });
});
