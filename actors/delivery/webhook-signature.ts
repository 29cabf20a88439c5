/**
 * Webhook signatures (spec 6.2): `Service-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>]`, each
 * v1 an HMAC-SHA256 over `${t}.${raw body}` keyed with one active endpoint secret, newest first.
 * The receiver verifies over the raw bytes before parsing; matching any one v1 suffices.
 */
import { createHmac, hash } from 'node:crypto';

export const SIGNATURE_HEADER = 'Service-Signature';
export const secretDigest = (secret: string): string => `sha256:${hash('sha256', secret, 'hex')}`;

/** A string body is signed as its UTF-8 bytes, the bytes sent. */
export function signatureHeader(secrets: readonly string[], t: number, body: string | Uint8Array): string {
  const signed = `${t}.`;
  let header = `t=${t}`;
  for (const s of secrets) header += `,v1=${createHmac('sha256', s).update(signed).update(body).digest('hex')}`;
  return header;
}
