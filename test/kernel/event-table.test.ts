/**
 * kernel publicEventsOf / publicEventTable (kernel/event-table.ts): an area's public event types
 * (spec 6) are a table of data, read into the declarations the event catalogue takes; a table that
 * is not of its shape stops the area from loading.
 */
import { describe, expect, it } from 'vitest';
import { publicEventsOf } from '../../kernel/event-table.ts';
import { areas } from '../../actors/index.ts';

const table = {
  source: 'run',
  named_by_spec: ['run.approved'],
  kinds: {
    payroll_run: [
      { type: 'run.created', on: 'run.created', description: 'A draft run was created.' },
      { type: 'run.approved', on: 'run.approved', description: 'The run was approved.' },
    ],
    payroll_import: [{ type: 'run.import.completed', on: 'import.completed', description: 'An import completed.' }],
  },
};

describe('public event tables', () => {
  it('a row becomes a declaration of its kind under the table\u2019s source, in order; a gap unless the spec names the type', () => {
    expect(publicEventsOf(table)).toEqual([
      { type: 'run.created', source: 'run', schemaVersion: 1, kind: 'payroll_run', on: 'run.created', description: 'A draft run was created.', specGap: true },
      { type: 'run.approved', source: 'run', schemaVersion: 1, kind: 'payroll_run', on: 'run.approved', description: 'The run was approved.', specGap: false },
      { type: 'run.import.completed', source: 'run', schemaVersion: 1, kind: 'payroll_import', on: 'import.completed', description: 'An import completed.', specGap: true },
    ]);
  });

  it.each([
    ['no source', { ...table, source: '' }, /no source/],
    ['no kinds', { source: 'run' }, /no kinds/],
    ['a row without its journal event', { ...table, kinds: { payroll_run: [{ type: 'run.created', description: 'x' }] } }, /payroll_run row 1 is not/],
    ['a row with a field of its own', { ...table, kinds: { payroll_run: [{ type: 'run.created', on: 'run.created', description: 'x', spec: true }] } }, /payroll_run row 1 is not/],
    ['a spec name no row declares', { ...table, named_by_spec: ['run.approved', 'run.rejected'] }, /named_by_spec lists run.rejected/],
  ])('refused, naming the table: %s', (_, bad, why) => {
    expect(() => publicEventsOf(bad, 'actors/x/events.json')).toThrow(why);
    expect(() => publicEventsOf(bad, 'actors/x/events.json')).toThrow(/^actors\/x\/events\.json: /);
  });

  it('every area\u2019s table was read: each area that produces events declares them, each spec name among them', () => {
    const declared = areas.flatMap((a) => a.events ?? []);
    expect(declared.length).toBeGreaterThan(100);
    expect(declared.filter((d) => !d.specGap).map((d) => d.type).sort()).toEqual(
      ['claim.lapsed', 'engagement.terminated', 'instrument.expired', 'licence.expired', 'payroll.run.completed', 'run.approved', 'verification.resolved', 'verification.unresolved'],
    );
  });
});
