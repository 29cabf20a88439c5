/**
 * One reading of the journal feed for every per-node reader (runtime/feed-group.ts; kernel
 * platformFeed, perNode), over the store family of the project: each member sees every entry once
 * and in order whatever its pace, and the store is read once for the members reading together.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS, FeedGroup, type FeedMember, ManualClock, type MemberHandler } from '../../runtime/index.ts';
import type { Stores } from '../../stores/index.ts';
import { testStores } from '../../support/stores.ts';

let stores: Stores | undefined;
const members: FeedMember[] = [];
afterEach(async () => {
  for (const m of members.splice(0)) await m.stop();
  await stores?.close();
  stores = undefined;
});

const LIMITS = { ...DEFAULT_LIMITS, feedRetryMs: 1, feedRetryMaxMs: 20 };

/** Fresh stores whose feed reads are counted (entries handed out by the store). */
async function fresh(): Promise<{ stores: Stores; read: () => number }> {
  const s = (stores = await testStores(new ManualClock()));
  let entries = 0;
  const readFeed = s.journal.readFeed.bind(s.journal);
  s.journal.readFeed = async (after, limit) => {
    const out = await readFeed(after, limit);
    entries += out.length;
    return out;
  };
  return { stores: s, read: () => entries };
}

let appended = 0;
/** Appends `n` events, one new stream each; returns their ids in feed order. */
async function append(s: Stores, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const k = ++appended;
    ids.push(`evt_${k}`);
    await s.journal.append(`thing.t${k}`, 0, [{ version: 1, id: `evt_${k}`, type: 'thing.happened', data: { k }, at: 0, org: 'org_a' }]);
  }
  return ids;
}

const group = (s: Stores, batch = 10) => new FeedGroup({ name: 'test:group', stores: s, batch, limits: LIMITS, log: () => {} });

/** A member that records every entry it is handed. */
function recorder(g: FeedGroup, handle?: (ids: string[]) => number | void): { seen: string[]; member: FeedMember } {
  const seen: string[] = [];
  const h: MemberHandler = async (entries) => {
    const ids = entries.map((e) => e.event.id);
    const done = handle?.(ids) ?? ids.length;
    seen.push(...ids.slice(0, done));
    return done;
  };
  const member = g.member(`member ${members.length + 1}`, h);
  members.push(member);
  return { seen, member };
}

describe('per-node readers share one reading of the feed (kernel platformFeed perNode)', () => {
  it('every member sees every entry exactly once and in feed order, one started late included', async () => {
    const { stores: s } = await fresh();
    const g = group(s);
    const early = [recorder(g), recorder(g), recorder(g)];
    const before = await append(s, 25);
    for (const r of early) r.member.start();
    await g.caughtUp();
    const late = recorder(g);
    late.member.start();
    const after = await append(s, 17);
    await g.caughtUp();
    const all = [...before, ...after];
    expect(all).toHaveLength(42);
    for (const r of [...early, late]) expect(r.seen).toEqual(all);
  });

  it('members reading together get each entry from the store once, not once each', async () => {
    const { stores: s, read } = await fresh();
    const ids = await append(s, 95);
    const g = group(s);
    const rs = [recorder(g), recorder(g), recorder(g), recorder(g), recorder(g)];
    for (const r of rs) r.member.start();
    await g.caughtUp();
    for (const r of rs) expect(r.seen).toEqual(ids);
    expect(read()).toBe(ids.length);
  });

  it('a member that ends a batch early is handed the rest, the others nothing twice', async () => {
    const { stores: s } = await fresh();
    const ids = await append(s, 12);
    const g = group(s);
    let first = true;
    const halting = recorder(g, (batch) => (first ? ((first = false), Math.min(3, batch.length)) : undefined));
    const steady = recorder(g);
    halting.member.start();
    steady.member.start();
    await g.caughtUp();
    expect(halting.seen.slice(0, 3)).toEqual(ids.slice(0, 3));
    await append(s, 1); // at the latest the next append reads on from where it stopped, as its own reader would
    await g.caughtUp();
    expect(halting.seen).toEqual([...ids, `evt_${appended}`]);
    expect(steady.seen).toEqual([...ids, `evt_${appended}`]);
  });

  it('a member whose handler fails is handed the batch again; a slower member beside it sees each entry once', async () => {
    const { stores: s } = await fresh();
    const ids = await append(s, 8);
    const g = group(s);
    let failures = 1;
    let release = () => {};
    const slowDone = new Promise<void>((r) => (release = r));
    const failing = recorder(g, () => {
      if (failures-- > 0) throw new Error('the read model refused the batch');
    });
    const slow: string[] = [];
    const slowMember = g.member('slow', async (entries) => {
      if (slow.length === 0) await slowDone; // still in its first batch when the other fails
      slow.push(...entries.map((e) => e.event.id));
    });
    members.push(slowMember);
    failing.member.start();
    slowMember.start();
    setImmediate(() => setImmediate(release));
    await g.caughtUp();
    expect(failing.seen).toEqual(ids);
    expect(slow).toEqual(ids);
  });

  it('a member stopped and started again reads on after its cursor, while the others read on without it', async () => {
    const { stores: s } = await fresh();
    const g = group(s);
    const a = recorder(g);
    const b = recorder(g);
    a.member.start();
    b.member.start();
    const one = await append(s, 5);
    await g.caughtUp();
    await a.member.stop();
    const two = await append(s, 4);
    await g.caughtUp();
    expect(a.seen).toEqual(one);
    a.member.start();
    await g.caughtUp();
    expect(a.seen).toEqual([...one, ...two]);
    expect(b.seen).toEqual([...one, ...two]);
  });
});
