/**
 * The transport, in one file (STYLE: "The transport's rules live in one file"). The platform's only
 * importer of uWebSockets.js (the bench's baseline, support/bare-server.ts, is the other). Its
 * rules:
 * - method, URL, query and headers are copied out of the stack-allocated HttpRequest before the
 *   first await (uWS frees it when the callback returns);
 * - every HttpResponse gets onAborted before anything asynchronous, and nothing is written to an
 *   aborted one;
 * - every write after an await is wrapped in cork(), so status, headers and body leave in one send;
 * - the body is copied chunk by chunk (uWS neuters each ArrayBuffer after onData returns) and
 *   capped: a declared or streamed length over the cap is answered at once (413), and so is a
 *   Transfer-Encoding other than chunked (400), each closing the connection;
 * - a request read whole is handed to the pipeline with the others of its I/O phase, right after
 *   the phase (batch.ts), and executed even if its client goes;
 * - a request counts in flight from its head on; close() stops listening, answers every request
 *   on every open connection from then on with Connection: close (so a keep-alive client learns it
 *   before it sends another), tells WebSockets 1001, and drops connections only when none is
 *   open or in flight any more, or the grace period ends (docs/gaps.md#gateway);
 * - a WebSocket reply may carry a close: it leaves as a close frame with a code and a reason;
 * - an early refusal (a credential over its budget) may be held a moment with its connection's
 *   reading paused (holds.ts), so a flood waits on its own connections, not on everyone's loop.
 * What to answer is decided elsewhere (pipeline.ts, sockets.ts); this file only moves bytes.
 */
import { createRequire } from 'node:module';
import type * as UWS from 'uWebSockets.js';
import { logOf, newId } from '../kernel/index.ts';
import { PhaseBatch } from './batch.ts';
import { errorResponse } from './error-response.ts';
import { withAddress } from './address.ts';
import { statusLine } from './status-line.ts';
import { drained } from './connections.ts';
import { Holds } from './holds.ts';
import type { EarlyAnswer, EarlyReason, EarlyRefusal, SocketReply, SocketRoute, WireRequest, WireResponse } from './wire.ts';

const require = createRequire(import.meta.url);

/**
 * Loads the native build and refuses to run on the package's Node.js fallback (which the fork
 * switches to silently when no binary matches this Node ABI): the platform's throughput figures
 * assume the native server.
 */
function loadNative(): typeof UWS {
  if (/^(1|true)$/i.test(process.env.UWS_USE_FALLBACK ?? '')) {
    throw new Error('uWebSockets.js: UWS_USE_FALLBACK is set; the gateway runs only on the native build');
  }
  let mod: typeof UWS;
  try {
    mod = require('uWebSockets.js') as typeof UWS;
  } catch (e) {
    throw new Error(`uWebSockets.js could not be loaded: ${(e as Error).message}`);
  }
  let fallback: unknown;
  try {
    fallback = require('uWebSockets.js/dist/index');
  } catch {
    fallback = undefined;
  }
  const native = mod !== fallback && typeof (mod as unknown as { getParts?: unknown }).getParts === 'function';
  if (!native) {
    throw new Error(
      `uWebSockets.js: the native build for ${process.platform}-${process.arch} ABI ${process.versions.modules} did not load ` +
        '(the package fell back to its Node.js implementation); refusing to start',
    );
  }
  return mod;
}

const uws = loadNative();

export interface ServeOptions {
  host: string;
  port: number;
  maxBodyBytes: number;
  /** Lower-case names of the request headers `handle` and the sockets read; no other is copied. */
  headers: readonly string[];
  /** Further headers read only on requests that may carry a body or move state (not GET or HEAD). */
  bodyHeaders: readonly string[];
  handle(req: WireRequest): Promise<WireResponse>;
  refuse: EarlyRefusal;
  /** An answer from the head alone, before the request is read or handed over (a credential over its budget). */
  early?(head: Omit<WireRequest, 'body'>): EarlyAnswer | undefined;
  sockets: SocketRoute[];
}

