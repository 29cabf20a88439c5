/**
 * The load tool's devices as phones: each simulated device on a socket of its own runs the
 * platform's device library (clients/device) with its worker's device credential, as a field
 * worker's phone does, and the tool times each batch from when its first reading was due to its
 * receipt. Devices sharing sockets are an organisation's relay instead (devices.ts DeviceSocket,
 * with the organisation's key): a phone never carries another worker's readings.
 */
import WebSocket from 'ws';
import { Device, type WebSocketLike } from '../clients/device/src/index.ts';
import type { Metrics } from './metrics.ts';

/**
 * The device library's WebSocket over the `ws` package's own events: its `onmessage` property
 * wraps every message in an event object, a cost a thousand phones on one core feel.
 */
function socketOf(url: string, headers: Record<string, string>): WebSocketLike {
  const ws = new WebSocket(url, { headers, perMessageDeflate: false });
  const like: WebSocketLike = {
    binaryType: 'nodebuffer',
    send: (data) => ws.send(data),
    close: (code, reason) => ws.close(code, reason),
    onopen: null,
    onmessage: null,
    onclose: null,
    onerror: null,
  };
  ws.on('open', () => like.onopen?.(undefined));
  ws.on('message', (data: Buffer) => like.onmessage?.({ data }));
  ws.on('close', (code: number, reason: Buffer) => like.onclose?.({ code, reason: reason.toString() }));
  ws.on('error', (e) => like.onerror?.(e));
  return like;
}

export class Phone {
  private readonly device: Device;
  /** When each reading not yet receipted was due, oldest first. */
  private readonly dues: number[] = [];
  private opened: (() => void) | undefined;

  constructor(baseUrl: string, credential: string, workerId: string, private readonly metrics: Metrics) {
    this.device = new Device({
      baseUrl,
      credential,
      workerId,
      webSocket: socketOf,
      // a frame is one interval's reading, as on the relay sockets, so the two are compared frame for
      // frame (npm run bench -- devices); a phone behind sends its backlog one reading a frame
      batchSize: 1,
      autoAcknowledge: false,
    });
    this.device.on('connected', () => this.opened?.());
    this.device.on('receipt', (r) => {
      const n = (r.accepted_count as number) + (r.rejected_count as number);
      const batch = this.dues.splice(0, n);
      this.metrics.record('heartbeat frame', batch[0] ?? performance.now());
      this.metrics.add('readings accepted (receipts)', r.accepted_count as number);
      for (const x of (r.rejections as { reason: string }[] | undefined) ?? []) this.metrics.add(`rejected: ${x.reason}`);
    });
    this.device.on('refused', (e) => {
      this.metrics.record('heartbeat frame', this.dues[0] ?? performance.now(), e.code);
      if (!e.retryable) this.metrics.add('readings refused with the frame', this.dues.length);
    });
  }

  connect(): Promise<void> {
    return new Promise((resolve) => {
      const started = performance.now();
      this.opened = () => {
        this.opened = undefined;
        this.metrics.record('ws connect', started);
        resolve();
      };
      this.device.start();
    });
  }

  get pending(): number {
    return this.device.backlog.readings;
  }

  send(_workerId: string, readings: Record<string, unknown>[], dueAt: number): void {
    for (const r of readings) {
      this.dues.push(dueAt);
      this.device.record(r as Parameters<Device['record']>[0]);
    }
    this.metrics.add('readings sent', readings.length);
  }

  close(): void {
    this.device.stop();
  }
}
