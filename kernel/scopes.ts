/**
 * Who is asking and what they may do (spec 5.5, 5.6). A scope is `module:action`; the action of a
 * route follows the spec's rule (safe method -> read, a path ending /approve -> approve, anything
 * else -> write). MODULES is the one table of the eight modules of spec 1: their area folder, path
 * prefix and scope prefix. The spec names `run:` for payroll; the other prefixes are "not shown",
 * and we use the event sources of spec 6 (docs/gaps.md#gateway).
 */

export interface Principal {
  /** `device`: a worker's device credential (spec 4.7), bound to one worker and scoped to what a device does. */
  kind: 'api_key' | 'access_token' | 'session' | 'device';
  /** api_key_..., the token's client id, the session's account id, or the device credential's id. */
  id: string;
  org: string;
  livemode: boolean;
  scopes: ReadonlySet<string>;
  /** The account behind a session. */
  account?: string;
  /** When a session ends (epoch ms): a key made with `expires_with_session` ends with it. */
  expiresAt?: number;
  /** The one worker (worker_id, a subject_ref) a device credential acts for (spec 4.7); absent otherwise. */
  worker?: string;
}

export interface ModuleInfo {
  /** Area name (folder under actors/). */
  area: string;
  /** Path prefix of spec 1, without a trailing slash. */
  path: string;
  /** Scope prefix (spec 5.6). */
  scope: string;
}

export const MODULES: readonly ModuleInfo[] = [
  { area: 'identity', path: '/v1/identity', scope: 'anchor' },
  { area: 'credentials', path: '/v1/credentials', scope: 'proof' },
  { area: 'engagements', path: '/v1/rail', scope: 'rail' },
  { area: 'sourcing', path: '/v1/sourcing', scope: 'flow' },
  { area: 'allocation', path: '/v1/allocation', scope: 'match' },
  { area: 'payroll', path: '/v1/payroll', scope: 'run' },
  { area: 'remittance', path: '/v1/remittance', scope: 'remit' },
  { area: 'payouts', path: '/v1/payouts', scope: 'route' },
];

export const isModule = (area: string): boolean => MODULES.some((m) => m.area === area);

/** The scope prefix of a module's area; throws for an area that is not one of the eight. */
export function moduleScope(area: string): string {
  const m = MODULES.find((x) => x.area === area);
  if (!m) throw new Error(`scopes: ${area} is not a module of spec 1`);
  return m.scope;
}

export const ACTIONS = ['read', 'write', 'approve'] as const;

/**
 * Every named scope, in a fixed order: each module's three, then ledger:read, delivery:read and
 * delivery:write (spec 5.6), then iam for the Accounts endpoints (docs/gaps.md#accounts).
 */
export const ALL_SCOPES: readonly string[] = [
  ...MODULES.flatMap((m) => ACTIONS.map((a) => `${m.scope}:${a}`)),
  'ledger:read',
  'delivery:read',
  'delivery:write',
  'iam:read',
  'iam:write',
];

/** Scope a route needs, by the spec 5.6 rule. */
export function requiredScope(def: { method: string; path: string; module: string | null }): string | null {
  if (def.module === null) return null;
  if (def.method === 'GET') return `${def.module}:read`;
  if (def.path.endsWith('/approve')) return `${def.module}:approve`;
  return `${def.module}:write`;
}
