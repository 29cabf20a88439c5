/**
 * The fair queue of webhook attempts (docs/gaps.md#fair-outbound-work): organisations take turns,
 * endpoints within one take turns, and the caps in all, per organisation and per endpoint hold at
 * once. Pure bookkeeping, so the order is exact.
 */
import { describe, expect, it } from 'vitest';
import { FairQueue } from '../../actors/delivery/fair-queue.ts';

/** Takes every attempt the caps allow now, as `org/endpoint/job`. */
function startAll(q: FairQueue<string>): string[] {
  const out: string[] = [];
  for (let s = q.next(); s; s = q.next()) out.push(`${s.org}/${s.endpoint}/${s.job}`);
  return out;
}

describe('fair queue of webhook attempts', () => {
  it("a burst of one organisation does not go ahead of another's later attempt: organisations take turns", () => {
    const q = new FairQueue<string>({ total: 4, perOrganisation: 10, perEndpoint: 10 });
    for (let i = 1; i <= 6; i++) q.push('A', 'a1', `${i}`);
    q.push('B', 'b1', '1');
    expect(startAll(q)).toEqual(['A/a1/1', 'B/b1/1', 'A/a1/2', 'A/a1/3']);
    expect([q.running, q.depth]).toEqual([4, 3]);
  });

  it('the caps in all, per organisation and per endpoint hold at once; a finished attempt frees exactly its own slots', () => {
    const q = new FairQueue<string>({ total: 3, perOrganisation: 2, perEndpoint: 1 });
    for (const j of ['1', '2', '3']) q.push('A', 'a1', j);
    q.push('A', 'a2', '1');
    q.push('B', 'b1', '1');
    q.push('B', 'b1', '2');
    // A a1, then B (A's turn is over), then A's other endpoint (a1 is at its cap): three in all
    expect(startAll(q)).toEqual(['A/a1/1', 'B/b1/1', 'A/a2/1']);
    q.done('A', 'a1');
    // B's endpoint is at its cap; A has room for one more, on a1
    expect(startAll(q)).toEqual(['A/a1/2']);
    q.done('B', 'b1');
    expect(startAll(q)).toEqual(['B/b1/2']);
    q.done('A', 'a2');
    // A holds a1/2 alone now, but a1 is at its cap of one: nothing starts
    expect(startAll(q)).toEqual([]);
    q.done('A', 'a1');
    expect(startAll(q)).toEqual(['A/a1/3']);
    expect([q.running, q.depth]).toEqual([2, 0]);
  });

  it('drain takes every queued attempt out and leaves those running counted until done', () => {
    const q = new FairQueue<string>({ total: 1, perOrganisation: 1, perEndpoint: 1 });
    q.push('A', 'a1', '1');
    q.push('A', 'a1', '2');
    q.push('B', 'b1', '1');
    expect(startAll(q)).toEqual(['A/a1/1']);
    expect(q.drain().sort()).toEqual(['1', '2']);
    expect([q.running, q.depth]).toEqual([1, 0]);
    q.done('A', 'a1');
    expect([q.running, q.next()]).toEqual([0, undefined]);
  });

  it('done for an attempt that is not running is a fault, not a silent miscount', () => {
    expect(() => new FairQueue<string>({ total: 1, perOrganisation: 1, perEndpoint: 1 }).done('A', 'a1')).toThrow(/no attempt/);
  });
});
