/** Presence by the clock (spec 2.8: reporting, stale, ghost = available but absent). */
import { describe, expect, it } from 'vitest';
import { activePolicy } from '../../actors/allocation/index.ts';
import { nextPresenceChange, presenceAt, PresenceTimers } from '../../actors/allocation/supply/presence.ts';
import { ManualClock } from '../../runtime/index.ts';

const policy = activePolicy().pack;
const STALE = policy.presence.stale_after_seconds * 1000;
const GHOST = policy.presence.ghost_after_seconds * 1000;

describe('presence as a function of the clock', () => {
  it('reporting -> stale -> ghost for an available worker as time passes', () => {
    const p = { lastReportAt: 0, available: true, availableSince: -1000 };
    expect(presenceAt(p, STALE - 1, policy)).toBe('reporting');
    expect(presenceAt(p, STALE, policy)).toBe('stale');
    expect(presenceAt(p, GHOST - 1, policy)).toBe('stale');
    expect(presenceAt(p, GHOST, policy)).toBe('ghost');
    expect(nextPresenceChange(p, 0, policy)).toBe(STALE);
    expect(nextPresenceChange(p, STALE, policy)).toBe(GHOST);
    expect(nextPresenceChange(p, GHOST, policy)).toBeUndefined();
  });

  it('a worker who is not available is never a ghost (ghost is available but absent)', () => {
    const p = { lastReportAt: 0, available: false, availableSince: undefined };
    expect(presenceAt(p, GHOST * 10, policy)).toBe('stale');
    expect(nextPresenceChange(p, STALE, policy)).toBeUndefined();
  });

  it('absence of a newly available worker counts from when they became available', () => {
    const p = { lastReportAt: undefined, available: true, availableSince: 1_000_000 };
    expect(presenceAt(p, 1_000_000 + GHOST - 1, policy)).toBe('stale');
    expect(presenceAt(p, 1_000_000 + GHOST, policy)).toBe('ghost');
  });
});

describe('volatile presence timers', () => {
  it('fire once, never early, when the manual clock passes the deadline', async () => {
    const clock = new ManualClock(0);
    const fired: [string, number][] = [];
    const t = new PresenceTimers(clock, (k, now) => fired.push([k, now]));
    t.start();
    t.schedule('a', 1500);
    t.schedule('b', 4000);
    t.schedule('b', 2500); // replaced, not duplicated
    await clock.advance(1999);
    expect(fired).toEqual([]);
    await clock.advance(1);
    expect(fired).toEqual([['a', 2000]]);
    await clock.advance(10_000);
    expect(fired).toEqual([
      ['a', 2000],
      ['b', 3000],
    ]);
    expect(t.size).toBe(0);
    t.stop();
  });
});
