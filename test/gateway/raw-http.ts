/**
 * A raw HTTP/1.1 connection over node:net for transport tests: the test writes the exact bytes of
 * a request (well-formed or not) and sees exactly what the server writes back, response by
 * response, and how the connection ends (the server's FIN, or a reset).
 */
import { connect, type Socket } from 'node:net';

export interface RawResponse {
  status: number;
  /** By lower-case name. */
  headers: Record<string, string>;
  body: string;
}

/** How a connection ended: `fin` when the server closed it in order, else the socket error code. */
export type Ending = 'fin' | string;

export class RawConnection {
  /** Every byte received so far, as latin1 text. */
  received = '';
  /** Resolves once the connection has ended, with how. */
  readonly ended: Promise<Ending>;
  private parsed = 0;
  private wake: (() => void) | undefined;
  private over = false;

  private constructor(private readonly socket: Socket) {
    this.ended = new Promise((resolve) => {
      let how: Ending | undefined;
      socket.on('data', (d: Buffer) => {
        this.received += d.toString('latin1');
        this.wake?.();
      });
      socket.on('end', () => (how ??= 'fin'));
      socket.on('error', (e: NodeJS.ErrnoException) => (how ??= e.code ?? 'error'));
      socket.on('close', () => {
        this.over = true;
        this.wake?.();
        resolve(how ?? 'fin');
      });
    });
  }

  static open(port: number): Promise<RawConnection> {
    return new Promise((resolve, reject) => {
      const s = connect(port, '127.0.0.1');
      s.once('connect', () => resolve(new RawConnection(s)));
      s.once('error', reject);
    });
  }

  send(bytes: string): void {
    this.socket.write(bytes, 'latin1');
  }

  /** The next whole response (framed by Content-Length), or undefined if the connection ends first. */
  async next(): Promise<RawResponse | undefined> {
    for (;;) {
      const r = this.take();
      if (r) return r;
      if (this.over) return undefined;
      await new Promise<void>((w) => (this.wake = w));
      this.wake = undefined;
    }
  }

  destroy(): void {
    this.socket.destroy();
  }

  private take(): RawResponse | undefined {
    const text = this.received.slice(this.parsed);
    const end = text.indexOf('\r\n\r\n');
    if (end < 0) return undefined;
    const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
    const headers: Record<string, string> = {};
    for (const l of lines) {
      const i = l.indexOf(':');
      headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
    }
    const length = Number(headers['content-length'] ?? 0);
    if (text.length < end + 4 + length) return undefined;
    this.parsed += end + 4 + length;
    return { status: Number(statusLine.split(' ')[1]), headers, body: Buffer.from(text.slice(end + 4, end + 4 + length), 'latin1').toString('utf8') };
  }
}

/** A GET in the form a plain HTTP/1.1 client writes it. */
export const get = (path: string) => `GET ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n`;
