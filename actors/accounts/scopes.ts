/**
 * Scope sets of keys and tokens (spec 5.6). The named scopes are the kernel's ALL_SCOPES (one
 * module-to-scope table, kernel/scopes.ts); what is the accounts area's own is how a set of them
 * is kept: a bitmask per set, interned, in ALL_SCOPES order. A wildcard is never issued.
 */
import { ALL_SCOPES } from '../../kernel/index.ts';
import { BoundedMap } from '../../runtime/index.ts';

/** Each named scope's bit: a set of scopes is one 31-bit integer. */
if (ALL_SCOPES.length > 31) throw new Error('scopes: more than 31 named scopes do not fit one integer mask');
const bit = new Map(ALL_SCOPES.map((s, i) => [s, 1 << i]));
export const isScope = (s: string): boolean => bit.has(s);

/**
 * One frozen array per set of scopes, shared by every key, token, event and view that carries it
 * (most keys carry the same few sets): a create then keeps no copy of its scope list of its own.
 */
const interned = new BoundedMap<number, readonly string[]>(4096);

/** Scopes in the canonical order, without duplicates; the array is frozen and shared. */
export function canonicalScopes(scopes: Iterable<string>): string[] {
  let mask = 0;
  for (const s of scopes) {
    const b = bit.get(s);
    if (b !== undefined) mask |= b; // unknown scopes are refused earlier (checkScopes)
  }
  let list = interned.get(mask);
  if (list === undefined) {
    list = Object.freeze(ALL_SCOPES.filter((s) => (mask & bit.get(s)!) !== 0));
    interned.set(mask, list);
  }
  return list as string[];
}
