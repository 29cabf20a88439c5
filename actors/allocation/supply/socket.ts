/**
 * The device heartbeat socket (spec 4.7; DESIGN "Heartbeats arrive two ways with one code path").
 * A device authenticated on upgrade sends a batch as a JSON text frame or a msgpack binary frame
 * and gets the HeartbeatReceipt back in the same encoding; the batch goes through exactly the code
 * path of POST /v1/allocation/heartbeats. A refusal comes back as an error frame (the gateway's).
 * A msgpack batch of the common valid shape is decoded in one pass (msgpack-batch.ts); any other
 * frame goes through msgpackr (after the structure check of msgpack-frame.ts) and parseBatch, the
 * REST body check. A truncated or malformed frame answers 400 invalid_request. A device credential
 * sends only its own worker's batches, and its frames stop when it is revoked (devices/device-access.ts).
 * A frame with a `type` is not a batch: a device subscribes on this socket to its worker's offers and
 * assignments, acknowledges, accepts and declines offers (devices/device-frames.ts).
 */
import { Packr, Unpackr } from 'msgpackr';
import { ApiError, callerOf, jsonBoundsRefusal, type SocketDef } from '../../../kernel/index.ts';
import { deviceMayActFor } from '../devices/device-access.ts';
import { controlFrame, isControlFrame } from '../devices/device-frames.ts';
import { decodeMsgpackBatch } from './msgpack-batch.ts';
import { checkMsgpackFrame } from './msgpack-frame.ts';
import { ingestHeartbeats, submitHeartbeats } from './heartbeats.ts';
import { allocationService } from './service.ts';

export const HEARTBEAT_SOCKET_PATH = '/v1/allocation/heartbeats/stream';

const packr = new Packr({ useRecords: false });
const unpackr = new Unpackr({ useRecords: false, mapsAsObjects: true });
const decoder = new TextDecoder();
/** A decoder's own words about an unreadable frame are cut here (V8 quotes the JSON it choked on). */
const MESSAGE_REASON_MAX = 120;

/** A pack from before the socket budgets (2026.01.1) set none: the socket stays as it was then. */
export const heartbeatSocket: SocketDef & Required<Pick<SocketDef, 'limits'>> = {
  path: HEARTBEAT_SOCKET_PATH,
  module: 'match',
  summary: 'Heartbeat batches over a WebSocket: JSON text or msgpack binary frames in, HeartbeatReceipt out in the same encoding.',
  specGap: 'The spec names no socket path; see docs/gaps.md#allocation.',
  /** The budgets of the active policy pack's `socket` section; the gateway's defaults for a pack without one (docs/gaps.md#allocation). */
  limits(platform) {
    const budget = allocationService(platform).policy.pack.socket;
    return budget ? { badFramesPerConnection: budget.bad_frames_per_connection, framesPerSecond: budget.frames_per_second } : undefined;
  },
  async onMessage(frame, ctx) {
    const s = allocationService(ctx.platform);
    const caller = callerOf(ctx);
    const fast = frame.binary ? decodeMsgpackBatch(frame.data, s.policy.pack.heartbeat.max_readings_per_batch) : undefined;
    let receipt;
    if (fast) {
      deviceMayActFor(ctx.platform, ctx.principal, fast.workerId);
      receipt = await ingestHeartbeats(ctx.platform, caller, fast);
    } else {
      const body = readBody(frame);
      // a frame with a type is the device's own (subscribe, ack, accept, decline): devices/device-frames.ts
      if (isControlFrame(body)) {
        const reply = await controlFrame(body, frame.binary, ctx);
        return frame.binary ? packr.pack(reply) : JSON.stringify(reply);
      }
      // A device sends only its own worker's batches (spec 4.7); a batch without a readable worker_id is parseBatch's 400.
      const worker = (body as { worker_id?: unknown } | null)?.worker_id;
      if (ctx.principal.kind === 'device') deviceMayActFor(ctx.platform, ctx.principal, typeof worker === 'string' ? worker : ctx.principal.worker!);
      receipt = await submitHeartbeats(ctx.platform, caller, body);
    }
    return frame.binary ? packr.pack(receipt) : JSON.stringify(receipt);
  },
};

/** The frame's value for parseBatch; an unreadable frame is the sender's fault: 400 invalid_request, never a fault of ours. */
function readBody(frame: { data: Uint8Array; binary: boolean }): unknown {
  if (frame.binary) checkMsgpackFrame(frame.data);
  else {
    const beyond = jsonBoundsRefusal(frame.data); // before JSON.parse, as for a request body
    if (beyond) throw new ApiError('invalid_request', beyond.replace('request body', 'frame'));
  }
  try {
    return frame.binary ? unpackr.unpack(frame.data) : JSON.parse(decoder.decode(frame.data));
  } catch (e) {
    const reason = String(e instanceof Error ? e.message : e);
    throw new ApiError('invalid_request', `The frame is not a readable ${frame.binary ? 'msgpack' : 'JSON'} batch: ${reason.length > MESSAGE_REASON_MAX ? `${reason.slice(0, MESSAGE_REASON_MAX)}...` : reason}.`);
  }
}
