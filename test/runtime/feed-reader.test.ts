/**
 * The global feed reader (DESIGN "Reactions": at least once, one reader at a time), over the store
 * family of the project. Reading, the cursor, retries and stop hold in both modes; the lease rule
 * is checked on a cluster-mode view of the same stores (memory stores report 'embedded', so the
 * view says 'cluster'), with the lease lapsing on the ManualClock. Lease ticks run on wall time,
 * so the lease cases wait on conditions with deadlines.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS, FeedReader, ManualClock, type FeedHandler, type FeedLimits } from '../../runtime/index.ts';
import type { FeedEntry, Stores } from '../../stores/index.ts';
import { testStores } from '../../support/stores.ts';
import { until } from '../../support/until.ts';

const NAME = 'test:feed';
/** Bound of every wait on wall time below. */
const WAIT = 10_000;
const LIMITS: FeedLimits = { ...DEFAULT_LIMITS, feedRetryMs: 1, feedRetryMaxMs: 20, feedLeaseMs: 10_000, feedLeaseRenewMs: 10 };

let clock: ManualClock;
let stores: Stores;
const readers: FeedReader[] = [];
let appended = 0;

afterEach(async () => {
  for (const r of readers.splice(0)) await r.stop();
  await stores?.close();
});

async function fresh(): Promise<void> {
  clock = new ManualClock();
  stores = await testStores(clock);
  appended = 0;
}

/** Appends `n` events, one new stream each; returns their ids. */
async function append(n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const k = ++appended;
    ids.push(`evt_${k}`);
    await stores.journal.append(`thing.t${k}`, 0, [{ version: 1, id: `evt_${k}`, type: 'thing.happened', data: { k }, at: clock.now(), org: 'org_a' }]);
  }
  return ids;
}

function reader(handle: FeedHandler, opts: { batch?: number; on?: Stores; limits?: FeedLimits } = {}): FeedReader {
  const r = new FeedReader({ name: NAME, stores: opts.on ?? stores, batch: opts.batch ?? 100, handle, limits: opts.limits ?? LIMITS, log: () => {} });
  readers.push(r);
  r.start();
  return r;
}

/** A handler that records the event ids of every batch it is given. */
function recorder(): { batches: string[][]; seen: () => string[]; handle: FeedHandler } {
  const batches: string[][] = [];
  return { batches, seen: () => batches.flat(), handle: async (entries) => void batches.push(entries.map((e) => e.event.id)) };
}

const feedIds = async () => (await stores.journal.readFeed(0, 10_000)).map((e) => e.event.id);
const lastPosition = async () => (await stores.journal.readFeed(0, 10_000)).at(-1)!.position;

describe('the global feed reader (DESIGN "Reactions": at least once, one reader at a time)', () => {
  it('reads every entry in feed order, a batch at a time, and keeps its cursor after each batch', async () => {
    await fresh();
    const before = await append(7);
    const rec = recorder();
    reader(rec.handle, { batch: 3 });
    await until(() => rec.seen().length === 7, WAIT);
    expect(rec.batches.map((b) => b.length)).toEqual([3, 3, 1]);
    expect(rec.seen()).toEqual(before);
    // appends poke it
    const after = await append(2);
    await until(() => rec.seen().length === 9, WAIT);
    expect(rec.seen()).toEqual([...before, ...after]);
    expect(await stores.kv.get(`${NAME}:cursor`)).toBe(await lastPosition());
  });

  it('a feed that hands back positions at or before the cursor: they are skipped, never handled again, and the reader goes on (no endless loop)', async () => {
    await fresh();
    const ids = await append(4);
    const journal = stores.journal;
    // a journal that repeats, with each read, the entry at the cursor and one before it
    const repeating: Stores = {
      ...stores,
      journal: {
        ...journal,
        onAppend: (l) => journal.onAppend(l),
        readFeed: async (after, limit) => {
          const all = await journal.readFeed(0, 10_000);
          return [...all.filter((e) => e.position <= after).slice(-2), ...(await journal.readFeed(after, limit))];
        },
      },
    };
    const rec = recorder();
    reader(rec.handle, { on: repeating, batch: 2 });
    await until(() => rec.seen().length >= 4, WAIT);
    await append(1);
    await until(() => rec.seen().length >= 5, WAIT);
    expect(rec.seen()).toEqual([...ids, `evt_5`]);
  });

  it('a restarted reader resumes after the last batch its handler finished', async () => {
    await fresh();
    const first = recorder();
    const a = reader(first.handle);
    const old = await append(3);
    await until(() => first.seen().length === 3, WAIT);
    await a.stop();
    const added = await append(2);
    const second = recorder();
    reader(second.handle);
    await until(() => second.seen().length === 2, WAIT);
    expect(first.seen()).toEqual(old);
    expect(second.seen()).toEqual(added);
  });

  it('a batch whose handler fails is given again, with backoff, and the cursor moves only after it succeeds', async () => {
    await fresh();
    const ids = await append(4);
    let failures = 2;
    const attempts: string[][] = [];
    const r = reader(async (entries) => {
      attempts.push(entries.map((e) => e.event.id));
      if (failures-- > 0) throw new Error('downstream unavailable');
    });
    await until(() => failures < 0 && r.idle, WAIT);
    expect(attempts).toEqual([ids, ids, ids]);
    expect(await stores.kv.get(`${NAME}:cursor`)).toBe(await lastPosition());
  });

  it('stop waits for the batch in hand and stores its cursor; nothing is read after it', async () => {
    await fresh();
    await append(2);
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    const handled: string[] = [];
    let inHand = false;
    const r = reader(async (entries) => {
      inHand = true;
      await gate;
      handled.push(...entries.map((e) => e.event.id));
    });
    await until(() => inHand, WAIT);
    let stopped = false;
    const stopping = r.stop().then(() => (stopped = true));
    await append(1);
    for (let i = 0; i < 5; i++) await new Promise((res) => setImmediate(res));
    expect(stopped).toBe(false);
    open();
    await stopping;
    expect(handled).toEqual(['evt_1', 'evt_2']);
    expect(await stores.kv.get(`${NAME}:cursor`)).toBe((await stores.journal.readFeed(0, 10))[1].position);
  });

  it('a handler that ends early (the reader stopping) keeps the cursor after the entries it finished', async () => {
    await fresh();
    const ids = await append(3);
    const first = reader(async (entries, self) => {
      void self.stop();
      return 1;
    });
    await until(() => first.idle && !first.leading, WAIT);
    const rec = recorder();
    reader(rec.handle);
    await until(() => rec.seen().length === 2, WAIT);
    expect(rec.seen()).toEqual(ids.slice(1));
  });
});

