/**
 * Signed documents between areas (spec 1 rule 10: "payout instructions arrive signed from payroll
 * or remittance"; the payouts module checks each against the signing key of the area that made it).
 *
 * Design: Ed25519 (node:crypto), one key pair per area, organisation and realm (test / live). The
 * private key never leaves its area; the public key is published under its key id and area, so a
 * receiver verifies with nothing secret and only against the area it expects: a document signed
 * with payroll's key does not verify as remittance's. Made on first use with setIfAbsent, so two
 * nodes racing still agree on one key.
 */
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify } from 'node:crypto';
import type { KeyValueStore } from '../stores/index.ts';
import { serviceKey } from './services.ts';

export type Realm = 'test' | 'live';
export const realmOf = (livemode: boolean): Realm => (livemode ? 'live' : 'test');

export interface SigningKey {
  key_id: string;
  area: string;
  org: string;
  realm: Realm;
  private_pem: string;
  public_pem: string;
}

export interface PublicKeyRecord {
  key_id: string;
  area: string;
  org: string;
  realm: Realm;
  algorithm: 'ed25519';
  public_pem: string;
}

/** A signed document as one area hands it to another (the exact signed bytes and the signature). */
export interface SignedEnvelope {
  algorithm: 'ed25519';
  key_id: string;
  /** The exact signed bytes (UTF-8). */
  document: string;
  /** Base64 Ed25519 signature over `document`. */
  signature: string;
}

export type SignatureCheck = { valid: true } | { valid: false; reason: 'unknown_key' | 'signature_invalid' | 'organisation_mismatch' };

const privateKeyName = (area: string, org: string, realm: Realm) => `${area}:signing_key:${org}:${realm}`;
const publicKeyName = (area: string, keyId: string) => `${area}:signing_public:${keyId}`;

/** The area's key for an organisation and realm, made on first use (one key even under races). */
export async function signingKey(kv: KeyValueStore, area: string, org: string, realm: Realm): Promise<SigningKey> {
  const name = privateKeyName(area, org, realm);
  const existing = await kv.get<SigningKey>(name);
  if (existing) return existing;
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const public_pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const key: SigningKey = {
    key_id: `pkey_${createHash('sha256').update(public_pem).digest('hex').slice(0, 24)}`,
    area, org, realm,
    private_pem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    public_pem,
  };
  if (!(await kv.setIfAbsent(name, key))) return (await kv.get<SigningKey>(name))!;
  const pub: PublicKeyRecord = { key_id: key.key_id, area, org, realm, algorithm: 'ed25519', public_pem };
  await kv.set(publicKeyName(area, key.key_id), pub);
  return key;
}

/** The published public key of `area` under `keyId`, if that area issued it. */
export async function publicKey(kv: KeyValueStore, area: string, keyId: string): Promise<PublicKeyRecord | undefined> {
  return kv.get<PublicKeyRecord>(publicKeyName(area, keyId));
}

/** Base64 Ed25519 signature of `bytes` with the area's private key. */
export function signWith(key: SigningKey, bytes: string): string {
  return sign(null, Buffer.from(bytes), createPrivateKey(key.private_pem)).toString('base64');
}

/**
 * The receiver's check: the key id is one `area` issued, it belongs to `org` and `realm`, and the
 * signature holds over the exact bytes. What the document says is the caller's to check next.
 */
export async function verifySigned(kv: KeyValueStore, area: string, env: SignedEnvelope, org: string, realm: Realm): Promise<SignatureCheck> {
  const pub = typeof env.key_id === 'string' ? await publicKey(kv, area, env.key_id) : undefined;
  if (!pub) return { valid: false, reason: 'unknown_key' };
  if (pub.org !== org || pub.realm !== realm) return { valid: false, reason: 'organisation_mismatch' };
  let ok = false;
  try {
    ok = env.algorithm === 'ed25519' && typeof env.document === 'string' && typeof env.signature === 'string'
      && verify(null, Buffer.from(env.document), createPublicKey(pub.public_pem), Buffer.from(env.signature, 'base64'));
  } catch {
    ok = false;
  }
  return ok ? { valid: true } : { valid: false, reason: 'signature_invalid' };
}