export interface Served {
  port: number;
  /** The transport's own tallies, read at a metrics scrape (gateway/index.ts). */
  stats(): TransportStats;
  /** Graceful stop (see the rules above); `graceMs` defaults to DEFAULT_CLOSE_GRACE_MS. */
  close(graceMs?: number): Promise<void>;
}


export interface TransportStats {
  sockets: number;
  /** WebSocket frames read since start, admitted or refused. */
  frames: number;
  /** Early refusals being held now (holds.ts). */
  held: number;
}

/** Headers the transport reads itself on requests that may carry a body (the cap, chunked bodies). */
const BODY_HEADERS = ['content-length', 'transfer-encoding'];

/** The lower-case header names to copy: for GET and HEAD, and for every other method. */
interface HeaderNames {
  bodiless: readonly string[];
  any: readonly string[];
}

/**
 * Copies the request out of uWS. Only the named headers are copied, each by one getHeader call:
 * cheaper than forEach, which calls back into JavaScript once per header the client sent.
 */
function copyRequest(req: UWS.HttpRequest, names: HeaderNames): Omit<WireRequest, 'body'> {
  const method = req.getCaseSensitiveMethod().toUpperCase();
  const list = method === 'GET' || method === 'HEAD' ? names.bodiless : names.any;
  const headers: Record<string, string> = {};
  for (let i = 0; i < list.length; i++) {
    const v = req.getHeader(list[i]);
    if (v !== '') headers[list[i]] = v;
  }
  return { method, path: req.getUrl(), query: req.getQuery() ?? '', headers };
}

function write(res: UWS.HttpResponse, out: WireResponse, closeConnection = false): void {
  if (out.status !== 200) res.writeStatus(statusLine(out.status)); // uWS writes 200 OK when none is set
  for (const k in out.headers) res.writeHeader(k, out.headers[k]);
  if (out.headOnly) res.endWithoutBody(typeof out.body === 'string' ? Buffer.byteLength(out.body) : out.body.byteLength, closeConnection);
  else res.end(out.body, closeConnection);
}

const EMPTY = Buffer.alloc(0);

/**
 * How long close() waits for open connections to finish before it drops them: at least as long as
 * uWS keeps an idle HTTP connection (its idle timeout is checked on a coarse timer, so a connection
 * may outlive the timeout by one tick), so a keep-alive connection idle when close() began has
 * ended by itself by then unless its client used it, and was then told Connection: close
 * (docs/gaps.md#gateway).
 */
export const DEFAULT_CLOSE_GRACE_MS = 12_000;
/**
 * uWS drops a connection whose frame is longer than its maxPayloadLength at the frame's header,
 * with no close frame. It is set this many times the socket's own limit, so a frame a little over
 * the limit is read to its header and closed with 1009 and a reason (sockets.ts); only one far over
 * it is dropped bare (docs/gaps.md#gateway). It also bounds what uWS buffers per connection.
 */
const NATIVE_FRAME_FACTOR = 4;
/** Unsent bytes past which a pushed frame is dropped (its sender told): below uWS's own limit (maxBackpressure, 64 KiB), which drops silently. */
const PUSH_BUFFER_MAX = 32 * 1024;
/** RFC 6455 7.4.1: the server is going away. */
const CLOSE_GOING_AWAY = 1001;

/** One WebSocket connection, as the transport keeps it (uWS user data). */
interface Conn {
  session: unknown;
  /** False once closed or closing: nothing more is sent. */
  open: boolean;
  /** Frames being handled: a going-away close waits for their replies. */
  pending: number;
}

