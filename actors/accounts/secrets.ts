/**
 * Secrets (spec 5.2; DESIGN conventions): API keys, client secrets, access tokens and session
 * tokens are random, shown once, and kept only as SHA-256 digests (they carry 238 random bits, so
 * a fast digest is enough); digests are compared in constant time. Passwords are low-entropy, so
 * they are hashed with scrypt, node's memory-hard KDF (N=2^15, r=8: 32 MiB per hash), each hash
 * taking its turn in the bounded password queue (password-work.ts).
 */
import { hash, randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { randomString, randomSuffix } from '../../kernel/index.ts';
import { passwordWork } from './password-work.ts';

export const SECRET_LENGTH = 40;

export const newSecret = (prefix: string): string => randomString(prefix, SECRET_LENGTH);

export const digest = (secret: string): string => hash('sha256', secret, 'hex');

export function digestsEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}

export interface PasswordHash {
  algorithm: 'scrypt';
  N: number;
  r: number;
  p: number;
  salt: string;
  hash: string;
}

const PARAMS = { N: 1 << 15, r: 8, p: 1 } as const;
const KEYLEN = 32;

function scrypt(password: string, salt: Buffer, o: ScryptOptions): Promise<Buffer> {
  return passwordWork.run(() => new Promise((resolve, reject) =>
    scryptCb(password.normalize('NFKC'), salt, KEYLEN, { ...o, maxmem: 128 * o.N! * o.r! * 2 }, (err, key) => (err ? reject(err) : resolve(key))),
  ));
}

export async function hashPassword(password: string): Promise<PasswordHash> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, PARAMS);
  return { algorithm: 'scrypt', ...PARAMS, salt: salt.toString('base64'), hash: key.toString('base64') };
}

/** A hash to verify against when the email is unknown, so both refusals take the same time. */
let decoy: Promise<PasswordHash> | undefined;
export function decoyHash(): Promise<PasswordHash> {
  if (!decoy) {
    decoy = hashPassword(randomSuffix(24));
    decoy.catch(() => (decoy = undefined)); // refused by a full queue: made on a later sign-in
  }
  return decoy;
}

export async function verifyPassword(password: string, h: PasswordHash): Promise<boolean> {
  const key = await scrypt(password, Buffer.from(h.salt, 'base64'), { N: h.N, r: h.r, p: h.p });
  const want = Buffer.from(h.hash, 'base64');
  return key.length === want.length && timingSafeEqual(key, want);
}

const COMMON = new Set([
  'password', 'password1', 'password12', 'password123', 'passw0rd', 'qwerty', 'qwertyuiop', 'letmein', 'welcome',
  'iloveyou', 'admin', 'administrator', 'abc123', 'monkey', 'dragon', 'football', 'baseball', 'sunshine', 'princess',
  'trustno1', 'changeme', 'default', 'nigeria', 'lagos', 'abuja', '1234567890', '0123456789', '12345678910', '1q2w3e4r5t',
]);

export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 200;

/** Spec 4.1: "password refused with a showable reason". Returns the reason, or undefined. */
export function passwordWeakness(password: string, context: { email: string; name: string; organisation: string }): string | undefined {
  const p = password.normalize('NFKC');
  if (p.length < PASSWORD_MIN) return `The password must be at least ${PASSWORD_MIN} characters long.`;
  if (p.length > PASSWORD_MAX) return `The password must be at most ${PASSWORD_MAX} characters long.`;
  const lower = p.toLowerCase();
  if (new Set(lower).size < 4) return 'The password repeats too few different characters.';
  if (COMMON.has(lower) || COMMON.has(lower.replace(/[0-9!@#$%^&*.]+$/, ''))) return 'The password is too common; choose one that is not on lists of popular passwords.';
  if (/^(0123456789|1234567890|abcdefghij|qwertyuiop)/.test(lower)) return 'The password is a keyboard or number sequence.';
  const local = context.email.split('@')[0]?.toLowerCase() ?? '';
  if (local.length >= 4 && lower.includes(local)) return 'The password must not contain your email address.';
  for (const w of [context.name, context.organisation]) {
    const t = w.trim().toLowerCase();
    if (t.length >= 4 && lower.includes(t)) return 'The password must not contain your name or your organisation name.';
  }
  return undefined;
}
