/**
 * The cluster journal's feed messages shared by one node's feed readers (stores/cluster/feed-messages.ts,
 * DESIGN "Sharding"): each message of the stream is fetched once per node however many readers read
 * it, a sequence not written yet is asked again next time, and what is kept is bounded.
 */
import { describe, expect, it } from 'vitest';
import { FeedMessages } from '../../stores/cluster/feed-messages.ts';

/** A stand-in stream: sequences 1..written exist; every fetch is counted. */
function stream() {
  const s = { written: 0, fetches: new Map<number, number>(), failNext: false };
  const fetch = async (seq: number): Promise<{ seq: number } | null> => {
    s.fetches.set(seq, (s.fetches.get(seq) ?? 0) + 1);
    await Promise.resolve();
    if (s.failNext) {
      s.failNext = false;
      throw new Error('timeout');
    }
    return seq <= s.written ? { seq } : null;
  };
  return { s, fetch };
}

describe('feed messages shared by the readers of one node (stores/cluster/feed-messages.ts)', () => {
  it('readers of the same sequences, together or one after another, fetch each message once', async () => {
    const { s, fetch } = stream();
    s.written = 10;
    const messages = new FeedMessages(fetch, 100);
    const read = () => Promise.all(Array.from({ length: 10 }, (_, i) => messages.get(i + 1)));
    const [a, b] = await Promise.all([read(), read()]);
    const c = await read();
    expect(a.map((m) => m?.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(b).toEqual(a);
    expect(c[3]).toBe(a[3]); // the same decoded message, not a second copy
    expect([...s.fetches.values()].every((n) => n === 1)).toBe(true);
  });

  it('a sequence not written yet, or whose fetch failed, is fetched again on the next read', async () => {
    const { s, fetch } = stream();
    const messages = new FeedMessages(fetch, 100);
    expect(await messages.get(1)).toBeNull();
    s.written = 1;
    expect(await messages.get(1)).toEqual({ seq: 1 });
    s.written = 2;
    s.failNext = true;
    await expect(messages.get(2)).rejects.toThrow('timeout');
    expect(await messages.get(2)).toEqual({ seq: 2 });
    expect(s.fetches.get(1)).toBe(2);
    expect(s.fetches.get(2)).toBe(2);
  });

  it('keeps at most its limit, letting the oldest sequences go first', async () => {
    const { s, fetch } = stream();
    s.written = 1000;
    const messages = new FeedMessages(fetch, 64);
    for (let i = 1; i <= 1000; i++) await messages.get(i);
    expect(messages.size).toBe(64);
    await messages.get(1000);
    await messages.get(1);
    expect(s.fetches.get(1000)).toBe(1);
    expect(s.fetches.get(1)).toBe(2);
  });
});
