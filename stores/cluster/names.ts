/**
 * Names in NATS and Redis. Every stream, subject and key of one store family starts with its
 * namespace, so tests (a random namespace each) and deployments sharing a server stay apart.
 *
 * A journal stream name (`${kind}.${id}`) becomes subject tokens: it is split on dots and each
 * token keeps [A-Za-z0-9_-]; any other character (spaces, `*`, `>`, `%`, non-ASCII) is written
 * as %XX of its UTF-8 bytes and an empty token as a lone `%`. Actor ids are base62, so in practice
 * nothing is escaped, but a hostile id can never address another actor's subject or a wildcard.
 */

const SAFE = /^[A-Za-z0-9_-]+$/;
const NAMESPACE = /^[A-Za-z0-9_-]{1,48}$/;

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

/** `kind.id` (or any dotted name) as subject tokens after a prefix. */
export const subjectOf = (prefix: string, name: string): string => `${prefix}.${name.split('.').map(escapeToken).join('.')}`;

/** Inverse of subjectOf. */
export const nameOf = (prefix: string, subject: string): string =>
  subject.slice(prefix.length + 1).split('.').map(unescapeToken).join('.');