/** What every exchange of one server shares. */
interface ServerState {
  readonly opts: ServeOptions;
  /**
   * Requests from the moment their head is read until they are answered (or their client left
   * before their body arrived), upgrades being authenticated, and frames being handled: close()
   * waits for every one.
   */
  inflight: number;
  /** Requests read in one I/O phase, handed to the pipeline together after it (batch.ts). */
  readonly batch: PhaseBatch<Exchange>;
  /** Set when close() begins: from then on every answer closes its connection (Connection: close). */
  closing: boolean;
  readonly websockets: Set<UWS.WebSocket<Conn>>;
  /** Early refusals being held, their connections' reading paused (holds.ts). */
  readonly holds: Holds;
  frames: number;
}

/**
 * One request/response exchange. A class rather than per-request closures: the hot path allocates
 * one object, and its methods are shared.
 */
class Exchange {
  /** Set when the client went away or an answer was written: nothing more is written. */
  answered = false;
  /** reading: its body is arriving; running: handed to the pipeline; settled: no longer in flight. */
  private phase: 'reading' | 'running' | 'settled' = 'reading';
  private chunks: Buffer[] | undefined;
  private size = 0;
  private body: Buffer = EMPTY;

  constructor(
    private readonly res: UWS.HttpResponse,
    readonly head: Omit<WireRequest, 'body'>,
    private readonly server: ServerState,
  ) {
    server.inflight++;
  }

  /** The client went away: a request whose body had not all arrived is dropped; one running goes on. */
  aborted(): void {
    this.answered = true;
    if (this.phase === 'reading') this.settle();
  }

  /** The request is whole: it runs with its batch, and is executed even if its client goes. */
  run(body: Buffer): void {
    this.phase = 'running';
    this.body = body;
    this.server.batch.push(this);
  }

  /** Called by the batch. */
  start(): void {
    const { head, body } = this;
    this.body = EMPTY;
    let answer: Promise<WireResponse>;
    try {
      answer = this.server.opts.handle({ method: head.method, path: head.path, query: head.query, headers: head.headers, body, address: head.address });
    } catch (e) {
      answer = Promise.reject(e);
    }
    answer.then(
      (out) => this.respond(out),
      (e) => this.respond(errorResponse(e, newId('req_'))), // handle() maps its own errors; this is a last resort
    );
  }

  /** Copies each chunk (uWS neuters its ArrayBuffer when onData returns) and applies the cap. */
  chunk(chunk: ArrayBuffer, isLast: boolean): void {
    if (this.answered) return;
    this.size += chunk.byteLength;
    if (this.size > this.server.opts.maxBodyBytes) {
      this.chunks = undefined;
      this.refuse('payload_too_large');
      return;
    }
    const copy = Buffer.from(new Uint8Array(chunk));
    if (isLast && this.chunks === undefined) return this.run(copy);
    (this.chunks ??= []).push(copy);
    if (isLast) this.run(Buffer.concat(this.chunks, this.size));
  }

  /** Answers without reading the request further, and closes the connection (its bytes are not all read). */
  refuse(reason: EarlyReason): void {
    this.answer(this.server.opts.refuse(this.head, reason), true);
  }

  respond(out: WireResponse): void {
    this.answer(out, this.server.closing);
  }

  /** An early refusal: held a moment with its connection's reading paused (holds.ts), unless closing or too many are held. */
  hold(e: EarlyAnswer): void {
    if (this.server.closing || !this.server.holds.hold(e.holdMs, this.res, () => this.respond(e.response))) this.respond(e.response);
  }

  private answer(out: WireResponse, closeConnection: boolean): void {
    if (!this.answered) {
      this.answered = true; // one answer per response
      try {
        this.res.cork(() => write(this.res, out, closeConnection));
      } catch {
        // the connection was closed under us (the grace period ended) without an abort callback
      }
    }
    this.settle();
  }

  private settle(): void {
    if (this.phase === 'settled') return;
    this.phase = 'settled';
    this.server.inflight--;
  }
}

/**
 * Sends a frame's reply, then its close when it has one; nothing once the connection is closing.
 * The close is not corked: uWS may leave a close frame ended inside ws.cork() on a timer's turn
 * unsent until something else wakes the socket.
 */
