/**
 * A request's client address, copied only where a rule reads it: a request with no credential is
 * rate-limited by its address (rate-limits.ts), while a credentialed one is limited by its
 * credential and never pays for the copy.
 */
import { CREDENTIAL_HEADERS } from '../kernel/index.ts';
import type { WireRequest } from './wire.ts';

const decoder = new TextDecoder();

/** `res`: the transport's response (uws.ts), which alone knows the socket. */
export function withAddress<R extends Omit<WireRequest, 'body'>>(res: { getRemoteAddressAsText(): ArrayBuffer }, head: R): R {
  for (const h of CREDENTIAL_HEADERS) if (head.headers[h] !== undefined) return head;
  head.address = decoder.decode(res.getRemoteAddressAsText());
  return head;
}
