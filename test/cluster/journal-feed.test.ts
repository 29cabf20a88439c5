/**
 * Reading the journal's feed over JetStream (stores/cluster/journal.ts readFeed; DESIGN "Sharding"):
 * a node reads what every node appended, in order and whole, however little it has seen itself; and
 * at the tail, where every node's readers are poked at each append, a read that finds nothing new
 * costs one direct get, not a round of them, and none at all while the node's append watcher is live.
 */
import { afterEach, expect, it, vi } from 'vitest';
import { ManualClock } from '../../runtime/index.ts';
import type { ClusterStores, StoredEvent } from '../../stores/index.ts';
import { clusterTestStores, testNamespace } from '../../support/stores.ts';

const clock = new ManualClock();
const opened: ClusterStores[] = [];
afterEach(async () => {
  for (const s of opened.splice(0).reverse()) await s.close();
});

const ev = (version: number): StoredEvent => ({ version, id: `evt_${version}`, type: 't.happened', data: { n: version }, at: clock.now(), org: 'org_a' });

async function twoNodes(): Promise<[ClusterStores, ClusterStores]> {
  const namespace = testNamespace('feed');
  const a = await clusterTestStores(clock, { namespace, ephemeral: false });
  const b = await clusterTestStores(clock, { namespace, ephemeral: true });
  opened.push(a, b);
  return [a, b];
}

it("feed - a node reads every message another node appended, in order and whole, in pages, though it saw none of them (DESIGN 'Sharding')", async () => {
  const [a, b] = await twoNodes();
  for (let v = 1; v <= 300; v++) await a.journal.append(`thing.${v % 7}`, Math.floor((v - 1) / 7), [ev(Math.floor((v - 1) / 7) + 1)]);
  const all = await b.journal.readFeed(0, 1000);
  expect(all).toHaveLength(300);
  expect(all.every((f, i) => i === 0 || f.position > all[i - 1].position)).toBe(true);
  const paged: number[] = [];
  for (let after = 0; ; ) {
    const page = await b.journal.readFeed(after, 37);
    if (page.length === 0) break;
    paged.push(...page.map((f) => f.position));
    after = page[page.length - 1].position;
  }
  expect(paged).toEqual(all.map((f) => f.position));
  // one more append by the other node is found by the next read from the tail
  await a.journal.append('thing.x', 0, [ev(1)]);
  expect((await b.journal.readFeed(all[all.length - 1].position, 10)).map((f) => f.stream)).toEqual(['thing.x']);
});

it("feed - at the tail a read that finds nothing new asks for one message, not a round of them (DESIGN 'Sharding')", async () => {
  const [a] = await twoNodes();
  for (let v = 1; v <= 5; v++) await a.journal.append('thing.a', v - 1, [ev(v)]);
  const tail = (await a.journal.readFeed(0, 100)).at(-1)!.position;
  const gets = vi.spyOn(a.journal as unknown as { get(q: unknown): Promise<unknown> }, 'get');
  expect(await a.journal.readFeed(tail, 512)).toEqual([]);
  expect(gets).toHaveBeenCalledTimes(1);
});

it("feed - a node watching the journal takes each new message from its watcher, not one direct get each, and asks nothing past the tail (DESIGN 'Sharding')", async () => {
  const [a, b] = await twoNodes();
  let poked = 0;
  const off = b.journal.onAppend(() => poked++);
  try {
    await a.journal.append('thing.w', 0, [ev(1)]);
    // b's readers trust its live watcher for the tail (feed-messages.ts), so b finds the message
    // once the watcher has handed it over, not necessarily on the read right after a's append
    let first = await b.journal.readFeed(0, 100);
    for (let i = 0; i < 200 && first.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 10));
      first = await b.journal.readFeed(0, 100);
    }
    expect(first).toHaveLength(1);
    // the watcher may have gone live after that read found the message by a probe: it pokes once
    // on going live (appends made while its consumer was created), and that poke must not be
    // counted as one of the five below
    const live = () => (b.journal as unknown as { feedMessages: { watchedFrom?: number } }).feedMessages.watchedFrom !== undefined;
    for (let i = 0; i < 200 && !live(); i++) await new Promise((r) => setTimeout(r, 10));
    expect(live()).toBe(true);
    await new Promise((r) => setTimeout(r, 0));
    const gets = vi.spyOn(b.journal as unknown as { get(q: unknown): Promise<unknown> }, 'get');
    const seen = poked;
    for (let v = 2; v <= 6; v++) await a.journal.append('thing.w', v - 1, [ev(v)]);
    // wait until b's watcher has handed over the five appends (one poke each)
    for (let i = 0; i < 200 && poked < seen + 5; i++) await new Promise((r) => setTimeout(r, 10));
    const read = await b.journal.readFeed(first.at(-1)!.position, 100);
    expect(read.map((f) => f.event.version)).toEqual([2, 3, 4, 5, 6]);
    expect(read.every((f) => f.stream === 'thing.w')).toBe(true);
    // fetches none of the five, and does not probe past the tail: the watcher would have handed
    // over any later message
    expect(gets).toHaveBeenCalledTimes(0);
    expect(await b.journal.readFeed(read.at(-1)!.position, 100)).toEqual([]);
    expect(gets).toHaveBeenCalledTimes(0);
    // a message appended after that read is found on the watcher's poke
    const before = poked;
    await a.journal.append('thing.w', 6, [ev(7)]);
    for (let i = 0; i < 200 && poked === before; i++) await new Promise((r) => setTimeout(r, 10));
    expect((await b.journal.readFeed(read.at(-1)!.position, 100)).map((f) => f.event.version)).toEqual([7]);
    expect(gets).toHaveBeenCalledTimes(0);
  } finally {
    off();
  }
});

it("feed - a node's readers take the node's own appends as appended, not by a direct get each (DESIGN 'Sharding')", async () => {
  const [a] = await twoNodes();
  await a.journal.append('thing.o', 0, [ev(1)]);
  const tail = (await a.journal.readFeed(0, 100)).at(-1)!.position;
  const gets = vi.spyOn(a.journal as unknown as { get(q: unknown): Promise<unknown> }, 'get');
  for (let v = 2; v <= 6; v++) await a.journal.append('thing.o', v - 1, [ev(v)]);
  const read = await a.journal.readFeed(tail, 100);
  expect(read.map((f) => [f.stream, f.event.version])).toEqual([2, 3, 4, 5, 6].map((v) => ['thing.o', v]));
  // the five were not fetched; only the probe past the tail asks (this node has no watcher)
  expect(gets).toHaveBeenCalledTimes(1);
});
