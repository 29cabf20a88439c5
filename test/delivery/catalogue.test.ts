import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { areas } from '../../actors/index.ts';
import { EventCatalogue, renderCatalogue } from '../../actors/delivery/index.ts';
import { CATALOGUE_DOC } from '../../scripts/write-docs.ts';
import { fakePayroll } from './support.ts';

describe('event catalogue (spec 6)', () => {
  it('every area declares its event types consistently: one type per name, one per journal event, known kinds (spec 6)', () => {
    expect(new EventCatalogue(areas).problems).toEqual([]);
  });

  it('the published catalogue docs/events.md is the one the areas declare (spec 6)', () => {
    const expected = renderCatalogue(new EventCatalogue(areas));
    // Regenerate with: npm run events
    expect(readFileSync(CATALOGUE_DOC, 'utf8')).toBe(expected);
  });

  it('refuses a second public type for one journal event, a duplicate type and an unknown kind (spec 6)', () => {
    const bad = {
      ...fakePayroll,
      name: 'payroll',
      events: [
        ...fakePayroll.events!,
        { type: 'run.approved', source: 'run', schemaVersion: 1, kind: 'fake_run', on: 'run.noted', description: 'dup type' },
        { type: 'run.noted_twice', source: 'run', schemaVersion: 1, kind: 'fake_run', on: 'run.approved', description: 'dup trigger' },
        { type: 'run.ghost', source: 'run', schemaVersion: 1, kind: 'ghost', on: 'x', description: 'no kind' },
      ],
    };
    const c = new EventCatalogue([bad]);
    expect(c.problems).toHaveLength(3);
    expect(c.match('fake_run', 'run.approved')?.type).toBe('run.approved');
  });
});
