/**
 * Resolving a webhook host at delivery time (docs/gaps.md#delivery). Every address a name resolves
 * to is checked with the address policy, once before the attempt and again inside the socket's own
 * lookup, so the address connected is always one that was checked: a DNS answer that turns inward
 * between the two (DNS rebinding) is refused as well.
 */
import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import { serviceKey } from '../../kernel/index.ts';
import { internalDetail, internalRange, isRefused } from './address-policy.ts';

export type Resolve = (host: string) => Promise<dns.LookupAddress[]>;

export const systemResolve: Resolve = (host) => dns.promises.lookup(host, { all: true });

/** A resolver in place of DNS on one platform: tests have no DNS beyond loopback. */
export const WEBHOOK_RESOLVER = serviceKey<Resolve>('delivery.webhook_resolver');

/** A host resolved to an address webhooks may not reach. */
export class InternalAddressError extends Error {
  readonly code = 'ERR_WEBHOOK_INTERNAL_ADDRESS';
}

const notFound = (host: string) => Object.assign(new Error(`${host} has no address`), { code: 'ENOTFOUND' });

/** Every address of `host`, or a refusal naming the first internal one (a mix of public and internal is refused). */
export async function checkedAddresses(host: string, allowPrivate: boolean, resolve: Resolve): Promise<dns.LookupAddress[]> {
  const all = await resolve(host);
  if (all.length === 0) throw notFound(host);
  for (const { address } of all) {
    const range = internalRange(address);
    if (range !== null && isRefused(range, allowPrivate)) throw new InternalAddressError(internalDetail(`${host} resolves to ${address}, which`, range));
  }
  return all;
}

/** The socket's lookup: resolves and checks again at connect, then answers in the form net asked for. */
export function guardedLookup(allowPrivate: boolean, resolve: Resolve): LookupFunction {
  return (host, options, callback) => {
    checkedAddresses(host, allowPrivate, resolve).then(
      (all) => {
        const fit = options.family === 4 || options.family === 6 ? all.filter((a) => a.family === options.family) : all;
        if (fit.length === 0) callback(notFound(host), '', 0);
        else if (options.all) callback(null, fit);
        else callback(null, fit[0].address, fit[0].family);
      },
      (err: NodeJS.ErrnoException) => callback(err, '', 0),
    );
  };
}
