/**
 * A KV bucket's puts through the node's acknowledgement inbox (publish-acks.ts) rather than the
 * client's kv.put, which is a js.publish and so a request with a timer of its own and an Error made
 * however it ends: every idempotency claim and record, credential and reminder is such a put. The
 * put is the message the client would send (the bucket's subject for the key, the expectation
 * header of a compare-and-set), so the entry and its revision read back the same. A client whose
 * bucket does not name its subjects keeps kv.put.
 */
import { JetStreamApiCodes } from '@nats-io/jetstream';
import type { KV } from '@nats-io/kv';
import type { PublishAcks } from './publish-acks.ts';

/** Puts `data` at `key`, at revision `previousSeq` when given (a compare-and-set); resolves with the entry's revision. */
export type BucketPut = (key: string, data: Uint8Array, previousSeq?: number) => Promise<number>;

export function bucketPut(kv: KV, acks: PublishAcks | undefined): BucketPut {
  const subjectForKey = (kv as unknown as { subjectForKey?: (k: string, edit: boolean) => string }).subjectForKey;
  if (acks === undefined || typeof subjectForKey !== 'function') return (key, data, previousSeq) => kv.put(key, data, previousSeq === undefined ? undefined : { previousSeq });
  // the subject of a put of a one-token key, less the key: the bucket's prefix for writes
  const prefix = subjectForKey.call(kv, 'k', true).slice(0, -'.k'.length);
  return (key, data, previousSeq) => acks.publish(`${prefix}.${key}`, data, previousSeq).then((a) => a.seq);
}

/**
 * Whether `e` is a compare-and-set refused because the key moved past the revision it named, as
 * the client's JetStreamApiError or the inbox's error named alike (publish-acks.ts): by name and
 * server code, not class, and by the server's words for a form that carries neither.
 */
export function refusedRevision(e: unknown): boolean {
  const err = e as { name?: unknown; code?: unknown; message?: unknown } | undefined;
  if (err?.name === 'JetStreamApiError' && (err.code === JetStreamApiCodes.StreamWrongLastSequence || err.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown)) return true;
  return /wrong last sequence/i.test(String(err?.message));
}
