/**
 * kernel filterLists and filteredList (kernel/lists.ts): the lists a record stands in so its list
 * route filters by any of its fields, and the one list a query reads.
 */
import { describe, expect, it } from 'vitest';
import { filteredList, filterLists } from '../../kernel/index.ts';

describe('filterLists and filteredList', () => {
  it('a record stands in one list per combination of its filters, all among them', () => {
    expect(filterLists({ period: '2026-01', status: 'draft' }, 'k').map((e) => e.list).sort()).toEqual(['all', 'period:2026-01', 'period:2026-01:status:draft', 'status:draft']);
    expect(filterLists({ period: '2026-01', status: 'draft' }, 'k').every((e) => e.sortKey === 'k')).toBe(true);
  });

  it('a filter with no value is left out of every list', () => {
    expect(filterLists({ run: null, status: 'held' }, 'k').map((e) => e.list).sort()).toEqual(['all', 'status:held']);
  });

  it('a query reads the list of the filters it gives, all when none; the list is one the record stands in', () => {
    expect(filteredList({ period: undefined, status: undefined })).toBe('all');
    expect(filteredList({ period: '2026-01', status: undefined })).toBe('period:2026-01');
    expect(filteredList({ period: undefined, status: 'draft' })).toBe('status:draft');
    const lists = filterLists({ period: '2026-01', status: 'draft' }, 'k').map((e) => e.list);
    for (const q of [{}, { period: '2026-01' }, { status: 'draft' }, { period: '2026-01', status: 'draft' }]) expect(lists).toContain(filteredList({ period: undefined, status: undefined, ...q }));
  });
});
