/**
 * Derived ids asked for again and again (kernel/base/ids.ts derivedId costs a SHA-256): a record
 * whose id comes from an organisation and its own reference (a subject's passport, a worker's
 * inbox), or from the organisation alone (its seal chain), is named by every list entry, reaction
 * or notice about it, and those come in runs over the same few records.
 */
import { BoundedMap } from '../runtime/index.ts';
import { derivedId } from './base/index.ts';

/** Ids remembered by key for at least the last `kept` keys asked: `derive` runs once per key while it is remembered. */
export function rememberedIds(kept: number): (key: string, derive: () => string) => string {
  const ids = new BoundedMap<string, string>(kept);
  return (key, derive) => {
    let id = ids.get(key);
    if (id === undefined) ids.set(key, (id = derive()));
    return id;
  };
}

/** derivedId(prefix, [org, reference]), remembered for at least the last `kept` pairs asked. */
export function rememberedDerivedIds(prefix: string, kept: number): (org: string, reference: string) => string {
  const ids = rememberedIds(kept);
  return (org, reference) => ids(`${org}\u0000${reference}`, () => derivedId(prefix, [org, reference]));
}
