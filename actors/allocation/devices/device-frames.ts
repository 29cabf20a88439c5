/**
 * The frames a device sends on its socket besides heartbeat batches (docs/gaps.md#allocation
 * "Offers to the device"): a frame with a `type` is one of these, any other a batch. Each is
 * answered with one frame in the encoding it came in; a refusal is the gateway's error frame.
 *
 * type        body                              answer                                  needs
 * ----------  --------------------------------  --------------------------------------  ------------------------
 * subscribe   after_sequence? (integer >= 0)    the notices after it, then `subscribed`  a device credential
 * ack         offer_id                          `acknowledged`                           the offer is its worker's
 * accept      offer_id                          `offer` (the offer after it)             as POST .../accept
 * decline     offer_id, reason?                 `offer` (the offer after it)             as POST .../decline
 *
 * A device holds one subscription per connection; a second subscribe replaces the first (a device
 * that lost its place asks again from the last sequence it holds).
 */
import { ApiError, callerOf, errorEntry, idOf, type Principal, type SocketConnection, type SocketContext, validationError } from '../../../kernel/index.ts';
import { acceptOffer, declineOffer, getOffer } from '../work-orders/work-orders.ts';
import { OFFER_PREFIX } from '../work-orders/work-order.ts';
import { deviceMayActFor } from './device-access.ts';
import { deviceFeedOf } from './device-feed.ts';
import { DeviceInbox, inboxIdOf } from './device-inbox.ts';
import type { Subscription } from './subscriptions.ts';

export const CONTROL_TYPES = ['subscribe', 'ack', 'accept', 'decline'] as const;
type ControlType = (typeof CONTROL_TYPES)[number];
const REASON_MAX = 500;

/** The subscription each connection holds. */
const held = new WeakMap<SocketConnection, { current?: Subscription }>();

/** A readable frame with a string `type` is a control frame; anything else is read as a batch. */
export function isControlFrame(body: unknown): body is { type: string } & Record<string, unknown> {
  return body !== null && typeof body === 'object' && !Array.isArray(body) && typeof (body as { type?: unknown }).type === 'string';
}

function device(p: Principal, type: string): Principal & { worker: string } {
  if (p.kind !== 'device' || !p.worker) throw new ApiError('forbidden', `A ${type} frame is a worker's device's own; send it with the worker's device credential.`);
  return p as Principal & { worker: string };
}

function offerIdIn(body: Record<string, unknown>): string {
  const v = body.offer_id;
  if (typeof v !== 'string' || v.length === 0 || v.length > 255) throw validationError([errorEntry('/offer_id', 'required', 'offer_id is required: the id of an offer made to this worker.')]);
  return idOf(v, OFFER_PREFIX, 'offer');
}

/** The offer's worker must be the device's (spec 4.7); an unknown offer is 404. */
async function ownOffer(ctx: SocketContext, p: Principal & { worker: string }, offerId: string): Promise<void> {
  const offer = (await getOffer(ctx.platform, ctx.org, offerId)) as { worker_id: string };
  deviceMayActFor(ctx.platform, p, offer.worker_id);
}

/** Answers a control frame; the reply is a plain object the socket encodes as the frame came. */
export async function controlFrame(body: { type: string } & Record<string, unknown>, binary: boolean, ctx: SocketContext): Promise<object> {
  const type = body.type as ControlType;
  if (!(CONTROL_TYPES as readonly string[]).includes(type)) {
    throw validationError([errorEntry('/type', 'invalid_enum_value', `type must be one of ${CONTROL_TYPES.join(', ')}; a heartbeat batch has no type.`)]);
  }
  const p = device(ctx.principal, type);
  deviceMayActFor(ctx.platform, p, p.worker); // a revoked credential's open socket
  switch (type) {
    case 'subscribe': {
      const after = body.after_sequence ?? 0;
      if (typeof after !== 'number' || !Number.isSafeInteger(after) || after < 0) {
        throw validationError([errorEntry('/after_sequence', 'out_of_range', 'after_sequence is an integer >= 0: the last sequence this device holds (0 for all the backlog).')]);
      }
      const connection = ctx.connection;
      if (!connection) throw new ApiError('invalid_request', 'This connection cannot carry pushed frames.');
      let h = held.get(connection);
      if (!h) held.set(connection, (h = {}));
      const sub = await deviceFeedOf(ctx.platform).subscriptions.subscribe(ctx.org, p.worker, p.id, connection, binary, after, h);
      return { type: 'subscribed', worker_id: p.worker, after_sequence: after, sequence: sub.cursor };
    }
    case 'ack': {
      const offerId = offerIdIn(body);
      await ownOffer(ctx, p, offerId);
      await ctx.platform.system.ask(DeviceInbox, inboxIdOf(ctx.org, p.worker), 'acknowledge', { offer_id: offerId, device: p.id, worker_id: p.worker }, { org: ctx.org, principal: p.id, requestId: ctx.requestId, noReply: true });
      return { type: 'acknowledged', offer_id: offerId };
    }
    case 'accept': {
      const offerId = offerIdIn(body);
      await ownOffer(ctx, p, offerId);
      return { type: 'offer', offer: await acceptOffer(ctx.platform, socketCaller(ctx), offerId, undefined) };
    }
    case 'decline': {
      const offerId = offerIdIn(body);
      const reason = body.reason;
      if (reason !== undefined && (typeof reason !== 'string' || reason.length === 0 || reason.length > REASON_MAX)) {
        throw validationError([errorEntry('/reason', 'out_of_range', `reason is a string of 1 to ${REASON_MAX} characters.`)]);
      }
      await ownOffer(ctx, p, offerId);
      return { type: 'offer', offer: await declineOffer(ctx.platform, socketCaller(ctx), offerId, reason, undefined) };
    }
    default:
      throw new ApiError('invalid_request', 'Unknown frame type.');
  }
}

const socketCaller = (ctx: SocketContext) => callerOf({ org: ctx.org, livemode: ctx.livemode, requestId: ctx.requestId, principal: ctx.principal });
