/**
 * A field worker's phone on the platform (spec 4.7; docs/gaps.md#allocation "Device credentials",
 * "Offers to the device"): one WebSocket with the worker's device credential, over which it sends
 * heartbeat batches and control frames and receives the notices of the worker's offers and
 * assignments as they happen.
 *
 * - Readings are buffered (readings.ts) and sent in order, one batch at a time; a batch leaves the
 *   buffer only when its receipt comes back, so nothing is lost to a dropped connection, and a
 *   reading sent twice is refused by the platform as a duplicate rather than stored twice.
 * - One frame is in flight at a time and each answer is the answer to it: the socket answers every
 *   frame with one frame, and pushed notices are told apart by their type (frames.ts).
 * - On connecting it subscribes after the last notice sequence it holds, so the platform sends what
 *   was missed while the phone was away; notices are handed over in sequence, each once.
 * - A lost connection is opened again after a jittered, doubling wait. A connection refused before
 *   it opens is checked over HTTP with the same credential: 401 means the credential is revoked (or
 *   unknown), and the device stops with DeviceStoppedError instead of retrying for ever.
 */
import { decode, encode, isErrorFrame, isPushed, type ErrorFrame, type Notice, type Pushed } from './frames.js';
import { ReadingBuffer, type Reading } from './readings.js';

/** The part of the WebSocket interface the device uses (browsers', React Native's and the `ws` package's). */
export interface WebSocketLike {
  binaryType: string;
  send(data: Uint8Array): void;
  close(code?: number, reason?: string): void;
  onopen: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onclose: ((ev: { code: number; reason: string }) => void) | null;
  onerror: ((ev: unknown) => void) | null;
}

/** Opens a socket with the credential's headers: `(url, h) => new WebSocket(url, { headers: h })` with `ws`, `new WebSocket(url, null, { headers: h })` in React Native. */
export type WebSocketFactory = (url: string, headers: Record<string, string>) => WebSocketLike;

export interface DeviceOptions {
  /** The platform's address, e.g. http://127.0.0.1:8080. */
  baseUrl: string;
  /** The worker's device credential (dk_test_... or dk_live_...). */
  credential: string;
  workerId: string;
  webSocket: WebSocketFactory;
  fetch?: typeof fetch;
  /** Readings kept while offline (default 10,000); the oldest unsent go first. */
  bufferLimit?: number;
  /** Readings per batch (default 100; the platform's policy caps a batch). */
  batchSize?: number;
  /** The first reconnection wait before jitter (default 500 ms), doubled up to maxMs (default 30 s). */
  reconnect?: { baseMs?: number; maxMs?: number };
  /** The last notice sequence this device holds (the app keeps it across restarts); 0 for the whole backlog. */
  lastSequence?: number;
  /** Acknowledge each offer as it arrives (default true). */
  autoAcknowledge?: boolean;
}

export interface DeviceEvents {
  connected: () => void;
  disconnected: (code: number, reason: string) => void;
  receipt: (receipt: Record<string, unknown>) => void;
  notice: (notice: Notice) => void;
  /** The platform no longer holds notices after the device's last sequence; ask for records by HTTP. */
  truncated: (oldestSequence: number) => void;
  /** A refusal that does not stop the device (a batch refused whole, a retryable error). */
  refused: (error: ErrorFrame['error']) => void;
  stopped: (error: DeviceStoppedError | undefined) => void;
}

export class DeviceStoppedError extends Error {
  override readonly name = 'DeviceStoppedError';
  constructor(readonly code: string, message: string) {
    super(message);
  }
}

interface Outstanding {
  frame: Uint8Array;
  resolve: (answer: unknown) => void;
  reject: (e: Error) => void;
  kind: 'batch' | 'control' | 'subscribe';
}

const OPEN_TIMEOUT_MS = 15_000;
/** A batch refused as retryable (the socket's frame budget) is sent again after this long. */
const RETRY_BATCH_MS = 1_000;

export class Device {
  private readonly buffer: ReadingBuffer;
  private readonly listeners = new Map<keyof DeviceEvents, Set<(...args: never[]) => void>>();
  private socket: WebSocketLike | undefined;
  private open = false;
  private stopped = false;
  private attempts = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly queue: Outstanding[] = [];
  private current: Outstanding | undefined;
  private sequence: number;
  private readonly fetch: typeof fetch;

  constructor(private readonly o: DeviceOptions) {
    this.buffer = new ReadingBuffer(o.bufferLimit ?? 10_000);
    this.sequence = o.lastSequence ?? 0;
    this.fetch = o.fetch ?? globalThis.fetch.bind(globalThis);
  }

  /** The last notice sequence handed over; keep it to resume after a restart. */
  get lastSequence(): number {
    return this.sequence;
  }

  get connected(): boolean {
    return this.open;
  }

