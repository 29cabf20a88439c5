/**
 * Canonical JSON and content hashes (spec 9: rule packs, clause libraries, frameworks and weight
 * sets are identified by version and a `sha256:` hash; engagements seal instruments the same way).
 * Canonical form: object keys sorted at every depth, no whitespace, arrays in order; `undefined`
 * members are left out as JSON.stringify leaves them. One definition, so two areas hashing the
 * same document always agree.
 */
import { createHash } from 'node:crypto';

export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map((x) => (x === undefined ? 'null' : canonicalJson(x))).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o).filter((k) => o[k] !== undefined).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`).join(',')}}`;
  }
  return JSON.stringify(v);
}

/** `sha256:` + hex SHA-256 of the text. */
export const sha256 = (text: string | Uint8Array): string => `sha256:${createHash('sha256').update(text).digest('hex')}`;

/** `sha256:` hash of a value's canonical JSON. */
export const contentHash = (v: unknown): string => sha256(canonicalJson(v));
