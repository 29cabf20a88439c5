/**
 * The transport, in one file (STYLE: "The transport's rules live in one file"). The platform's only
 * importer of uWebSockets.js (the bench's baseline, bench/support/bare-server.ts, is the other). Its
 * rules:
 * - method, URL, query and headers are copied out of the stack-allocated HttpRequest before the
 *   first await (uWS frees it when the callback returns);
 * - every HttpResponse gets onAborted before anything asynchronous, and nothing is written to an
 *   aborted one;
 * - every write after an await is wrapped in cork(), so status, headers and body leave in one send;
 * - the body is copied chunk by chunk (uWS neuters each ArrayBuffer after onData returns) and
 *   capped: a declared or streamed length over the cap is answered at once (413);
 * - a request read whole is handed to the pipeline with the others of its I/O phase, right after
 *   the phase (batch.ts), and counted in flight from then, so a graceful close answers it.
 * What to answer is decided elsewhere (pipeline.ts); this file only moves bytes.
 */
import { createRequire } from 'node:module';
import type * as UWS from 'uWebSockets.js';
import { newId } from '../kernel/index.ts';
import { PhaseBatch } from './batch.ts';
import { errorResponse } from './error-response.ts';
import type { EarlyRefusal, SocketRoute, WireRequest, WireResponse } from './wire.ts';

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
  sockets: SocketRoute[];
}

export interface Served {
  port: number;
  close(): Promise<void>;
}

const STATUS_TEXT: Record<number, string> = {
  200: '200 OK', 201: '201 Created', 202: '202 Accepted', 204: '204 No Content',
  400: '400 Bad Request', 401: '401 Unauthorized', 403: '403 Forbidden', 404: '404 Not Found',
  405: '405 Method Not Allowed', 409: '409 Conflict', 413: '413 Payload Too Large', 415: '415 Unsupported Media Type',
  422: '422 Unprocessable Entity', 429: '429 Too Many Requests', 500: '500 Internal Server Error', 503: '503 Service Unavailable',
};
const statusLine = (s: number) => STATUS_TEXT[s] ?? String(s);

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
  res.end(out.body, closeConnection);
}

const EMPTY = Buffer.alloc(0);

/** How long close() lets requests already running finish before it drops connections. */
const CLOSE_GRACE_MS = 10_000;

