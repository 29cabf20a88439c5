/**
 * Scopes (spec 5.6): `module:action`. The spec names `run:` for payroll plus ledger:read,
 * delivery:read and delivery:write; the other module prefixes are "not shown". We use the event
 * sources of spec 6 (anchor, proof, rail, flow, match, run, remit, route) and `iam` for the Accounts
 * endpoints (docs/gaps.md#accounts). A wildcard is never issued.
 */
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

const known = new Set(ALL_SCOPES);
export const isScope = (s: string): boolean => known.has(s);

/** Scopes in the canonical order, without duplicates. */
export const canonicalScopes = (scopes: Iterable<string>): string[] => {
  const set = new Set(scopes);
  return ALL_SCOPES.filter((s) => set.has(s));
};
