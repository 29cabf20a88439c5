/**
 * The embedded key-value store (stores/memory/kv.ts) keeps what it holds in the process, so it must
 * not only grow: a key written with a TTL is gone once it expires, whether or not anyone reads it
 * again (idempotency records are kept 7 days, spec 1.9; sessions and tokens expire, spec 5.3, 5.4).
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../runtime/index.ts';
import { MemoryKeyValue } from '../../stores/memory/kv.ts';

const size = (kv: MemoryKeyValue) => (kv as unknown as { values: Map<string, unknown> }).values.size;

describe('the embedded key-value store drops expired keys nobody reads again', () => {
  it('expired keys are swept by later writes with a TTL; keys without one stay', async () => {
    const clock = new ManualClock(0);
    const kv = new MemoryKeyValue(() => clock.now());
    for (let i = 0; i < 1000; i++) await kv.set(`lease:${i}`, i, 1000);
    for (let i = 0; i < 100; i++) await kv.set(`keep:${i}`, i);
    await clock.advance(1000);
    for (let i = 0; i < 2100; i++) await kv.set(`fresh:${i % 50}`, i, 60_000);
    expect(size(kv)).toBe(100 + 50);
    expect(await kv.get('keep:7')).toBe(7);
    expect(await kv.get('lease:7')).toBeUndefined();
  });

  it('a key written again without a TTL no longer expires; setting undefined deletes', async () => {
    const clock = new ManualClock(0);
    const kv = new MemoryKeyValue(() => clock.now());
    await kv.set('k', 1, 10);
    await kv.set('k', 2);
    await clock.advance(100);
    expect(await kv.get('k')).toBe(2);
    await kv.set('k', undefined);
    expect(await kv.get('k')).toBeUndefined();
    expect(await kv.setIfAbsent('k', 3)).toBe(true);
  });

  it('a counter keeps its expiry when incremented', async () => {
    const clock = new ManualClock(0);
    const kv = new MemoryKeyValue(() => clock.now());
    await kv.set('c', 1, 100);
    expect(await kv.incr('c', 2)).toBe(3);
    await clock.advance(100);
    expect(await kv.get('c')).toBeUndefined();
    expect(await kv.incr('c')).toBe(1);
  });
});
