/**
 * The eight modules of spec 1 and where their event and audit reads live. The module of an actor
 * kind is the area whose `kinds` contains it (platform.areas); an area is a module when its name
 * is in this table. Scope prefixes follow the event sources of spec 6 (the gateway's choice, see
 * docs/gaps.md#gateway); the path prefixes are spec 1's.
 */
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
