/**
 * The runtime's time format (runtime/clock.ts iso): every view writes its times with it, so it
 * must write exactly what Date.prototype.toISOString writes, for every instant (its arithmetic
 * path covers 1970 to 9999; others go through Date).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { iso } from '../../runtime/index.ts';

const MAX = 8.64e15;

describe('iso (RFC 3339 times of every view, as toISOString writes them)', () => {
  it('equals toISOString for any millisecond from 1970 to 9999 and beyond', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 253_402_300_799_999 }), (ms) => iso(ms) === new Date(ms).toISOString()), { numRuns: 20_000 });
    fc.assert(fc.property(fc.integer({ min: -MAX, max: MAX }), (ms) => iso(ms) === new Date(ms).toISOString()), { numRuns: 5_000 });
  });

  it('equals toISOString at the edges: epoch, day ends, leap days, century years, the year 10000', () => {
    const edges = [
      0, 1, 999, 86_399_999, 86_400_000,
      Date.UTC(2000, 1, 29, 23, 59, 59, 999), Date.UTC(2024, 1, 29), Date.UTC(2100, 1, 28, 12), Date.UTC(2100, 2, 1),
      Date.UTC(1999, 11, 31, 23, 59, 59, 999), Date.UTC(2026, 11, 31, 23, 59, 59, 999), Date.UTC(2027, 0, 1),
      253_402_300_799_999, 253_402_300_800_000, -1, -62_198_755_200_000,
    ];
    for (const ms of edges) expect(iso(ms), String(ms)).toBe(new Date(ms).toISOString());
  });

  it('equals toISOString for a sequence of instants within one day and across days (the remembered date)', () => {
    const start = Date.UTC(2026, 10, 26, 23, 59, 0);
    for (let ms = start; ms < start + 120_000; ms += 997) expect(iso(ms)).toBe(new Date(ms).toISOString());
  });

  it('remembers the times formatted last without mixing up two that share a slot', () => {
    const t = Date.UTC(2026, 10, 26, 9, 0, 0, 0);
    for (let i = 0; i < 4; i++) for (const ms of [t, t + 256, t + 512, t]) expect(iso(ms)).toBe(new Date(ms).toISOString());
  });

  it('answers a fractional millisecond as toISOString does', () => {
    expect(iso(1.5)).toBe(new Date(1.5).toISOString());
  });
});
