/**
 * Subject numbers and columns (kernel subject-numbers.ts, subject-columns.ts; DESIGN "Gates between
 * areas"): one dense number per (organisation, subject) on a node, shared by every module of a
 * platform, and columns by number that read 0 where nothing was set.
 */
import { describe, expect, it } from 'vitest';
import { ByteColumn, CountColumn, NumberColumn, Services, SubjectNumbers, subjectNumbers, type Platform } from '../../kernel/index.ts';

describe('subject numbers (DESIGN "Gates between areas")', () => {
  it('one number per (organisation, subject): the same pair always the same, another organisation another, dense from 0', () => {
    const n = new SubjectNumbers();
    expect(n.find('org_a', 'w1')).toBe(-1);
    const a1 = n.of('org_a', 'w1');
    const b1 = n.of('org_b', 'w1');
    const a2 = n.of('org_a', 'w2');
    expect([a1, b1, a2].sort()).toEqual([0, 1, 2]);
    expect(n.of('org_a', 'w1')).toBe(a1);
    expect(n.find('org_b', 'w1')).toBe(b1);
    expect(n.find('org_b', 'w2')).toBe(-1);
    expect(n.count).toBe(3);
  });

  it('every module of a platform shares one numbering', () => {
    const platform = { services: new Services() } as unknown as Platform;
    const first = subjectNumbers(platform);
    expect(subjectNumbers(platform)).toBe(first);
    expect(subjectNumbers({ services: new Services() } as unknown as Platform)).not.toBe(first);
  });
});

describe('subject columns', () => {
  it('read 0 where nothing was set (past the end and below 0 too), and keep every value as they grow', () => {
    for (const make of [() => new ByteColumn(), () => new CountColumn(), () => new NumberColumn()]) {
      const c = make();
      expect(c.get(0)).toBe(0);
      expect(c.get(5_000_000)).toBe(0);
      expect(c.get(-1)).toBe(0);
      for (let i = 0; i < 5000; i += 7) c.set(i, (i % 200) + 1);
      c.set(100_000, 9);
      for (let i = 0; i < 5000; i++) expect(c.get(i)).toBe(i % 7 === 0 ? (i % 200) + 1 : 0);
      expect(c.get(100_000)).toBe(9);
      expect(() => c.set(-1, 1)).toThrow(RangeError);
    }
  });

  it('hold their type: a count is a 32-bit integer, a number column keeps times in ms exactly', () => {
    const n = new NumberColumn();
    n.set(3, 1_790_000_000_123.5);
    expect(n.get(3)).toBe(1_790_000_000_123.5);
    const c = new CountColumn();
    c.set(2, -4);
    expect(c.get(2)).toBe(-4);
  });
});