function reply(ws: UWS.WebSocket<Conn>, conn: Conn, r: SocketReply): void {
  if (!conn.open) return;
  try {
    if (r.frame) ws.cork(() => ws.send(r.frame!.data, r.frame!.binary));
    if (r.close) {
      conn.open = false; // no further frame is read or answered
      ws.end(r.close.code, r.close.reason);
    }
  } catch {
    conn.open = false; // closed while the reply was computed
  }
}

/** Closes a WebSocket with 1001 once no frame of it is being handled. */
function goAway(ws: UWS.WebSocket<Conn>, conn: Conn): void {
  if (conn.pending === 0) reply(ws, conn, { close: { code: CLOSE_GOING_AWAY, reason: 'The server is shutting down; reconnect.' } });
}

export function serve(opts: ServeOptions): Promise<Served> {
  const app = uws.App();
  const server: ServerState = {
    opts,
    inflight: 0,
    batch: new PhaseBatch<Exchange>(
      (ex) => ex.start(),
      (e) => logOf('gateway').error('a request could not be started', e),
    ),
    closing: false,
    websockets: new Set(),
    holds: new Holds(),
    frames: 0,
  };
  const names = headerNames(opts);
  for (const s of opts.sockets) mountSocket(app, server, names, s);
  app.any('/*', (res, req) => acceptRequest(server, names, res, req));
  return listen(app, server);
}

/** The header names to copy, lower-cased and deduplicated once per server rather than per request. */
function headerNames(opts: ServeOptions): HeaderNames {
  const lower = (hs: readonly string[]) => hs.map((h) => h.toLowerCase());
  const bodiless = [...new Set(lower(opts.headers))];
  return { bodiless, any: [...new Set([...bodiless, ...lower(opts.bodyHeaders), ...BODY_HEADERS])] };
}

/**
 * A request's head: refused at once when its body cannot be read or is declared over the cap, run
 * at once when it has no body, otherwise read chunk by chunk.
 */
function acceptRequest(server: ServerState, names: HeaderNames, res: UWS.HttpResponse, req: UWS.HttpRequest): void {
  const ex = new Exchange(res, withAddress(res, copyRequest(req, names)), server);
  res.onAborted(() => ex.aborted());
  const { method, headers } = ex.head;
  const coding = headers['transfer-encoding'];
  // uWS reads any Transfer-Encoding as chunked: another would hang until its idle timeout
  if (coding !== undefined && coding.trim().toLowerCase() !== 'chunked') return ex.refuse('transfer_encoding');
  const declared = headers['content-length'];
  if (declared !== undefined && Number(declared) > server.opts.maxBodyBytes) return ex.refuse('payload_too_large');
  const bodiless = method === 'GET' || method === 'HEAD' || (declared === '0' && coding === undefined);
  const early = server.opts.early?.(ex.head);
  if (early && bodiless) return ex.hold(early);
  if (early) return void res.onData((_, isLast) => isLast && ex.hold(early)); // its body read, unkept
  if (bodiless) return ex.run(EMPTY);
  res.onData((chunk, isLast) => ex.chunk(chunk, isLast));
}

/** One WebSocket route: its connections are tracked so close() can tell each of them 1001. */
function mountSocket(app: UWS.TemplatedApp, server: ServerState, names: HeaderNames, s: SocketRoute): void {
  app.ws<Conn>(s.path, {
    maxPayloadLength: s.maxFrameBytes * NATIVE_FRAME_FACTOR,
    idleTimeout: 120,
    sendPingsAutomatically: true,
    upgrade: (res, req, context) => upgradeSocket(server, names, s, res, req, context),
    open: (ws) => {
      server.websockets.add(ws);
      const conn = ws.getUserData(); // a frame pushed unprompted (SocketRoute.opened); false when not sent
      s.opened?.(conn.session, (data, binary) => conn.open && ws.getBufferedAmount() <= PUSH_BUFFER_MAX && (reply(ws, conn, { frame: { data, binary } }), conn.open));
      if (server.closing) goAway(ws, ws.getUserData()); // upgraded while close() began
    },
    message: (ws, message, isBinary) => handleFrame(server, s, ws, message, isBinary),
    close: (ws) => {
      ws.getUserData().open = false;
      server.websockets.delete(ws);
      s.closed?.(ws.getUserData().session);
    },
  });
}

