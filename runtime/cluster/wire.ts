/**
 * The remote-ask wire format: msgpack (the snapshot codec's options, so replies carry the same
 * values a local call returns) over NATS request/reply. A refusal travels as its ApiError code,
 * message and details and is rebuilt on the caller's side; `moved` means the receiver does not
 * serve the shard (it is being handed over) and nothing was applied.
 */
import { Packr } from 'msgpackr';
import { ApiError, assertNever, type ErrorCode } from '../../kernel/base/index.ts';
import { packTree } from '../../stores/index.ts';
import type { RemoteCall } from '../system.ts';

/**
 * The remote-ask protocol this node speaks, announced in its membership heartbeat (lease-members.ts):
 *   1  one ask per message, answered on the ask's own reply subject;
 *   2  also a turn's asks to one owner as one message, answered by one message per asking node
 *      (requests.ts "batch").
 * A node reads both; it sends a batch only to a node that announces 2, since a node speaking only
 * 1 reads a batch as one malformed ask and answers it with a fault.
 */
export const ASK_PROTOCOL = 2;
/** The first protocol with batches. */
export const BATCHED_ASKS = 2;

type PackrOptions = ConstructorParameters<typeof Packr>[0];
const packr = new Packr({ structuredClone: true, useRecords: false, useBigIntExtension: true } as PackrOptions);
/**
 * Writes without structured clone's reference tracking (a map entry per object written, most of
 * a small ask's packing time): for a tree it writes the bytes `packr` writes, the same types being
 * on, so either side reads the other unchanged. A value with a cycle overflows its stack and is
 * written by `packr`; one object held twice reads back as two equal copies.
 */
const treePackr = new Packr({ moreTypes: true, useRecords: false, useBigIntExtension: true } as PackrOptions);

export interface RemoteRequest {
  kind: string;
  id: string;
  call: RemoteCall;
}

export type RemoteReply =
  | { t: 'ok'; value: unknown }
  | { t: 'api'; code: ErrorCode; message: string; details?: Record<string, unknown> }
  | { t: 'fault'; message: string }
  | { t: 'moved' };

export const encode = (v: RemoteRequest | RemoteReply): Uint8Array => packTree(treePackr, packr, v);
export const decodeRequest = (b: Uint8Array): RemoteRequest => packr.unpack(b) as RemoteRequest;
export const decodeReply = (b: Uint8Array): RemoteReply => packr.unpack(b) as RemoteReply;

export function replyOf(err: unknown): RemoteReply {
  if (err instanceof ApiError) return { t: 'api', code: err.code, message: err.message, details: err.details };
  return { t: 'fault', message: err instanceof Error ? err.message : String(err) };
}

export function unwrap(r: Exclude<RemoteReply, { t: 'moved' }>): unknown {
  switch (r.t) {
    case 'ok':
      return r.value;
    case 'api':
      throw new ApiError(r.code, r.message, r.details);
    case 'fault':
      throw new Error(r.message);
    default:
      return assertNever(r);
  }
}