/** A process's view of the shared stores in cluster mode, which a test can cut off (a crash, a partition). */
function node(shared: Stores): { stores: Stores; cut: (down: boolean) => void; calls: () => number } {
  let down = false;
  let calls = 0;
  const guard = <T extends object>(target: T): T =>
    new Proxy(target, {
      get(t, p) {
        const v = Reflect.get(t, p, t);
        if (typeof v !== 'function') return v;
        return (...args: unknown[]) => {
          calls++;
          return down ? Promise.reject(new Error('connection lost')) : v.apply(t, args);
        };
      },
    });
  const view = { ...shared, mode: 'cluster' as const, kv: guard(shared.kv), journal: guard(shared.journal) };
  return { stores: view, cut: (d) => (down = d), calls: () => calls };
}

describe('the global feed reader in cluster mode: one reader at a time, by a lease renewed by compare-and-set', () => {
  it('of two readers one reads; a dead one keeps the lease until it lapses, then the other reads on from the kept cursor', async () => {
    await fresh();
    const nodes = [node(stores), node(stores)];
    const recs = [recorder(), recorder()];
    const rs = nodes.map((n, i) => reader(recs[i].handle, { on: n.stores }));
    const early = await append(3);
    await until(() => recs[0].seen().length + recs[1].seen().length === 3, WAIT);
    const lead = rs[0].leading ? 0 : 1;
    const other = 1 - lead;
    expect(rs[other].leading).toBe(false);
    expect(recs[lead].seen()).toEqual(early);

    nodes[lead].cut(true); // dies without letting the lease go
    const late = await append(3);
    const tried = nodes[other].calls();
    await until(() => nodes[other].calls() >= tried + 6, WAIT); // it tries for the lease on its ticks, in vain
    expect(recs[other].seen()).toEqual([]); // the lease is still live on the clock
    expect(rs[other].leading).toBe(false);
    await clock.advance(LIMITS.feedLeaseMs);
    await until(() => recs[other].seen().length === 3, WAIT);
    expect(recs[other].seen()).toEqual(late);
    expect([...recs[lead].seen(), ...recs[other].seen()]).toEqual(await feedIds());
  });

  it('a reader whose lease was taken stops before its next batch, and on gaining it again reads the cursor afresh', async () => {
    await fresh();
    const nodes = [node(stores), node(stores)];
    const recs = [recorder(), recorder()];
    const rs = nodes.map((n, i) => reader(recs[i].handle, { on: n.stores }));
    await append(2);
    await until(() => recs[0].seen().length + recs[1].seen().length === 2, WAIT);
    const a = rs[0].leading ? 0 : 1;
    const b = 1 - a;

    // a is cut off long enough for its lease to lapse; b takes it and reads on
    nodes[a].cut(true);
    await clock.advance(LIMITS.feedLeaseMs);
    await append(2);
    await until(() => recs[b].seen().length === 2, WAIT);
    nodes[a].cut(false);
    await until(() => !rs[a].leading && rs[a].idle, WAIT);
    await append(1);
    await until(() => recs[b].seen().length === 3, WAIT);
    expect(recs[a].seen()).toHaveLength(2);

    // b leaves (letting the lease go); a takes it and starts from the cursor b kept, not its own
    await rs[b].stop();
    await until(() => rs[a].leading, WAIT);
    await append(2);
    await until(() => recs[a].seen().length === 4, WAIT);
    expect([...recs[a].batches.flat().slice(0, 2), ...recs[b].seen(), ...recs[a].seen().slice(2)]).toEqual(await feedIds());
  });
});
