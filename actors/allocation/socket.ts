/**
 * The device heartbeat socket (spec 4.7; DESIGN "Heartbeats arrive two ways with one code path").
 * A device authenticated on upgrade sends a batch as a JSON text frame or a msgpack binary frame
 * and gets the HeartbeatReceipt back in the same encoding; the batch goes through exactly the code
 * path of POST /v1/allocation/heartbeats. A refusal comes back as an error frame (the gateway's).
 * A msgpack batch of the common valid shape is decoded in one pass (msgpack-batch.ts); any other
 * frame goes through msgpackr and parseBatch, the REST body check.
 */
import { Packr, Unpackr } from 'msgpackr';
import { ApiError, callerOf, type SocketDef } from '../../kernel/index.ts';
import { decodeMsgpackBatch } from './msgpack-batch.ts';
import { service } from './routes.ts';

export const HEARTBEAT_SOCKET_PATH = '/v1/allocation/heartbeats/stream';

const packr = new Packr({ useRecords: false });
const unpackr = new Unpackr({ useRecords: false, mapsAsObjects: true });
const decoder = new TextDecoder();

export const heartbeatSocket: SocketDef = {
  path: HEARTBEAT_SOCKET_PATH,
  module: 'match',
  summary: 'Heartbeat batches over a WebSocket: JSON text or msgpack binary frames in, HeartbeatReceipt out in the same encoding.',
  specGap: 'The spec names no socket path; see docs/gaps.md#allocation.',
  async onMessage(frame, ctx) {
    const s = service(ctx.platform);
    const caller = callerOf(ctx);
    const fast = frame.binary ? decodeMsgpackBatch(frame.data, s.policy.pack.heartbeat.max_readings_per_batch) : undefined;
    let receipt;
    if (fast) receipt = await s.ingest(fast, caller);
    else {
      let body: unknown;
      try {
        body = frame.binary ? unpackr.unpack(frame.data) : JSON.parse(decoder.decode(frame.data));
      } catch (e) {
        throw new ApiError('invalid_request', `The frame is not a readable ${frame.binary ? 'msgpack' : 'JSON'} batch: ${(e as Error).message}.`);
      }
      receipt = await s.heartbeats(body, caller);
    }
    return frame.binary ? packr.pack(receipt) : JSON.stringify(receipt);
  },
};
