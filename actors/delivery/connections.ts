/**
 * Keep-alive connections for webhook POSTs, and one request/response exchange over them (RFC 9112).
 *
 * Written for this one job rather than node:http's agent: a webhook attempt is a POST of bytes
 * already built, judged on the status line alone, so per attempt this costs one buffer, one
 * write and a small state machine (response-reader.ts), where node:http builds a ClientRequest, an
 * IncomingMessage and their streams (the largest single share of a delivery's CPU in the delivery
 * bench's profile).
 *
 * - Connections are pooled per origin (scheme, host, port) and per address policy (the caller's
 *   pool key), and reused once the previous response's body has been read; the most recently used
 *   goes first, and one idle longer than IDLE_MS is closed (servers commonly close idle keep-alive
 *   connections after 5 s: node:http's keepAliveTimeout).
 * - A reused connection that the server closed before answering anything (the keep-alive race: it
 *   timed the connection out as the request left) is retried once on a new connection. Receivers
 *   take events at least once and deduplicate by event id (spec 6), so a repeat is harmless.
 * - https verifies the receiver's certificate against the host name (node:tls defaults).
 * - An idle connection does not keep the process alive.
 */
import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect, type SecureContextOptions } from 'node:tls';
import { ResponseError, ResponseReader } from './response-reader.ts';

/** An idle connection older than this is closed rather than reused. */
export const IDLE_MS = 4_000;
/** Idle connections kept per origin and pool; more are closed when they come back. */
export const MAX_IDLE_PER_ORIGIN = 256;
/**
 * How long the rest of an answer's body may take once its status is in (the attempt is already
 * judged): a receiver that stops sending mid-body has its connection closed, not kept forever.
 */
export const DRAIN_MS = 5_000;

export interface Origin {
  secure: boolean;
  /** A host name, or an IP literal (IPv6 without brackets). */
  host: string;
  /** Whether `host` is an IP literal: no SNI. */
  literal: boolean;
  port: number;
  /** The checked address to connect to (resolve.ts); `host` names it for SNI and the certificate. */
  address: string;
}

export interface ExchangeOptions {
  /** Keeps connections made under different address policies apart. */
  pool: string;
  /** Extra trust anchors for https (tests); the system's otherwise. */
  ca?: SecureContextOptions['ca'];
  /** DRAIN_MS unless given (tests). */
  drainMs?: number;
}

/** Told the outcome of one exchange, once: the status, or the error that ended it (node's errno codes where it has them). */
export interface Answer {
  answer(err: NodeJS.ErrnoException | null, status: number): void;
}

interface Conn {
  socket: Socket;
  key: string;
  /** When it went back to the pool. */
  idleSince: number;
  /** The exchange it is carrying, if any. */
  current: Exchange | null;
  /** Whether it has carried a request before the current one. */
  reused: boolean;
}

const pools = new Map<string, Conn[]>();
let sweeper: NodeJS.Timeout | undefined;
/** Connections open now, carrying an attempt or idle in a pool (the metrics read it). */
let open_ = 0;

/** Outbound webhook connections open in this process. */
export const openConnections = (): number => open_;

/** Sends `request` (a whole HTTP/1.1 request) to `origin` and tells `to` its status or an error; its abandon() gives it up (the caller's time limit). */
export function exchange(origin: Origin, request: Buffer, opts: ExchangeOptions, to: Answer): { abandon(): void } {
  // The address is part of the key: a connection is reused only for the address it was opened to.
  const key = `${opts.pool}|${origin.secure ? 's' : 'p'}|${origin.host}|${origin.address}|${origin.port}`;
  const x = new Exchange(origin, request, opts, key, to);
  x.start(take(key));
  return x;
}

/** Closes every idle connection (tests; a stopping process). */
export function closeIdleConnections(): void {
  for (const list of pools.values()) for (const c of list) c.socket.destroy();
  pools.clear();
}

function take(key: string): Conn | null {
  const list = pools.get(key);
  if (!list) return null;
  const now = Date.now();
  while (list.length > 0) {
    const c = list.pop()!;
    if (now - c.idleSince < IDLE_MS && !c.socket.destroyed) return c;
    c.socket.destroy();
  }
  return null;
}

function release(c: Conn): void {
  c.current = null;
  let list = pools.get(c.key);
  if (!list) pools.set(c.key, (list = []));
  if (list.length >= MAX_IDLE_PER_ORIGIN) return void c.socket.destroy();
  c.idleSince = Date.now();
  c.reused = true;
  c.socket.unref();
  list.push(c);
  sweeper ??= setInterval(sweep, IDLE_MS).unref();
}

