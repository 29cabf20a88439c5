/**
 * One contract, two store families (DESIGN "Sharding"): every behaviour the runtime relies on is checked here
 * against the family TEST_STORES selects, so memory and NATS/Redis answer alike. Time is a
 * ManualClock; nothing sleeps.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../runtime/index.ts';
import { VersionConflictError, type Reminder, type StoredEvent, type Stores } from '../../stores/index.ts';
import { storeFamily, testStores } from '../../support/stores.ts';

let clock: ManualClock;
let stores: Stores;

beforeEach(async () => {
  clock = new ManualClock();
  stores = await testStores(clock, { readingRetentionMs: 3600_000 });
});
afterEach(async () => {
  await stores.close();
});

const ev = (version: number, type = 'thing.changed', data: unknown = { n: version }): StoredEvent => ({
  version,
  id: `evt_${version}_${type}`,
  type,
  data,
  at: 1_000 + version,
  org: 'org_a',
});
const evs = (from: number, n: number) => Array.from({ length: n }, (_, i) => ev(from + i));

describe(`journal (${storeFamily()})`, () => {
  it('append - accepted at the expected version and read back in order (DESIGN Stores)', async () => {
    await stores.journal.append('thing.a', 0, evs(1, 2));
    await stores.journal.append('thing.a', 2, [ev(3)]);
    expect((await stores.journal.read('thing.a', 0)).map((e) => e.version)).toEqual([1, 2, 3]);
    expect(await stores.journal.read('thing.a', 0)).toEqual(evs(1, 3));
  });

  it('append - a stale writer is refused with the actual version, and nothing is written (DESIGN Sharding)', async () => {
    await stores.journal.append('thing.a', 0, evs(1, 2));
    const err = await stores.journal.append('thing.a', 1, [ev(2)]).catch((e) => e);
    expect(err).toBeInstanceOf(VersionConflictError);
    expect(err).toMatchObject({ stream: 'thing.a', expected: 1, actual: 2 });
    await expect(stores.journal.append('thing.b', 1, [ev(2)])).rejects.toMatchObject({ expected: 1, actual: 0 });
    expect((await stores.journal.read('thing.a', 0)).length).toBe(2);
    expect(await stores.journal.read('thing.b', 0)).toEqual([]);
  });

  it('append - events must carry the versions that follow the expected one', async () => {
    await expect(stores.journal.append('thing.a', 0, [ev(2)])).rejects.toBeInstanceOf(VersionConflictError);
    expect(await stores.journal.read('thing.a', 0)).toEqual([]);
  });

  it('read - only events after the given version, across many appends', async () => {
    for (let v = 1; v <= 40; v++) await stores.journal.append('thing.long', v - 1, [ev(v)]);
    expect((await stores.journal.read('thing.long', 0)).map((e) => e.version)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect((await stores.journal.read('thing.long', 37)).map((e) => e.version)).toEqual([38, 39, 40]);
    expect(await stores.journal.read('thing.long', 40)).toEqual([]);
    expect(await stores.journal.read('thing.none', 0)).toEqual([]);
  });

  it('read - starts inside a multi-event append', async () => {
    await stores.journal.append('thing.a', 0, evs(1, 3));
    await stores.journal.append('thing.a', 3, evs(4, 3));
    expect((await stores.journal.read('thing.a', 4)).map((e) => e.version)).toEqual([5, 6]);
  });

  it('stream names are isolated even with characters a subject cannot hold', async () => {
    const odd = 'thing.a b*>.%x';
    await stores.journal.append(odd, 0, [ev(1)]);
    await stores.journal.append('thing.a', 0, evs(1, 2));
    expect((await stores.journal.read(odd, 0)).length).toBe(1);
    expect((await stores.journal.read('thing.a', 0)).length).toBe(2);
    expect((await stores.journal.readFeed(0, 10)).map((f) => f.stream)).toEqual([odd, 'thing.a', 'thing.a']);
  });

  it('feed - every stream in global order, strictly increasing, resumable at any entry', async () => {
    await stores.journal.append('thing.a', 0, evs(1, 2));
    await stores.journal.append('thing.b', 0, [ev(1)]);
    await stores.journal.append('thing.a', 2, evs(3, 3));
    const all = await stores.journal.readFeed(0, 100);
    expect(all.map((f) => `${f.stream}@${f.event.version}`)).toEqual(['thing.a@1', 'thing.a@2', 'thing.b@1', 'thing.a@3', 'thing.a@4', 'thing.a@5']);
    for (let i = 1; i < all.length; i++) expect(all[i].position).toBeGreaterThan(all[i - 1].position);
    // Paging by two splits the last append; each page resumes after the previous one's last entry.
    const paged = [];
    let after = 0;
    for (;;) {
      const page = await stores.journal.readFeed(after, 2);
      if (page.length === 0) break;
      expect(page.length).toBeLessThanOrEqual(2);
      paged.push(...page);
      after = page[page.length - 1].position;
    }
    expect(paged).toEqual(all);
    expect(await stores.journal.readFeed(all[all.length - 1].position, 10)).toEqual([]);
  });

  it('onAppend - the listener hears an append once it is readable from the feed', async () => {
    const seen: number[] = [];
    const heard = new Promise<void>((resolve) => {
      const off = stores.journal.onAppend(() => {
        void stores.journal.readFeed(0, 10).then((f) => {
          seen.push(f.length);
          off();
          resolve();
        });
      });
    });
    await stores.journal.append('thing.a', 0, [ev(1)]);
    await heard;
    expect(seen[0]).toBeGreaterThanOrEqual(1);
  });
});

describe(`snapshots (${storeFamily()})`, () => {
  it('save - keeps only a newer version (compare-and-set)', async () => {
    expect(await stores.snapshots.load('thing.a')).toBeUndefined();
    expect(await stores.snapshots.save('thing.a', 5, new Uint8Array([5, 0, 255]))).toBe(true);
    expect(await stores.snapshots.save('thing.a', 5, new Uint8Array([9]))).toBe(false);
    expect(await stores.snapshots.save('thing.a', 4, new Uint8Array([4]))).toBe(false);
    expect([...(await stores.snapshots.load('thing.a'))!]).toEqual([5, 0, 255]);
    expect(await stores.snapshots.save('thing.a', 6, new Uint8Array([6]))).toBe(true);
    expect([...(await stores.snapshots.load('thing.a'))!]).toEqual([6]);
  });
});

describe(`reminders (${storeFamily()})`, () => {
  const rem = (name: string, dueAt: number, generation = `g_${name}_${dueAt}`): Reminder => ({
    key: `thing.a.${name}`, kind: 'thing', id: 'a', org: 'org_a', name, dueAt, command: 'expire', payload: { name, nested: [1, { x: true }] }, generation,
  });

  it('due - earliest first, only those due, at most the limit', async () => {
    const t = clock.now();
    await stores.reminders.put(rem('late', t + 300));
    await stores.reminders.put(rem('early', t + 100));
    await stores.reminders.put(rem('mid', t + 200));
    expect(await stores.reminders.nextDue()).toBe(t + 100);
    expect((await stores.reminders.due(t + 250, 10)).map((r) => r.name)).toEqual(['early', 'mid']);
    expect((await stores.reminders.due(t + 1000, 1)).map((r) => r.name)).toEqual(['early']);
    expect(await stores.reminders.due(t + 50, 10)).toEqual([]);
    expect((await stores.reminders.due(t + 100, 10))[0]).toEqual(rem('early', t + 100));
    // a page after the first `skip` due ones (the scheduler steps over those another node holds)
    expect((await stores.reminders.due(t + 1000, 1, 1)).map((r) => r.name)).toEqual(['mid']);
    expect((await stores.reminders.due(t + 1000, 10, 2)).map((r) => r.name)).toEqual(['late']);
    expect(await stores.reminders.due(t + 250, 10, 2)).toEqual([]);
  });

  it('get - the reminder held under a key, as put, until it is cancelled', async () => {
    const t = clock.now();
    expect(await stores.reminders.get('thing.a.g')).toBeUndefined();
    await stores.reminders.put(rem('g', t + 100));
    expect(await stores.reminders.get('thing.a.g')).toEqual(rem('g', t + 100));
    await stores.reminders.cancel('thing.a.g');
    expect(await stores.reminders.get('thing.a.g')).toBeUndefined();
  });

  it('put again replaces, cancel removes', async () => {
    const t = clock.now();
    await stores.reminders.put(rem('x', t + 100));
    await stores.reminders.put(rem('x', t + 500));
    expect((await stores.reminders.due(t + 1000, 10)).map((r) => r.dueAt)).toEqual([t + 500]);
    await stores.reminders.cancel('thing.a.x');
    expect(await stores.reminders.due(t + 1000, 10)).toEqual([]);
    expect(await stores.reminders.nextDue()).toBeUndefined();
  });

  it('claim - one claimant per generation until its lease lapses on the clock', async () => {
    const r = rem('x', clock.now());
    await stores.reminders.put(r);
    expect(await stores.reminders.claim(r, 30_000)).toBe(true);
    expect(await stores.reminders.claim(r, 30_000)).toBe(false);
    await clock.advance(29_999);
    expect(await stores.reminders.claim(r, 30_000)).toBe(false);
    await clock.advance(1);
    expect(await stores.reminders.claim(r, 30_000)).toBe(true);
  });

  it('complete - removes the fired reminder but never its replacement', async () => {
    const t = clock.now();
    const first = rem('x', t);
    await stores.reminders.put(first);
    await stores.reminders.claim(first, 1000);
    const replacement = rem('x', t + 50, 'g_second');
    await stores.reminders.put(replacement);
    await stores.reminders.complete(first);
    expect(await stores.reminders.due(t + 100, 10)).toEqual([replacement]);
    await stores.reminders.complete(replacement);
    expect(await stores.reminders.due(t + 100, 10)).toEqual([]);
  });

  it('postpone - moves the same generation later and frees its claim', async () => {
    const t = clock.now();
    const r = rem('x', t);
    await stores.reminders.put(r);
    expect(await stores.reminders.claim(r, 60_000)).toBe(true);
    await stores.reminders.postpone(r, t + 5000);
    expect(await stores.reminders.due(t + 4999, 10)).toEqual([]);
    expect(await stores.reminders.due(t + 5000, 10)).toEqual([{ ...r, dueAt: t + 5000 }]);
    expect(await stores.reminders.claim(r, 60_000)).toBe(true);
  });
});

describe(`key-value (${storeFamily()})`, () => {
  it('a key of thousands of characters (a hostile path id) is written and read back, and stays apart from its neighbours', async () => {
    const long = `k:${'x'.repeat(5000)}`;
    await stores.kv.set(long, 1);
    await stores.kv.set(`${long}y`, 2);
    expect(await stores.kv.get(long)).toBe(1);
    expect(await stores.kv.get(`${long}y`)).toBe(2);
    expect(await stores.kv.get(`k:${'x'.repeat(4999)}`)).toBeUndefined();
    const stream = `thing.${'é'.repeat(3000)}`;
    await stores.journal.append(stream, 0, [ev(1)]);
    expect(await stores.journal.read(stream, 0)).toEqual([ev(1)]);
    expect(await stores.snapshots.load(stream)).toBeUndefined();
  });

  it('set and get round-trip plain data; delete removes', async () => {
    const value = { a: 1, b: 'two', c: [true, null, { d: 4.5 }], e: 12345678901234n };
    await stores.kv.set('k', value);
    expect(await stores.kv.get('k')).toEqual(value);
    await stores.kv.delete('k');
    expect(await stores.kv.get('k')).toBeUndefined();
  });

  it('ttl - a value expires on the injected clock', async () => {
    await stores.kv.set('k', 'v', 1000);
    await clock.advance(999);
    expect(await stores.kv.get('k')).toBe('v');
    await clock.advance(1);
    expect(await stores.kv.get('k')).toBeUndefined();
  });

  it('setIfAbsent - only the first writer wins until the value expires', async () => {
    expect(await stores.kv.setIfAbsent('k', 1, 1000)).toBe(true);
    expect(await stores.kv.setIfAbsent('k', 2, 1000)).toBe(false);
    expect(await stores.kv.get('k')).toBe(1);
    await clock.advance(1000);
    expect(await stores.kv.setIfAbsent('k', 3)).toBe(true);
    expect(await stores.kv.get('k')).toBe(3);
    expect(await stores.kv.setIfAbsent('k', 4)).toBe(false);
  });

  it('setIfAbsent - of claims started together exactly one wins, and its value is kept', async () => {
    const won = await Promise.all(Array.from({ length: 50 }, (_, i) => stores.kv.setIfAbsent('claim', i, 1000)));
    expect(won.filter(Boolean)).toHaveLength(1);
    expect(await stores.kv.get('claim')).toBe(won.indexOf(true));
  });

  it('compareAndSet - writes only over the expected value; undefined expects absence and deletes', async () => {
    expect(await stores.kv.compareAndSet('lease', 'node_a', 'node_b', 1000)).toBe(false);
    expect(await stores.kv.get('lease')).toBeUndefined();
    expect(await stores.kv.compareAndSet('lease', undefined, 'node_a', 1000)).toBe(true);
    expect(await stores.kv.compareAndSet('lease', undefined, 'node_b', 1000)).toBe(false);
    expect(await stores.kv.compareAndSet('lease', 'node_b', 'node_b', 1000)).toBe(false);
    expect(await stores.kv.get('lease')).toBe('node_a');
    // a renewal moves the expiry: still held 999 ms after it, though 1000 ms after the first write
    await clock.advance(500);
    expect(await stores.kv.compareAndSet('lease', 'node_a', 'node_a', 1000)).toBe(true);
    await clock.advance(999);
    expect(await stores.kv.get('lease')).toBe('node_a');
    await clock.advance(1);
    expect(await stores.kv.compareAndSet('lease', 'node_a', 'node_a', 1000)).toBe(false);
    expect(await stores.kv.compareAndSet('lease', undefined, 'node_b', 1000)).toBe(true);
    expect(await stores.kv.compareAndSet('lease', 'node_b', undefined)).toBe(true);
    expect(await stores.kv.get('lease')).toBeUndefined();
    // numbers, booleans and counters compare by value; a value written without a TTL keeps none
    await stores.kv.set('n', 7);
    expect(await stores.kv.compareAndSet('n', '7', 8)).toBe(false);
    expect(await stores.kv.compareAndSet('n', 7, true)).toBe(true);
    expect(await stores.kv.compareAndSet('n', true, 1.5)).toBe(true);
    expect(await stores.kv.get('n')).toBe(1.5);
    await stores.kv.incr('c', 3);
    expect(await stores.kv.compareAndSet('c', 2, 10)).toBe(false);
    expect(await stores.kv.compareAndSet('c', 3, 10)).toBe(true);
    await clock.advance(3600_000);
    expect(await stores.kv.get('c')).toBe(10);
  });

  it('compareAndSet - of renewals raced by two holders exactly one wins each round', async () => {
    await stores.kv.set('lease', 'h0', 1000);
    let holder = 'h0';
    for (let round = 1; round <= 10; round++) {
      const next = [`a${round}`, `b${round}`];
      const won = await Promise.all(next.map((v) => stores.kv.compareAndSet('lease', holder, v, 1000)));
      expect(won.filter(Boolean)).toHaveLength(1);
      holder = next[won.indexOf(true)];
      expect(await stores.kv.get('lease')).toBe(holder);
    }
  });

  it('incr - atomic counter from 0, keeping an existing expiry', async () => {
    expect(await stores.kv.incr('c')).toBe(1);
    expect(await stores.kv.incr('c', 5)).toBe(6);
    expect(await stores.kv.get('c')).toBe(6);
    await Promise.all(Array.from({ length: 20 }, () => stores.kv.incr('c')));
    expect(await stores.kv.get('c')).toBe(26);
    await stores.kv.set('t', 10, 1000);
    expect(await stores.kv.incr('t')).toBe(11);
    await clock.advance(1000);
    expect(await stores.kv.get('t')).toBeUndefined();
    expect(await stores.kv.incr('t')).toBe(1);
  });
});

describe(`indexes (${storeFamily()})`, () => {
  const put = (id: string, sortKey: string, list = 'l') => ({ op: 'put' as const, list, id, sortKey });

  it('page - sort-key order, ties by id, both directions, resumable after an id (spec 4 preamble)', async () => {
    await stores.indexes.apply([put('c', '2'), put('a', '1'), put('b', '2'), put('d', '3'), put('e', '0', 'other')]);
    expect(await stores.indexes.page('l', { limit: 10, order: 'asc' })).toEqual({ ids: ['a', 'b', 'c', 'd'], hasMore: false });
    expect(await stores.indexes.page('l', { limit: 10, order: 'desc' })).toEqual({ ids: ['d', 'c', 'b', 'a'], hasMore: false });
    expect(await stores.indexes.page('l', { limit: 2, order: 'asc' })).toEqual({ ids: ['a', 'b'], hasMore: true });
    expect(await stores.indexes.page('l', { after: 'b', limit: 2, order: 'asc' })).toEqual({ ids: ['c', 'd'], hasMore: false });
    expect(await stores.indexes.page('l', { after: 'c', limit: 1, order: 'desc' })).toEqual({ ids: ['b'], hasMore: true });
    expect(await stores.indexes.page('l', { after: 'zz', limit: 5, order: 'asc' })).toEqual({ ids: [], hasMore: false });
    expect(await stores.indexes.page('none', { limit: 5, order: 'asc' })).toEqual({ ids: [], hasMore: false });
  });

  it('apply - a put moves a member; a remove drops it', async () => {
    await stores.indexes.apply([put('a', '1'), put('b', '2'), put('c', '3')]);
    await stores.indexes.apply([put('a', '9'), { op: 'remove', list: 'l', id: 'b' }, { op: 'remove', list: 'l', id: 'nope' }]);
    expect((await stores.indexes.page('l', { limit: 10, order: 'asc' })).ids).toEqual(['c', 'a']);
    expect((await stores.indexes.page('l', { after: 'b', limit: 10, order: 'asc' })).ids).toEqual([]);
  });

  it('apply - a fresh put places a new member; put again with its sort key, fresh or not, it changes nothing', async () => {
    const fresh = (id: string, sortKey: string) => ({ ...put(id, sortKey), fresh: true });
    await stores.indexes.apply([fresh('b', '2'), fresh('a', '1'), fresh('d', '4')]);
    await stores.indexes.apply([fresh('c', '3'), fresh('b', '2'), put('a', '1'), fresh('d', '4')]);
    expect(await stores.indexes.page('l', { limit: 10, order: 'asc' })).toEqual({ ids: ['a', 'b', 'c', 'd'], hasMore: false });
    expect(await stores.indexes.page('l', { after: 'b', limit: 1, order: 'asc' })).toEqual({ ids: ['c'], hasMore: true });
    await stores.indexes.apply([{ op: 'remove', list: 'l', id: 'b' }]);
    expect((await stores.indexes.page('l', { limit: 10, order: 'desc' })).ids).toEqual(['d', 'c', 'a']);
  });
});

describe(`indexes, ops that name the sort key they leave (${storeFamily()})`, () => {
  // the runtime's list changes name `from` (stores/types.ts IndexOp); a store may then keep no place
  const put = (id: string, sortKey: string, from: string | null) => ({ op: 'put' as const, list: 'k', id, sortKey, fresh: from === null, from });
  const remove = (id: string, from: string) => ({ op: 'remove' as const, list: 'k', id, from });
  /** A page after `after`, naming its sort key where the store keeps no places (runtime/list-page.ts does so). */
  const after = (id: string, sortKey: string, order: 'asc' | 'desc' = 'asc') => stores.indexes.page('k', { after: id, afterSortKey: stores.indexes.keepsNoPlaces ? sortKey : undefined, limit: 10, order });

  it('apply - a put from nowhere places, a put from its sort key moves, a remove from it drops; pages after an id by its sort key (spec 4 preamble)', async () => {
    await stores.indexes.apply([put('a', '1', null), put('b', '2', null), put('c', '3', null), put('d', '4', null)]);
    await stores.indexes.apply([put('a', '9', '1'), remove('b', '2'), put('c', '3', '3')]);
    expect(await stores.indexes.page('k', { limit: 10, order: 'asc' })).toEqual({ ids: ['c', 'd', 'a'], hasMore: false });
    expect(await after('c', '3')).toEqual({ ids: ['d', 'a'], hasMore: false });
    expect(await after('a', '9', 'desc')).toEqual({ ids: ['d', 'c'], hasMore: false });
    expect(await after('b', '2')).toEqual({ ids: [], hasMore: false }); // removed
    // a sort key where the id is not: no member of it, so an empty page
    if (stores.indexes.keepsNoPlaces) expect(await stores.indexes.page('k', { after: 'a', afterSortKey: '1', limit: 10, order: 'asc' })).toEqual({ ids: [], hasMore: false });
  });

  it.runIf(process.env.TEST_STORES === 'local')('dropLists - a store that keeps no places drops the named lists whole, members of every sort key', async () => {
    await stores.indexes.apply([put('a', '1', null), { op: 'put', list: 'kept', id: 'a', sortKey: '1' }]);
    expect(await stores.indexes.dropLists!((list) => list === 'k')).toBe(1);
    expect((await stores.indexes.page('k', { limit: 10, order: 'asc' })).ids).toEqual([]);
    expect((await stores.indexes.page('kept', { limit: 10, order: 'asc' })).ids).toEqual(['a']);
  });
});