  /** Readings not yet receipted, and how many the full buffer let go. */
  get backlog(): { readings: number; dropped: number } {
    return { readings: this.buffer.size, dropped: this.buffer.dropped };
  }

  on<E extends keyof DeviceEvents>(event: E, fn: DeviceEvents[E]): () => void {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    set.add(fn as (...args: never[]) => void);
    return () => set!.delete(fn as (...args: never[]) => void);
  }

  private emit<E extends keyof DeviceEvents>(event: E, ...args: Parameters<DeviceEvents[E]>): void {
    for (const fn of this.listeners.get(event) ?? []) (fn as (...a: Parameters<DeviceEvents[E]>) => void)(...args);
  }

  start(): void {
    if (this.stopped) throw new DeviceStoppedError('stopped', 'This device was stopped; make another.');
    if (!this.socket) this.connect();
  }

  /** Stops for good: the socket closes, nothing is sent again, unanswered calls fail. */
  stop(error?: DeviceStoppedError): void {
    if (this.stopped) return;
    this.stopped = true;
    clearTimeout(this.timer);
    const socket = this.socket;
    this.socket = undefined;
    this.open = false;
    socket?.close(1000, 'device stopped');
    this.failOutstanding(error ?? new DeviceStoppedError('stopped', 'The device was stopped.'));
    this.emit('stopped', error);
  }

  /** Takes a reading: sent at once when connected, kept in order until then. */
  record(reading: Reading): void {
    if (this.stopped) throw new DeviceStoppedError('stopped', 'This device was stopped; readings are no longer taken.');
    this.buffer.push(reading);
    this.pumpReadings();
  }

  /** Accepts an offer made to this worker (as POST /v1/allocation/offers/{id}/accept); resolves with the offer after it. */
  accept(offerId: string): Promise<Record<string, unknown>> {
    return this.control({ type: 'accept', offer_id: offerId }).then((a) => (a as { offer: Record<string, unknown> }).offer ?? (a as Record<string, unknown>));
  }

  decline(offerId: string, reason?: string): Promise<Record<string, unknown>> {
    return this.control({ type: 'decline', offer_id: offerId, ...(reason ? { reason } : {}) }).then((a) => (a as { offer: Record<string, unknown> }).offer ?? (a as Record<string, unknown>));
  }

  acknowledge(offerId: string): Promise<void> {
    return this.control({ type: 'ack', offer_id: offerId }).then(() => undefined);
  }

  /** The worker's availability (spec 4.7: only the worker's own device sets it). */
  async setAvailability(availability: 'available' | 'unavailable' | string): Promise<Record<string, unknown>> {
    const res = await this.fetch(`${this.o.baseUrl.replace(/\/+$/, '')}/v1/allocation/availability/${encodeURIComponent(this.o.workerId)}`, {
      method: 'PUT',
      headers: { 'service-api-key': this.o.credential, 'content-type': 'application/json', 'idempotency-key': globalThis.crypto.randomUUID() },
      body: JSON.stringify({ availability }),
    });
    const body = (await res.json()) as Record<string, unknown>;
    if (!res.ok) {
      const e = (body as unknown as ErrorFrame).error;
      if (res.status === 401) this.stop(new DeviceStoppedError('unauthenticated', `The device credential was refused: ${e?.message ?? 'unauthenticated'}`));
      throw new DeviceStoppedError(e?.code ?? String(res.status), e?.message ?? `HTTP ${res.status}`);
    }
    return body;
  }

  private control(frame: Record<string, unknown>): Promise<unknown> {
    if (this.stopped) return Promise.reject(new DeviceStoppedError('stopped', 'This device was stopped.'));
    return new Promise((resolve, reject) => {
      this.queue.push({ frame: encode(frame), resolve, reject, kind: 'control' });
      this.pump();
    });
  }

  private pumpReadings(): void {
    if (!this.open || this.buffer.sending) return;
    const readings = this.buffer.take(this.o.batchSize ?? 100);
    if (readings.length === 0) return;
    this.queue.push({
      frame: encode({ worker_id: this.o.workerId, readings }),
      kind: 'batch',
      resolve: (answer) => {
        this.buffer.receipted();
        this.emit('receipt', answer as Record<string, unknown>);
        this.pumpReadings();
      },
      reject: (e) => {
        this.buffer.unsent();
        const err = (e as Error & { frame?: ErrorFrame['error'] }).frame;
        if (err && !err.retryable) {
          // refused whole and not worth sending again (a malformed batch): it leaves, and the refusal is told
          this.buffer.take(this.o.batchSize ?? 100);
          this.buffer.receipted();
        }
        if (err) this.emit('refused', err);
        if (err?.retryable) this.timer ??= setTimeout(() => {
          this.timer = undefined;
          this.pumpReadings();
        }, RETRY_BATCH_MS);
      },
    });
    this.pump();
  }

