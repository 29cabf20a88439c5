/**
 * Names in NATS and Redis. Every stream, subject and key of one store family starts with its
 * namespace, so tests (a random namespace each) and deployments sharing a server stay apart.
 *
 * A journal stream name (`${kind}.${id}`) becomes subject tokens: it is split on dots and each
 * token keeps [A-Za-z0-9_-]; any other character (spaces, `*`, `>`, `%`, non-ASCII) is written
 * as %XX of its UTF-8 bytes and an empty token as a lone `%`. Actor ids are base62, so in practice
 * nothing is escaped, but a hostile id can never address another actor's subject or a wildcard.
 *
 * Nothing a caller sends reaches a subject unbounded (docs/cluster.md "Names"): the server closes
 * a connection whose control line passes 4,096 bytes, and with it every request, lease renewal
 * and subscription of the node. A name whose tokens would pass SUBJECT_TAIL_MAX characters is
 * written as one hashed token instead, `%H` + base64url(sha256 of its UTF-16 code units). Escaping
 * never writes `%H` (its `%` is followed by two hex digits or nothing), so a hashed subject never
 * equals an exact one, and every name that fits maps exactly as it always did: stored journals
 * keep their subjects. A hashed subject cannot be read back; whoever needs the name from it (the
 * journal's feed) keeps the name in the message.
 */
import { createHash } from 'node:crypto';

const SAFE = /^[A-Za-z0-9_-]+$/;
const NAMESPACE = /^[A-Za-z0-9_-]{1,48}$/;
/** Longest subject tail (after the prefix) written exactly; a base62 id with its kind uses under 100. */
export const SUBJECT_TAIL_MAX = 256;
const HASHED = '%H';

export function checkNamespace(ns: string): string {
  if (!NAMESPACE.test(ns)) throw new Error(`cluster namespace must match ${NAMESPACE}: ${JSON.stringify(ns)}`);
  return ns;
}

export function escapeToken(token: string): string {
  if (token === '') return '%';
  if (SAFE.test(token)) return token;
  let out = '';
  for (const ch of token) {
    if (/[A-Za-z0-9_-]/.test(ch)) out += ch;
    else for (const b of Buffer.from(ch, 'utf8')) out += '%' + b.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}

export function unescapeToken(token: string): string {
  if (token === '%') return '';
  return token.includes('%') ? decodeURIComponent(token) : token;
}

/** `kind.id` (or any dotted name) as subject tokens after a prefix: exact when it fits, else one hashed token. */
export function subjectOf(prefix: string, name: string): string {
  if (name.length <= SUBJECT_TAIL_MAX) {
    const exact = name.split('.').map(escapeToken).join('.');
    if (exact.length <= SUBJECT_TAIL_MAX) return `${prefix}.${exact}`;
  }
  // UTF-16 code units, not UTF-8: two names differing only in lone surrogates stay apart.
  return `${prefix}.${HASHED}${createHash('sha256').update(Buffer.from(name, 'utf16le')).digest('base64url')}`;
}

/** Whether subjectOf hashed the name: the subject cannot be read back with nameOf. */
export const isHashedSubject = (prefix: string, subject: string): boolean => subject.startsWith(`${prefix}.${HASHED}`);

/** Inverse of subjectOf for a subject that is not hashed. */
export function nameOf(prefix: string, subject: string): string {
  if (isHashedSubject(prefix, subject)) throw new Error(`subject ${subject} is hashed: its name is kept in the message, not the subject`);
  return subject.slice(prefix.length + 1).split('.').map(unescapeToken).join('.');
}

/** Longest NATS KV key written exactly; a digest key (`cred:` and 64 hex) uses under 80. */
export const KV_KEY_MAX = 256;
const KV_SAFE = /^[A-Za-z0-9_-]+$/;

/**
 * A key-value key as a NATS KV key (tokens of [-/_=.A-Za-z0-9]): each `:`-separated part is one
 * token, keeping [A-Za-z0-9_-] and writing any other character as `=XX` of its UTF-8 bytes (an
 * empty part as a lone `=`), so an email's dots or a client's Idempotency-Key never make tokens or
 * wildcards of their own. A key whose tokens would pass KV_KEY_MAX becomes its first part and one
 * hashed token `=H` + base64url(sha256); escaping never writes `=H` (`=` is followed by two hex
 * digits or nothing), so a hashed key never equals an exact one.
 */
export function kvKeyOf(key: string): string {
  const parts = key.split(':');
  if (key.length <= KV_KEY_MAX) {
    const exact = parts.map(kvToken).join('.');
    if (exact.length <= KV_KEY_MAX) return exact;
  }
  const head = parts.length > 1 && parts[0].length <= 64 ? `${kvToken(parts[0])}.` : '';
  return `${head}=H${createHash('sha256').update(Buffer.from(key, 'utf16le')).digest('base64url')}`;
}

function kvToken(part: string): string {
  if (part === '') return '=';
  if (KV_SAFE.test(part)) return part;
  let out = '';
  for (const ch of part) {
    if (/[A-Za-z0-9_-]/.test(ch)) out += ch;
    else for (const b of Buffer.from(ch, 'utf8')) out += '=' + b.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}
