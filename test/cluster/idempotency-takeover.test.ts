/**
 * Idempotency claims over real node leases (docs/cluster.md "Idempotency claims"): a key in flight
 * on a node that died is taken over by a survivor within the membership lapse time (lease ttl plus
 * the clock margin after its last heartbeat), not after the claim's 60 s lease; a claim naming a
 * member never heard of, or an earlier incarnation of a restarted node, likewise; a live node's
 * claim is waited on. Leases run on wall time with the short test timings of nodes.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type Executed, Idempotency } from '../../gateway/idempotency.ts';
import { ManualClock } from '../../runtime/index.ts';
import { Counter } from '../runtime/counter.ts';
import { until } from '../../support/until.ts';
import { testNamespace } from '../../support/stores.ts';
import { FAST, type Member, TestCluster } from './nodes.ts';

const ORG = 'org_takeover';
const FP = 'fp_same_request';
/** From a member's last heartbeat to its lapse as others judge it, plus a tick of slack on a busy machine. */
const LAPSE_MS = FAST.ttlMs + FAST.marginMs + 1_000;

const answer = (body: string): Executed => ({ response: { status: 201, headers: { 'content-type': 'application/json' }, body } });
const idemOf = (m: Member) => new Idempotency(m.stores.kv, m.node);

/** A request on `idem` that claims `key` and never answers (its node is about to die or stall). */
async function inFlight(idem: Idempotency, key: string): Promise<void> {
  let started!: () => void;
  const claimed = new Promise<void>((r) => (started = r));
  void idem.run(ORG, key, FP, () => (started(), new Promise<Executed>(() => {}))).catch(() => {});
  await claimed;
}

describe('idempotency claims follow node membership', { timeout: 60_000 }, () => {
  let cluster: TestCluster | undefined;

  afterEach(async () => {
    await cluster?.close();
    cluster = undefined;
  }, 60_000);

  async function start(): Promise<Member[]> {
    cluster = new TestCluster(testNamespace('idem'), new ManualClock(), [Counter]);
    return cluster.grow(2);
  }

  it('a key in flight on a node killed mid-request is executed by a survivor within the membership lapse time', async () => {
    const [survivor, victim] = await start();
    await inFlight(idemOf(victim), 'k-killed');
    await cluster!.crash(victim);
    const killedAt = performance.now();
    let executed = 0;
    const r = await idemOf(survivor).run(ORG, 'k-killed', FP, async () => (executed++, answer('"survivor"')));
    const took = performance.now() - killedAt;
    expect([r.replay, r.response.body, executed]).toEqual([false, '"survivor"', 1]);
    expect(took).toBeLessThan(LAPSE_MS);
  });

  it('a claim naming a member no node has heard of is taken over', async () => {
    const [survivor] = await start();
    await inFlight(new Idempotency(survivor.stores.kv, { member: 'ghost/0', hasLapsed: () => false }), 'k-ghost');
    const r = await idemOf(survivor).run(ORG, 'k-ghost', FP, async () => answer('"survivor"'));
    expect([r.replay, r.response.body]).toEqual([false, '"survivor"']);
  });

  it('a claim of an earlier incarnation of a restarted node is taken over, though its node id is live again', async () => {
    const [survivor, victim] = await start();
    await inFlight(idemOf(victim), 'k-restarted');
    await cluster!.crash(victim);
    const again = await cluster!.add(victim.id);
    await until(() => survivor.node.leases.liveMembers().includes(again.id) && !survivor.node.hasLapsed(again.node.member), 5_000);
    const r = await idemOf(survivor).run(ORG, 'k-restarted', FP, async () => answer('"survivor"'));
    expect([r.replay, r.response.body]).toEqual([false, '"survivor"']);
  });

  it('a live node\'s claim is waited on past the lapse time, then its answer replayed', async () => {
    const [waiterNode, holder] = await start();
    let finish!: (e: Executed) => void;
    let started!: () => void;
    const claimed = new Promise<void>((r) => (started = r));
    const first = idemOf(holder).run(ORG, 'k-live', FP, () => (started(), new Promise<Executed>((r) => (finish = r))));
    await claimed;
    let executed = 0;
    let settled = false;
    const waiter = idemOf(waiterNode).run(ORG, 'k-live', FP, async () => (executed++, answer('"waiter"')));
    void waiter.then(() => (settled = true));
    await new Promise((r) => setTimeout(r, LAPSE_MS)); // a live member's heartbeats keep its claim
    expect({ settled, executed }).toEqual({ settled: false, executed: 0 });
    finish(answer('"holder"'));
    await first;
    const r = await waiter;
    expect([r.replay, r.response.body, executed]).toEqual([true, '"holder"', 0]);
  });
});
