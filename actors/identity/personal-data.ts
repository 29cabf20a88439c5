/**
 * Personal data at the identity module's edge (spec 1 rule 6, 2.1 write-only fields; reference
 * section 1.1, 1.5). What comes in is checked for format (no checksum: the reference shows none
 * holds), normalised and turned at once into what we may keep:
 * - a keyed digest (HMAC-SHA256 under the platform's identity key) for matching and duplicate
 *   detection, never reversible without the key;
 * - a masked form for display (`*******6789`).
 * A vNIN is used for the query and never kept at all, not even as a digest (reference 1.1: "not to
 * be stored in any database"). Names are compared as sets of digested, case-folded tokens with
 * titles and diacritics removed (reference 1.5: order varies, middle names go missing), so a name
 * is never kept in clear either.
 */
import { createHmac, createSecretKey, type KeyObject, randomBytes } from 'node:crypto';
import type { IdentityPolicy } from './policy.ts';

export const NIN = /^\d{11}$/;
export const BVN = /^\d{11}$/;
/** 2 letters + 12 digits + 2 letters (reference 1.1). */
export const VNIN = /^[A-Za-z]{2}\d{12}[A-Za-z]{2}$/;
const E164_NG = /^\+234\d{10}$/;
const NATIONAL_NG = /^0\d{10}$/;

/** +234 followed by 10 digits, from either form providers use (reference 1.1); undefined when neither. */
export function normalisePhone(raw: string): string | undefined {
  const s = raw.replace(/[\s()-]/g, '');
  if (E164_NG.test(s)) return s;
  if (NATIONAL_NG.test(s)) return `+234${s.slice(1)}`;
  return undefined;
}

/** Shows the last `keep` characters only. */
export function mask(value: string, keep = 4): string {
  const tail = value.slice(-keep);
  return `${'*'.repeat(Math.max(0, value.length - keep))}${tail}`;
}

/** Each pack's honorifics as a set, made once per pack (a pack never changes). */
const honorifics = new WeakMap<IdentityPolicy, ReadonlySet<string>>();
function titlesOf(pack: IdentityPolicy): ReadonlySet<string> {
  let t = honorifics.get(pack);
  if (t === undefined) honorifics.set(pack, (t = new Set(pack.matching.honorifics)));
  return t;
}

/** Case-folded name tokens without diacritics and honorifics (reference 1.5). */
export function nameTokens(fullName: string, pack: IdentityPolicy): string[] {
  const titles = titlesOf(pack);
  return [
    ...new Set(
      fullName
        .normalize('NFD')
        .replace(/\p{M}/gu, '')
        .toLowerCase()
        .split(/[^\p{L}\p{N}]+/u)
        .filter((t) => t.length > 0 && !titles.has(t.replace(/\.$/, ''))),
    ),
  ];
}

export type NameMatch = 'exact' | 'match' | 'partial' | 'no_match';

/**
 * Token-set comparison (reference 1.5): the same set is exact; one set inside the other with at
 * least `min_shared_name_tokens` shared is a match (a missing middle name, swapped order); some
 * shared is partial (a surname changed on marriage goes to review); none shared is no match.
 */
export function compareNames(claimed: readonly string[], record: readonly string[], pack: IdentityPolicy): NameMatch {
  const a = new Set(claimed);
  const b = new Set(record);
  let shared = 0;
  for (const t of a) if (b.has(t)) shared++;
  if (shared === 0) return 'no_match';
  if (shared === a.size && shared === b.size) return 'exact';
  if ((shared === a.size || shared === b.size) && shared >= pack.matching.min_shared_name_tokens) return 'match';
  return 'partial';
}

/** Keyed digests under one key per platform (kept in the key-value store, or IDENTITY_DIGEST_KEY). */
export class Digester {
  /** Imported once: an HMAC keyed with raw bytes imports them again on every digest. */
  private readonly key: KeyObject;

  constructor(key: Buffer) {
    this.key = createSecretKey(key);
  }

  static generateKey(): string {
    return randomBytes(32).toString('base64');
  }

  digest(kind: string, value: string): string {
    return createHmac('sha256', this.key).update(`${kind}\u0000${value}`).digest('base64url').slice(0, 32);
  }

  tokens(kind: string, tokens: readonly string[]): string[] {
    return tokens.map((t) => this.digest(kind, t));
  }
}