/** Authenticates an upgrade (in flight meanwhile), then upgrades it or answers the refusal and closes. */
function upgradeSocket(server: ServerState, names: HeaderNames, s: SocketRoute, res: UWS.HttpResponse, req: UWS.HttpRequest, context: UWS.us_socket_context_t): void {
  const head = copyRequest(req, names);
  const key = req.getHeader('sec-websocket-key');
  const protocol = req.getHeader('sec-websocket-protocol');
  const extensions = req.getHeader('sec-websocket-extensions');
  let aborted = false;
  res.onAborted(() => {
    aborted = true;
  });
  server.inflight++;
  const settle = (send: () => void) => {
    server.inflight--;
    if (aborted) return;
    try {
      res.cork(send);
    } catch {
      // closed under us (the grace period ended)
    }
  };
  s.authenticate(head).then(
    (r) => settle(() => (r.ok ? res.upgrade<Conn>({ session: r.session, open: true, pending: 0 }, key, protocol, extensions, context) : write(res, r.response, true))),
    (e) => settle(() => write(res, errorResponse(e, newId('req_')), true)),
  );
}

/** A frame is admitted (or refused) at once, copied (uWS neuters its buffer on return), then handled in flight. */
function handleFrame(server: ServerState, s: SocketRoute, ws: UWS.WebSocket<Conn>, message: ArrayBuffer, isBinary: boolean): void {
  const conn = ws.getUserData();
  server.frames++;
  if (!conn.open) return;
  const refusal = s.admit(conn.session, message.byteLength, isBinary);
  if (refusal) return reply(ws, conn, refusal);
  const frame = new Uint8Array(message.byteLength);
  frame.set(new Uint8Array(message));
  conn.pending++;
  server.inflight++;
  void s.message(conn.session, frame, isBinary).then((r) => {
    conn.pending--;
    server.inflight--;
    reply(ws, conn, r);
    if (server.closing) goAway(ws, conn);
  });
}

function listen(app: UWS.TemplatedApp, server: ServerState): Promise<Served> {
  const { host, port } = server.opts;
  return new Promise((resolve, reject) => {
    app.listen(host, port, (listenSocket) => {
      if (!listenSocket) {
        reject(new Error(`gateway: could not listen on ${host}:${port}`));
        return;
      }
      const bound = uws.us_socket_local_port(listenSocket as unknown as UWS.us_socket);
      let closed: Promise<void> | undefined;
      resolve({
        port: bound,
        stats: () => ({ sockets: server.websockets.size, frames: server.frames, held: server.holds.size }),
        close(graceMs = DEFAULT_CLOSE_GRACE_MS) {
          closed ??= closeServer(app, server, listenSocket, bound, graceMs);
          return closed;
        },
      });
    });
  });
}

/** The graceful stop of the rules above; a second close() gets the first one's promise. */
async function closeServer(app: UWS.TemplatedApp, server: ServerState, listenSocket: UWS.us_listen_socket, port: number, graceMs: number): Promise<void> {
  server.closing = true;
  uws.us_listen_socket_close(listenSocket); // no new connections
  for (const ws of server.websockets) goAway(ws, ws.getUserData());
  server.holds.releaseAll(); // held refusals are answered now, with Connection: close
  await drained(() => server.inflight, () => server.websockets.size, port, graceMs); // every request on every open connection is answered
  (app as unknown as { close(): void }).close(); // drops what the grace period did not see finish (the typings omit it)
}
