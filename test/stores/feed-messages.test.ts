/**
 * The cluster journal's feed messages shared by one node's feed readers (stores/cluster/feed-messages.ts,
 * DESIGN "Sharding"): each message known to exist is fetched once per node however many readers
 * read it; a sequence beyond what is known is fetched by each reader for itself, so a reader poked
 * by an append is never handed an earlier reader's "not written yet"; what is kept is bounded.
 */
import { describe, expect, it } from 'vitest';
import { FeedMessages } from '../../stores/cluster/feed-messages.ts';

/** A stand-in stream: sequences 1..written exist when a fetch is sent; every fetch is counted. */
function stream() {
  const s = { written: 0, fetches: new Map<number, number>(), failNext: false };
  const fetch = async (seq: number): Promise<{ seq: number } | null> => {
    s.fetches.set(seq, (s.fetches.get(seq) ?? 0) + 1);
    const exists = seq <= s.written; // the answer is decided when the request is sent
    const fail = s.failNext;
    s.failNext = false;
    await new Promise((r) => setTimeout(r, 1));
    if (fail) throw new Error('timeout');
    return exists ? { seq } : null;
  };
  return { s, fetch };
}

describe('feed messages shared by the readers of one node (stores/cluster/feed-messages.ts)', () => {
  it('readers of known sequences, together or one after another, fetch each message once', async () => {
    const { s, fetch } = stream();
    s.written = 10;
    const messages = new FeedMessages(fetch, 100);
    messages.saw(10);
    const read = () => Promise.all(Array.from({ length: 10 }, (_, i) => messages.get(i + 1)));
    const [a, b] = await Promise.all([read(), read()]);
    const c = await read();
    expect(a.map((m) => m?.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(b).toEqual(a);
    expect(c[3]).toBe(a[3]); // the same decoded message, not a second copy
    expect([...s.fetches.values()].every((n) => n === 1)).toBe(true);
  });

  it('a reader poked by an append gets the message even while an earlier read of that sequence, sent before the append, is still out', async () => {
    const { s, fetch } = stream();
    const messages = new FeedMessages(fetch, 100);
    const early = messages.get(1); // sent before the write: will answer "not written yet"
    s.written = 1;
    messages.saw(1); // the append is acknowledged, and the readers are poked
    const late = messages.get(1);
    expect(await early).toBeNull();
    expect(await late).toEqual({ seq: 1 });
  });

  it('a sequence beyond what is known is probed by each read; found, it becomes known and is kept; a failed fetch is asked again', async () => {
    const { s, fetch } = stream();
    const messages = new FeedMessages(fetch, 100);
    expect(await messages.get(1)).toBeNull();
    expect(messages.highest).toBe(0);
    s.written = 2;
    expect(await messages.get(1)).toEqual({ seq: 1 });
    expect(messages.highest).toBe(1);
    await messages.get(1);
    expect(s.fetches.get(1)).toBe(2); // the null and the find; the third read was served from what is kept
    messages.saw(2);
    s.failNext = true;
    await expect(messages.get(2)).rejects.toThrow('timeout');
    expect(await messages.get(2)).toEqual({ seq: 2 });
    expect(s.fetches.get(2)).toBe(2);
  });

  it('keeps at most its limit and an eighth, letting the oldest sequences go first a slice at a time (stores/cluster/oldest-first.ts)', async () => {
    const { s, fetch } = stream();
    s.written = 200;
    const messages = new FeedMessages(fetch, 64);
    messages.saw(200);
    for (let i = 1; i <= 200; i++) {
      await messages.get(i);
      expect(messages.size).toBeLessThanOrEqual(64 + 8);
    }
    expect(messages.size).toBeGreaterThanOrEqual(64);
    await messages.get(200);
    await messages.get(1);
    expect(s.fetches.get(200)).toBe(1);
    expect(s.fetches.get(1)).toBe(2);
  });
});
