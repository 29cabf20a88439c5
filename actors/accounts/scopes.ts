/**
 * Scopes (spec 5.6): `module:action`. The spec names `run:` for payroll plus ledger:read,
 * delivery:read and delivery:write; the other module prefixes are "not shown". We use the event
 * sources of spec 6 (anchor, proof, rail, flow, match, run, remit, route) and `iam` for the Accounts
 * endpoints (docs/gaps.md#accounts). A wildcard is never issued.
 */
import { BoundedMap } from '../../runtime/index.ts';

export const MODULE_PREFIXES = {
  identity: 'anchor',
  credentials: 'proof',
  engagements: 'rail',
  sourcing: 'flow',
  allocation: 'match',
  payroll: 'run',
  remittance: 'remit',
  payouts: 'route',
} as const;

export const ACTIONS = ['read', 'write', 'approve'] as const;

/** Every named scope, in a fixed order; the first sandbox key carries all of them. */
export const ALL_SCOPES: readonly string[] = [
  ...Object.values(MODULE_PREFIXES).flatMap((m) => ACTIONS.map((a) => `${m}:${a}`)),
  'ledger:read',
  'delivery:read',
  'delivery:write',
  'iam:read',
  'iam:write',
];

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
