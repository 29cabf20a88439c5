/**
 * The heartbeat socket's frames as the device reads them (docs/gaps.md#allocation "Offers to the
 * device"): msgpack binary frames both ways. Each frame the device sends is answered by one frame,
 * in order (a receipt for a batch, `subscribed`, `acknowledged` or `offer` for a control frame, or
 * an error frame); between answers the platform pushes notices, each with the worker's `sequence`,
 * and `notices_truncated` or `unsubscribed`.
 */
import { Packr, Unpackr } from 'msgpackr';

const packr = new Packr({ useRecords: false });
const unpackr = new Unpackr({ useRecords: false, mapsAsObjects: true });

export const NOTICE_TYPES = ['offer.made', 'offer.accepted', 'offer.declined', 'offer.expired', 'offer.withdrawn', 'offer.accepted_elsewhere', 'assignment.changed', 'assignment.cancelled'] as const;
export type NoticeType = (typeof NOTICE_TYPES)[number];

/** A pushed notice: what happened to one of the worker's offers or assignments. */
export interface Notice {
  type: NoticeType;
  sequence: number;
  worker_id: string;
  event_id: string;
  offer?: { id: string; work_order_id: string; status: string; expires_at: string | null; [field: string]: unknown };
  assignment?: { id: string; status: string; [field: string]: unknown };
  [field: string]: unknown;
}

export interface ErrorFrame {
  error: { code: string; message: string; request_id?: string; retryable: boolean; validation?: unknown };
}

export type Pushed =
  | Notice
  | { type: 'notices_truncated'; after_sequence: number; oldest_sequence: number; sequence: number }
  | { type: 'unsubscribed'; reason: string };

const PUSHED = new Set<string>([...NOTICE_TYPES, 'notices_truncated', 'unsubscribed']);

export const encode = (value: unknown): Uint8Array => packr.pack(value);

export function decode(data: ArrayBuffer | Uint8Array | string): unknown {
  if (typeof data === 'string') return JSON.parse(data);
  return unpackr.unpack(data instanceof Uint8Array ? data : new Uint8Array(data));
}

/** A frame the platform pushed, rather than the answer to the device's oldest unanswered frame. */
export function isPushed(frame: unknown): frame is Pushed {
  const type = (frame as { type?: unknown } | null)?.type;
  return typeof type === 'string' && PUSHED.has(type);
}

export const isErrorFrame = (frame: unknown): frame is ErrorFrame => typeof (frame as ErrorFrame | null)?.error?.code === 'string';