describe(`readings (${storeFamily()})`, () => {
  it('range - inclusive bounds, ordered by recorded time across batches', async () => {
    const t = clock.now();
    await stores.readings.append('wrk_1', [{ recordedAt: t + 30, data: { n: 3 } }, { recordedAt: t + 10, data: { n: 1 } }]);
    await stores.readings.append('wrk_1', [{ recordedAt: t + 20, data: { n: 2 } }, { recordedAt: t + 40, data: { n: 4 } }]);
    await stores.readings.append('wrk_2', [{ recordedAt: t + 20, data: { n: 99 } }]);
    expect((await stores.readings.range('wrk_1', t + 10, t + 30)).map((r) => r.data)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    expect(await stores.readings.range('wrk_3', t, t + 100)).toEqual([]);
  });

  it('range - open bounds (-Infinity, Infinity) give every reading of the worker kept, and only its own', async () => {
    const t = clock.now();
    await stores.readings.append('wrk_1', [{ recordedAt: t + 20, data: 2 }, { recordedAt: t + 10, data: 1 }]);
    await stores.readings.append('wrk_10', [{ recordedAt: t + 15, data: 'other' }]);
    expect((await stores.readings.range('wrk_1', -Infinity, Infinity)).map((r) => r.data)).toEqual([1, 2]);
    expect((await stores.readings.range('wrk_1', t + 11, Infinity)).map((r) => r.data)).toEqual([2]);
  });

  it('range - readings older than the retention window are gone', async () => {
    const t = clock.now();
    await stores.readings.append('wrk_1', [{ recordedAt: t, data: 1 }, { recordedAt: t + 1000, data: 2 }]);
    await clock.advance(3600_000 + 500);
    expect((await stores.readings.range('wrk_1', 0, t + 5000)).map((r) => r.data)).toEqual([2]);
  });
});
