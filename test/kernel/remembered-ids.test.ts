/**
 * A remembered derived id is the derived id (kernel/base/ids.ts derivedId): the same for the same
 * organisation and reference however often it is asked or forgotten, and another for another
 * organisation sharing the reference (spec 5.5: nothing of one organisation names another's).
 */
import { expect, it } from 'vitest';
import { derivedId, rememberedDerivedIds, rememberedIds } from '../../kernel/index.ts';

it('rememberedDerivedIds - the same id as derivedId, asked again or after being forgotten, and apart per organisation (kernel/remembered-ids.ts)', () => {
  const idOf = rememberedDerivedIds('test_thing_', 2);
  const first = idOf('org_a', 'ref-1');
  expect(first).toBe(derivedId('test_thing_', ['org_a', 'ref-1']));
  expect(idOf('org_a', 'ref-1')).toBe(first);
  expect(idOf('org_b', 'ref-1')).toBe(derivedId('test_thing_', ['org_b', 'ref-1']));
  expect(idOf('org_b', 'ref-1')).not.toBe(first);
  for (let i = 0; i < 10; i++) idOf('org_c', `ref-${i}`); // more than it keeps
  expect(idOf('org_a', 'ref-1')).toBe(first);
});

it('rememberedIds - derives once per key while it is remembered, and again once forgotten (kernel/remembered-ids.ts)', () => {
  const idOf = rememberedIds(2);
  let derived = 0;
  const derive = (key: string) => () => (derived++, `id_${key}`);
  expect(idOf('a', derive('a'))).toBe('id_a');
  expect(idOf('a', derive('a'))).toBe('id_a');
  expect(derived).toBe(1);
  for (const k of ['b', 'c', 'd', 'e']) idOf(k, derive(k)); // more than it keeps
  expect(idOf('a', derive('a'))).toBe('id_a');
  expect(derived).toBe(6);
});