/** Closes connections idle past IDLE_MS, so a quiet origin's sockets do not linger. */
function sweep(): void {
  const now = Date.now();
  for (const [key, list] of pools) {
    const keep: Conn[] = [];
    for (const c of list) {
      if (now - c.idleSince < IDLE_MS && !c.socket.destroyed) keep.push(c);
      else c.socket.destroy();
    }
    if (keep.length) pools.set(key, keep);
    else pools.delete(key);
  }
  if (pools.size === 0 && sweeper) {
    clearInterval(sweeper);
    sweeper = undefined;
  }
}

/** Leaves the pool list without closing (it closed, or is being taken out of service). */
function forget(c: Conn): void {
  const list = pools.get(c.key);
  const i = list ? list.indexOf(c) : -1;
  if (i >= 0) list!.splice(i, 1);
}

function open(origin: Origin, opts: ExchangeOptions, key: string): Conn {
  const socket = origin.secure
    ? tlsConnect({ host: origin.address, port: origin.port, servername: origin.literal ? undefined : origin.host, ALPNProtocols: ['http/1.1'], ca: opts.ca })
    : netConnect({ host: origin.address, port: origin.port });
  socket.setNoDelay(true);
  open_++;
  const c: Conn = { socket, key, idleSince: 0, current: null, reused: false };
  socket.on('data', (chunk: Buffer) => (c.current ? c.current.data(chunk) : (forget(c), socket.destroy())));
  socket.on('end', () => (c.current ? c.current.ended() : (forget(c), socket.destroy())));
  socket.on('error', (err: NodeJS.ErrnoException) => c.current?.failed(err));
  socket.on('timeout', () => c.current?.drainTimedOut());
  socket.on('close', () => {
    open_--;
    forget(c);
    c.current?.failed(Object.assign(new Error('the connection closed'), { code: 'ECONNRESET' }));
  });
  return c;
}

/** One request and its response, possibly over a second connection (the keep-alive race). */
class Exchange {
  private conn: Conn | null = null;
  private reader = new ResponseReader();
  private answered = false;
  private finished = false;
  private sawBytes = false;
  /** The status is in and the body is still coming, under DRAIN_MS. */
  private draining = false;

  constructor(
    private readonly origin: Origin,
    private readonly request: Buffer,
    private readonly opts: ExchangeOptions,
    private readonly key: string,
    private readonly to: Answer,
  ) {}

  start(pooled: Conn | null): void {
    const c = pooled ?? open(this.origin, this.opts, this.key);
    this.conn = c;
    c.current = this;
    c.socket.ref();
    c.socket.write(this.request);
  }

  data(chunk: Buffer): void {
    this.sawBytes = true;
    try {
      this.reader.push(chunk);
    } catch (e) {
      return this.failed(e as ResponseError);
    }
    const head = this.reader.head;
    if (head && !this.answered) {
      this.answered = true;
      this.to.answer(null, head.status);
    }
    if (this.reader.overlong) return this.close();
    if (this.reader.done) {
      if (this.reader.extra || !head!.keepAlive) return this.close();
      if (this.draining) this.conn!.socket.setTimeout(0);
      this.finished = true;
      release(this.conn!);
    } else if (head && !this.draining) {
      // Rare: the body did not come with the head.
      this.draining = true;
      this.conn!.socket.setTimeout(this.opts.drainMs ?? DRAIN_MS);
    }
  }

  /** The rest of the body did not come in time: the connection is closed (the status stands). */
  drainTimedOut(): void {
    this.close();
  }

  ended(): void {
    if (!this.sawBytes) return this.failed(Object.assign(new Error('the connection closed before an answer'), { code: 'ECONNRESET' }));
    try {
      this.reader.end();
    } catch (e) {
      return this.failed(e as ResponseError);
    }
    this.close();
  }

  failed(err: NodeJS.ErrnoException): void {
    if (this.finished) return;
    const c = this.conn!;
    if (!this.answered && !this.sawBytes && c.reused && !(err instanceof ResponseError)) {
      // The keep-alive race: the server closed this idle connection as the request left. Once more,
      // on a new connection.
      this.detach();
      this.reader = new ResponseReader();
      return this.start(null);
    }
    this.close();
    if (!this.answered) {
      this.answered = true;
      this.to.answer(err, 0);
    }
  }

  /** The caller gave up (its time limit): the connection is closed, nothing more is reported. */
  abandon(): void {
    this.answered = true;
    if (!this.finished) this.close();
  }

  private close(): void {
    this.finished = true;
    this.detach();
  }

  /** Takes the connection out of service: unhooked, out of the pool, closed. */
  private detach(): void {
    const c = this.conn!;
    if (this.draining) c.socket.setTimeout(0);
    c.current = null;
    forget(c);
    c.socket.destroy();
  }
}
