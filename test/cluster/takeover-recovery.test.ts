/**
 * A dead node's unwritten list and timer changes are recovered from the journal by the node that
 * takes its shards over (runtime/cluster/takeover-recovery.ts; DESIGN "Stores": the journal is the
 * outbox). Two in-process members on the shared NATS and Redis; the first commits while its list
 * and timer writes never finish (as a node killed between its append and its effects leaves them),
 * then crashes. Nothing addresses its actors again, yet the second member writes their lists and
 * timers once it holds their shards. Leases run on wall time; actor time is a ManualClock set to
 * wall time, since recovery compares event times with the takeover's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../runtime/index.ts';
import { testNamespace } from '../../support/stores.ts';
import { until } from '../../support/until.ts';
import { Counter } from '../runtime/counter.ts';
import { TestCluster, type Member } from './nodes.ts';

const ORG = 'org_takeover';
const clock = new ManualClock(Date.now());
const cluster = new TestCluster(testNamespace('takeover'), clock, [Counter]);
let first: Member;
let second: Member;

beforeAll(async () => {
  [first, second] = await cluster.grow(2);
}, 60_000);
afterAll(() => cluster.close(), 60_000);

/** An id whose shard `m` holds now. */
function ownedBy(m: Member, prefix: string): string {
  for (let i = 0; ; i++) if (m.node.isLocal(Counter.kind, `${prefix}${i}`)) return `${prefix}${i}`;
}

describe('takeover recovery (DESIGN "Sharding", "Stores")', () => {
  it('a member killed between its appends and their list and timer writes: the member taking its shards over writes them, though nothing activates those actors again', async () => {
    const listed = ownedBy(first, 'ctr_listed_');
    const timed = ownedBy(first, 'ctr_timed_');
    await first.system.ask(Counter, timed, 'open', {}, { org: ORG });
    const dueAt = clock.now() + 3_600_000;
    // from here on the first member's list and timer writes never finish
    first.stores.indexes.apply = () => new Promise(() => {});
    first.stores.reminders.put = () => new Promise(() => {});
    void first.system.ask(Counter, listed, 'open', {}, { org: ORG }).catch(() => {});
    void first.system.ask(Counter, timed, 'arm', { dueAt, label: 'wake' }, { org: ORG }).catch(() => {});
    await until(async () => (await second.stores.journal.read(`${Counter.kind}.${listed}`, 0)).length === 1 && (await second.stores.journal.read(`${Counter.kind}.${timed}`, 0)).length === 2, 10_000);
    expect((await second.stores.indexes.page(`${ORG}/${Counter.kind}/all`, { limit: 50, order: 'asc' })).ids).not.toContain(listed);
    expect(await second.stores.reminders.get(`${Counter.kind}.${timed}.alarm`)).toBeUndefined();

    await cluster.crash(first);
    await until(() => cluster.fullyOwned([second]), 15_000);
    await until(async () => {
      await second.node.recovered();
      return (await second.stores.indexes.page(`${ORG}/${Counter.kind}/all`, { limit: 50, order: 'asc' })).ids.includes(listed);
    }, 15_000);
    expect((await second.stores.indexes.page(`${ORG}/${Counter.kind}/status:open`, { limit: 50, order: 'asc' })).ids).toContain(listed);
    expect(await second.stores.reminders.get(`${Counter.kind}.${timed}.alarm`)).toMatchObject({ dueAt, command: 'ring' });
  }, 60_000);
});
