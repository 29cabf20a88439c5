/**
 * The memory reminder store (DESIGN "Timers"; stores/memory/reminders.ts) keeps a heap of exactly
 * the live reminders. Whatever the sequence of puts, replacements, cancels, postpones and
 * completions, `due` must answer what a plain list of the live reminders sorted by due time
 * answers, and a cancelled or completed reminder must leave memory at once.
 */
import { describe, expect, it } from 'vitest';
import type { Reminder } from '../../stores/index.ts';
import { MemoryReminders } from '../../stores/memory/reminders.ts';

/** Deterministic pseudo-random numbers (a test must not depend on unseeded randomness). */
function lcg(seed: number) {
  let x = seed >>> 0;
  return (n: number) => ((x = (Math.imul(x, 1664525) + 1013904223) >>> 0) % n);
}

let generation = 0;
const reminder = (name: string, dueAt: number): Reminder => ({
  key: `thing.t1.${name}`, kind: 'thing', id: 't1', org: 'org_1', name, dueAt, command: 'tick', payload: {}, generation: `rmd_${++generation}`,
});

describe('memory reminders (a heap of the live ones)', () => {
  it('due answers as a sorted list of the live reminders after 4,000 random puts, replacements, cancels, postpones and completions', async () => {
    const rnd = lcg(7);
    const store = new MemoryReminders(() => 0);
    const model = new Map<string, Reminder>();
    for (let step = 0; step < 4_000; step++) {
      const name = `n${rnd(200)}`;
      const cur = model.get(`thing.t1.${name}`);
      const op = rnd(5);
      if (op === 0) {
        await store.cancel(`thing.t1.${name}`);
        model.delete(`thing.t1.${name}`);
      } else if (op === 1 && cur) {
        const dueAt = rnd(1_000);
        await store.postpone(cur, dueAt);
        model.set(cur.key, { ...cur, dueAt });
      } else if (op === 2 && cur) {
        await store.complete(cur);
        model.delete(cur.key);
      } else if (op === 3 && cur) {
        await store.complete({ ...cur, generation: 'rmd_stale' }); // a replaced reminder's completion removes nothing
      } else {
        const r = reminder(name, rnd(1_000));
        await store.put(r);
        model.set(r.key, r);
      }
      expect(store.size).toBe(model.size);
      if (step % 100 !== 0) continue;
      const now = rnd(1_000);
      const expected = [...model.values()].filter((r) => r.dueAt <= now).map((r) => r.dueAt).sort((a, b) => a - b);
      const got = await store.due(now, 1_000);
      expect(got.map((r) => r.dueAt)).toEqual(expected);
      for (const r of got) expect(model.get(r.key)).toEqual(r);
      expect(await store.nextDue()).toBe(model.size ? Math.min(...[...model.values()].map((r) => r.dueAt)) : undefined);
      const skipped = await store.due(now, 5, 3);
      expect(skipped.map((r) => r.dueAt)).toEqual(expected.slice(3, 8));
    }
  });

  it('a cancelled reminder leaves memory at once, not when its due time comes', async () => {
    const store = new MemoryReminders(() => 0);
    for (let i = 0; i < 1_000; i++) await store.put(reminder(`w${i}`, 120_000 + i));
    for (let i = 0; i < 1_000; i++) await store.cancel(`thing.t1.w${i}`);
    expect(store.size).toBe(0);
    expect(await store.nextDue()).toBeUndefined();
  });
});
