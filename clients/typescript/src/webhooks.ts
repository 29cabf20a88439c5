/**
 * Checks a webhook delivery's signature (spec 6.2): `Service-Signature: t=<unix seconds>,v1=<hex>`,
 * each v1 an HMAC-SHA256 over `t + '.' + raw body` keyed with an endpoint secret. Verify over the
 * raw bytes before parsing; a timestamp more than five minutes from now is refused (spec 8
 * "signature timestamp tolerance"); while two secrets are active a delivery is signed with each,
 * and matching any one secret given suffices. Web Crypto only, so it runs in Node and browsers.
 */

export type WebhookRefusal = 'malformed_header' | 'timestamp_outside_tolerance' | 'no_matching_signature';

export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
  constructor(readonly reason: WebhookRefusal, message: string) {
    super(message);
  }
}

export interface VerifyOptions {
  /** Seconds a timestamp may be from now (spec 8: five minutes). */
  toleranceSeconds?: number;
  /** The time to judge the timestamp by, in milliseconds since the epoch (now by default). */
  now?: number;
}

const encoder = new TextEncoder();

function parseHeader(header: string): { t: number; v1: string[] } {
  let t: number | undefined;
  const v1: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    const k = part.slice(0, eq).trim();
    const v = part.slice(eq + 1).trim();
    if (k === 't' && /^\d+$/.test(v)) t = Number(v);
    else if (k === 'v1' && /^[0-9a-f]{64}$/.test(v)) v1.push(v);
  }
  if (t === undefined || v1.length === 0) throw new WebhookVerificationError('malformed_header', 'The signature header needs t=<unix seconds> and at least one v1=<hex digest>');
  return { t, v1 };
}

async function hmacHex(secret: string, signed: Uint8Array<ArrayBuffer>): Promise<string> {
  const key = await globalThis.crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const mac = new Uint8Array(await globalThis.crypto.subtle.sign('HMAC', key, signed));
  return Array.from(mac, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** Compares in time independent of where the strings differ. */
function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/** Resolves with the parsed event when the signature holds; rejects with WebhookVerificationError otherwise. */
export async function verify(rawBody: string | Uint8Array, header: string, secrets: string | readonly string[], options: VerifyOptions = {}): Promise<unknown> {
  const { t, v1 } = parseHeader(header);
  const now = Math.floor((options.now ?? Date.now()) / 1000);
  if (Math.abs(now - t) > (options.toleranceSeconds ?? 300)) throw new WebhookVerificationError('timestamp_outside_tolerance', `The signature's timestamp ${t} is more than the tolerance from now (${now})`);
  const body = typeof rawBody === 'string' ? encoder.encode(rawBody) : rawBody;
  const prefix = encoder.encode(`${t}.`);
  const signed = new Uint8Array(new ArrayBuffer(prefix.length + body.length));
  signed.set(prefix);
  signed.set(body, prefix.length);
  for (const secret of typeof secrets === 'string' ? [secrets] : secrets) {
    const expected = await hmacHex(secret, signed);
    if (v1.some((sig) => sameText(sig, expected))) return JSON.parse(new TextDecoder().decode(body));
  }
  throw new WebhookVerificationError('no_matching_signature', 'No v1 signature matches any of the secrets given');
}

export const webhooks = { verify };
