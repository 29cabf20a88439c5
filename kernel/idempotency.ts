/**
 * What an area does with a request's Idempotency-Key (STYLE: "Idempotency is a rule with three
 * outcomes"; the gateway keeps the records). A create gives its new record an id derived from the
 * organisation and the key, and its command a dedupe id, so a create executed again after its
 * first answer was lost (the node died before the idempotency record was kept) lands on the same
 * record and applies nothing twice.
 */
import { derivedId, newId } from './base/index.ts';

/** The id a create gives its new record: derived with a key, random without; `part` tells apart several records of one request. */
export function createdId(req: { org: string; idempotencyKey?: string }, prefix: string, part = ''): string {
  return req.idempotencyKey === undefined ? newId(prefix) : derivedId(prefix, [req.org, req.idempotencyKey, part]);
}

/** The dedupe id a create's command carries with createdId, so running it again applies nothing. */
export function createDedupe(req: { idempotencyKey?: string }): string | undefined {
  // joined, not concatenated: the journal keeps it on the command's events (one flat string)
  return req.idempotencyKey === undefined ? undefined : ['ik', req.idempotencyKey].join(':');
}