/** Requests being handled: close() waits for them so a graceful stop answers every request it took. */
class InFlight {
  count = 0;
  private waiters: Array<() => void> = [];
  enter(): void {
    this.count++;
  }
  leave(): void {
    if (--this.count === 0) for (const w of this.waiters.splice(0)) w();
  }
  idle(timeoutMs: number): Promise<void> {
    if (this.count === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      this.waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}

/** What every exchange of one server shares. */
interface ServerState {
  readonly opts: ServeOptions;
  readonly inflight: InFlight;
  /** Requests read in one I/O phase, handed to the pipeline together after it (batch.ts). */
  readonly batch: PhaseBatch<Exchange>;
}

/**
 * One request/response exchange. A class rather than per-request closures: the hot path allocates
 * one object, and its methods are shared.
 */
class Exchange {
  /** Set when the client went away or an answer was written: nothing more is written. */
  answered = false;
  private chunks: Buffer[] | undefined;
  private size = 0;
  private body: Buffer = EMPTY;

  constructor(
    private readonly res: UWS.HttpResponse,
    readonly head: Omit<WireRequest, 'body'>,
    private readonly server: ServerState,
  ) {}

  /** The request is whole: it is counted in flight now (close() waits for it) and runs with its batch. */
  run(body: Buffer): void {
    this.server.inflight.enter();
    this.body = body;
    this.server.batch.push(this);
  }

  /** Called by the batch. Runs even if the client has gone: a request read whole is executed. */
  start(): void {
    const { head, body } = this;
    this.body = EMPTY;
    let answer: Promise<WireResponse>;
    try {
      answer = this.server.opts.handle({ method: head.method, path: head.path, query: head.query, headers: head.headers, body });
    } catch (e) {
      answer = Promise.reject(e);
    }
    answer.then(
      (out) => {
        this.server.inflight.leave();
        this.respond(out);
      },
      (e) => {
        this.server.inflight.leave();
        this.respond(errorResponse(e, newId('req_'))); // handle() maps its own errors; this is a last resort
      },
    );
  }

  /** Copies each chunk (uWS neuters its ArrayBuffer when onData returns) and applies the cap. */
  chunk(chunk: ArrayBuffer, isLast: boolean): void {
    if (this.answered) return;
    this.size += chunk.byteLength;
    if (this.size > this.server.opts.maxBodyBytes) {
      this.chunks = undefined;
      this.answered = true;
      const out = this.server.opts.refuse(this.head, 'payload_too_large');
      try {
        this.res.cork(() => write(this.res, out, true));
      } catch {
        // closed under us
      }
      return;
    }
    const copy = Buffer.from(new Uint8Array(chunk));
    if (isLast && this.chunks === undefined) return this.run(copy);
    (this.chunks ??= []).push(copy);
    if (isLast) this.run(Buffer.concat(this.chunks, this.size));
  }

  respond(out: WireResponse): void {
    if (this.answered) return;
    this.answered = true; // one answer per response
    try {
      this.res.cork(() => write(this.res, out));
    } catch {
      // the connection was closed under us (server shutting down) without an abort callback
    }
  }
}

export function serve(opts: ServeOptions): Promise<Served> {
  const app = uws.App();
  const inflight = new InFlight();
  const server: ServerState = {
    opts,
    inflight,
    batch: new PhaseBatch<Exchange>(
      (ex) => ex.start(),
      (e) => console.error('[gateway] a request could not be started', e),
    ),
  };
  const lower = (hs: readonly string[]) => hs.map((h) => h.toLowerCase());
  const bodiless = [...new Set(lower(opts.headers))];
  const names: HeaderNames = { bodiless, any: [...new Set([...bodiless, ...lower(opts.bodyHeaders), ...BODY_HEADERS])] };

  for (const s of opts.sockets) {
    app.ws<{ data: unknown }>(s.path, {
      maxPayloadLength: s.maxPayloadBytes,
      idleTimeout: 120,
      sendPingsAutomatically: true,
      upgrade: (res, req, context) => {
        const head = copyRequest(req, names);
        const key = req.getHeader('sec-websocket-key');
        const protocol = req.getHeader('sec-websocket-protocol');
        const extensions = req.getHeader('sec-websocket-extensions');
        let aborted = false;
        res.onAborted(() => {
          aborted = true;
        });
        s.authenticate(head).then(
          (r) => {
            if (aborted) return;
            res.cork(() => {
              if (r.ok) res.upgrade({ data: r.data }, key, protocol, extensions, context);
              else write(res, r.response, true);
            });
          },
          (e) => {
            if (aborted) return;
            res.cork(() => write(res, errorResponse(e, newId('req_')), true));
          },
        );
      },
      message: (ws, message, isBinary) => {
        const frame = new Uint8Array(message.byteLength);
        frame.set(new Uint8Array(message));
        let open = true;
        const data = ws.getUserData().data;
        s.message(data, frame, isBinary).then((reply) => {
          if (!open) return;
          try {
            ws.cork(() => ws.send(reply.frame, reply.binary));
          } catch {
            open = false; // closed while the reply was computed
          }
        });
      },
    });
  }

  app.any('/*', (res, req) => {
    const ex = new Exchange(res, copyRequest(req, names), server);
    res.onAborted(() => {
      ex.answered = true;
    });
    const declared = ex.head.headers['content-length'];
    if (declared !== undefined && Number(declared) > opts.maxBodyBytes) {
      ex.answered = true;
      write(res, opts.refuse(ex.head, 'payload_too_large'), true); // still synchronous: already corked
      return;
    }
    const method = ex.head.method;
    if (method === 'GET' || method === 'HEAD' || (declared === '0' && !ex.head.headers['transfer-encoding'])) {
      ex.run(EMPTY);
      return;
    }
    res.onData((chunk, isLast) => {
      ex.chunk(chunk, isLast);
    });
  });

  return new Promise((resolve, reject) => {
    app.listen(opts.host, opts.port, (listenSocket) => {
      if (!listenSocket) {
        reject(new Error(`gateway: could not listen on ${opts.host}:${opts.port}`));
        return;
      }
      const port = uws.us_socket_local_port(listenSocket as unknown as UWS.us_socket);
      let closed = false;
      resolve({
        port,
        async close() {
          if (closed) return;
          closed = true;
          uws.us_listen_socket_close(listenSocket); // no new connections
          await inflight.idle(CLOSE_GRACE_MS); // requests already taken are answered
          const closeAll = (app as unknown as { close?: () => void }).close;
          if (typeof closeAll === 'function') closeAll.call(app); // also drops open connections where supported
        },
      });
    });
  });
}

