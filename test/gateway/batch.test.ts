/**
 * The transport's phase batch (gateway/batch.ts): requests read in one I/O phase are handed to the
 * pipeline together right after it, in arrival order, each exactly once; nothing read is lost.
 */
import { describe, expect, it } from 'vitest';
import { PhaseBatch } from '../../gateway/batch.ts';

const afterPhase = () => new Promise<void>((r) => setImmediate(r));

describe('requests read in one I/O phase run together after it, in order, once each (gateway transport)', () => {
  it('runs nothing during the phase, then everything pushed in it, in arrival order', async () => {
    const ran: number[] = [];
    const batch = new PhaseBatch<number>((n) => ran.push(n), () => {});
    for (let i = 0; i < 5; i++) batch.push(i);
    expect(ran).toEqual([]);
    await afterPhase();
    expect(ran).toEqual([0, 1, 2, 3, 4]);
    await afterPhase();
    expect(ran).toEqual([0, 1, 2, 3, 4]); // each once
  });

  it('work pushed while a batch runs waits for the next phase, and still runs', async () => {
    const ran: string[] = [];
    const batch: PhaseBatch<string> = new PhaseBatch<string>((s) => {
      ran.push(s);
      if (s === 'a') batch.push('c');
    }, () => {});
    batch.push('a');
    batch.push('b');
    await afterPhase();
    expect(ran).toEqual(['a', 'b']);
    await afterPhase();
    expect(ran).toEqual(['a', 'b', 'c']);
  });

  it('an item that throws is reported and the rest of its batch still runs', async () => {
    const ran: number[] = [];
    const errors: unknown[] = [];
    const batch = new PhaseBatch<number>((n) => {
      if (n === 1) throw new Error('boom');
      ran.push(n);
    }, (e) => errors.push(e));
    [0, 1, 2].forEach((n) => batch.push(n));
    await afterPhase();
    expect(ran).toEqual([0, 2]);
    expect(errors).toHaveLength(1);
  });
});
