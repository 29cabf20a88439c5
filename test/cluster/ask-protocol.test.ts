/**
 * Remote asks across versions (DESIGN "Sharding"; runtime/cluster/wire.ts ASK_PROTOCOL): a node
 * announces the ask protocol it speaks in its membership heartbeat, and another node sends it a
 * turn's asks as one batch only when it announces batches. In a rolling upgrade a node from before
 * batches (here a member announcing protocol 1) gets every ask as a message of its own, while the
 * nodes that speak batches batch between themselves. Real nodes on the real NATS; a second
 * connection watches the node subjects.
 */
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../runtime/index.ts';
import { shardOf } from '../../runtime/cluster/index.ts';
import { batchOf } from '../../runtime/cluster/requests.ts';
import { natsUrl, testNamespace } from '../../support/stores.ts';
import { until } from '../../support/until.ts';
import { Counter } from '../runtime/counter.ts';
import { type Member, TEST_SHARDS, TestCluster } from './nodes.ts';

const ORG = 'org_alpha';
let cluster: TestCluster | undefined;
let wire: NatsConnection | undefined;

afterEach(async () => {
  await wire?.close();
  wire = undefined;
  await cluster?.close();
  cluster = undefined;
}, 120_000);

/** Every remote-ask message on the node subjects: to whom, and whether it carried a batch. */
async function watchAsks(namespace: string): Promise<{ seen: Array<{ to: string; batch: boolean }>; settled: () => Promise<void> }> {
  wire = await connect({ servers: natsUrl() });
  const seen: Array<{ to: string; batch: boolean }> = [];
  const prefix = `${namespace}.node.`;
  wire.subscribe(`${prefix}*`, { callback: (_e, m) => void seen.push({ to: m.subject.slice(prefix.length), batch: m.reply !== undefined && batchOf(m.reply) !== undefined }) });
  await wire.flush();
  const nc = wire;
  return { seen, settled: () => nc.flush() };
}

/** `n` counter ids whose shard `owner` holds. */
function idsOwnedBy(owner: Member, n: number): string[] {
  const ids: string[] = [];
  for (let i = 0; ids.length < n; i++) if (owner.node.leases.holds(shardOf(Counter.kind, `ctr_p${i}`, TEST_SHARDS))) ids.push(`ctr_p${i}`);
  return ids;
}

describe('the remote-ask protocol in a rolling upgrade', { timeout: 120_000 }, () => {
  it('a node sends a batch of asks only to a node whose membership announces batches; a node that announces none gets each ask as a message of its own, and sends none', async () => {
    const namespace = testNamespace('askproto');
    cluster = new TestCluster(namespace, new ManualClock(), [Counter]);
    const [upgraded, old, other] = await Promise.all([cluster.add('node1'), cluster.add('node2', { askProtocol: 1 }), cluster.add('node3')]);
    await until(() => cluster!.fullyOwned() && cluster!.members.every((m) => m.node.liveCount() === 3), 20_000);
    expect(upgraded.node.leases.members.speaks('node2')).toBe(1);
    expect(upgraded.node.leases.members.speaks('node3')).toBe(2);

    const toOld = idsOwnedBy(old, 20);
    const toOther = idsOwnedBy(other, 20);
    const toUpgraded = idsOwnedBy(upgraded, 20);
    const asks = await watchAsks(namespace);

    // one turn of asks from an upgraded node: to the old node one message each, to the other upgraded node batches
    await Promise.all([...toOld, ...toOther].map((id) => upgraded.system.ask(Counter, id, 'open', {}, { org: ORG })));
    await asks.settled();
    const fromUpgraded = asks.seen.splice(0);
    expect(fromUpgraded.filter((m) => m.to === 'node2')).toEqual(toOld.map(() => ({ to: 'node2', batch: false })));
    expect(fromUpgraded.filter((m) => m.to === 'node3' && m.batch).length).toBeGreaterThan(0);
    expect(fromUpgraded.filter((m) => m.to === 'node3').length).toBeLessThan(toOther.length);

    // one turn of asks from the old node: it speaks no batches, so it sends none
    await Promise.all([
      ...toUpgraded.map((id) => old.system.ask(Counter, id, 'open', {}, { org: ORG })),
      ...toOther.map((id) => old.system.ask(Counter, id, 'add', { n: 1 }, { org: ORG })),
    ]);
    await asks.settled();
    const fromOld = asks.seen.splice(0);
    expect(fromOld.length).toBe(toUpgraded.length + toOther.length);
    expect(fromOld.every((m) => !m.batch)).toBe(true);

    // every ask was applied once, whichever way it travelled
    await Promise.all([...toOld, ...toUpgraded].map((id) => other.system.ask(Counter, id, 'add', { n: 1 }, { org: ORG })));
    for (const id of [...toOld, ...toOther, ...toUpgraded]) expect(await upgraded.system.get(Counter, id, ORG)).toMatchObject({ total: 1 });
  });
});