  private pump(): void {
    if (!this.open || this.current || !this.socket) return;
    const next = this.queue.shift();
    if (!next) return;
    this.current = next;
    this.socket.send(next.frame);
  }

  private connect(): void {
    const ws = this.o.baseUrl.replace(/^http/, 'ws').replace(/\/+$/, '');
    const socket = this.o.webSocket(`${ws}/v1/allocation/heartbeats/stream`, { 'service-api-key': this.o.credential });
    socket.binaryType = 'arraybuffer';
    this.socket = socket;
    let opened = false;
    const openTimer = setTimeout(() => socket.close(), OPEN_TIMEOUT_MS);
    socket.onopen = () => {
      clearTimeout(openTimer);
      opened = true;
      this.open = true;
      this.attempts = 0;
      this.emit('connected');
      // the subscription goes first, so notices missed while away arrive before anything new
      this.queue.unshift({ frame: encode({ type: 'subscribe', after_sequence: this.sequence }), kind: 'subscribe', resolve: () => {}, reject: () => {} });
      this.pump();
      this.pumpReadings();
    };
    socket.onmessage = (ev) => this.received(ev.data);
    socket.onerror = () => {};
    socket.onclose = (ev) => {
      clearTimeout(openTimer);
      if (this.socket !== socket) return;
      this.socket = undefined;
      this.open = false;
      if (this.current) this.queue.unshift(this.current);
      this.current = undefined;
      // a batch in flight goes back to the buffer; control frames wait for the next connection
      // (and a subscription is asked for again on the next one, from the sequence held then)
      const batch = this.queue.findIndex((q) => q.kind === 'batch');
      if (batch >= 0) this.queue.splice(batch, 1)[0].reject(new Error('connection lost'));
      this.queue.splice(0, this.queue.length, ...this.queue.filter((q) => q.kind === 'control'));
      this.emit('disconnected', ev.code, ev.reason);
      if (this.stopped) return;
      if (!opened) void this.checkCredential();
      else this.schedule();
    };
  }

  /** A refused or failed upgrade: is the credential still good? 401 stops the device; anything else retries. */
  private async checkCredential(): Promise<void> {
    try {
      const res = await this.fetch(`${this.o.baseUrl.replace(/\/+$/, '')}/v1/allocation/availability/${encodeURIComponent(this.o.workerId)}`, { headers: { 'service-api-key': this.o.credential } });
      await res.arrayBuffer();
      if (res.status === 401) return this.stop(new DeviceStoppedError('unauthenticated', 'The device credential is revoked or unknown (the platform answered 401); issue the worker a new one.'));
    } catch {
      /* no answer at all: offline, try again later */
    }
    if (!this.stopped) this.schedule();
  }

  private schedule(): void {
    const base = this.o.reconnect?.baseMs ?? 500;
    const ceiling = Math.min(base * 2 ** this.attempts++, this.o.reconnect?.maxMs ?? 30_000);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (!this.stopped && !this.socket) this.connect();
    }, ceiling / 2 + Math.random() * (ceiling / 2));
  }

  private received(data: unknown): void {
    let frame: unknown;
    try {
      frame = decode(data as ArrayBuffer | string);
    } catch {
      return; // not a frame of this protocol: ignored
    }
    if (isPushed(frame)) return this.pushed(frame);
    const answered = this.current;
    this.current = undefined;
    if (answered) {
      if (isErrorFrame(frame)) {
        if (frame.error.code === 'unauthenticated') this.stop(new DeviceStoppedError('unauthenticated', `The device credential was refused: ${frame.error.message}`));
        answered.reject(Object.assign(new DeviceStoppedError(frame.error.code, frame.error.message), { frame: frame.error }));
      } else answered.resolve(frame);
    }
    this.pump();
  }

  private pushed(frame: Pushed): void {
    if (frame.type === 'unsubscribed') {
      return this.stop(new DeviceStoppedError(frame.reason === 'device_credential_revoked' ? 'unauthenticated' : frame.reason, `The platform ended the subscription: ${frame.reason}`));
    }
    if (frame.type === 'notices_truncated') {
      this.sequence = Math.max(this.sequence, frame.oldest_sequence - 1);
      return this.emit('truncated', frame.oldest_sequence);
    }
    const notice = frame as Notice;
    if (notice.sequence <= this.sequence) return; // already handed over
    this.sequence = notice.sequence;
    this.emit('notice', notice);
    if (notice.type === 'offer.made' && notice.offer && this.o.autoAcknowledge !== false) void this.acknowledge(notice.offer.id).catch(() => {});
  }

  private failOutstanding(e: Error): void {
    const all = [...(this.current ? [this.current] : []), ...this.queue.splice(0)];
    this.current = undefined;
    for (const q of all) q.reject(e);
  }
}
