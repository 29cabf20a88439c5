/**
 * One outbound webhook POST over http(s): the exact bytes, a hard time limit (spec 6.1, 8: the
 * receiver answers within 5 s), and a fault classified as spec 2.12 names them. Connections are
 * kept alive and shared, so repeated deliveries to one receiver reuse them (connections.ts).
 * Nothing is sent to an internal address (address-policy.ts): the URL is checked on every attempt,
 * and a host name is resolved and checked before the attempt (resolve.ts); the connection is made to
 * the checked address itself, never to a second lookup's answer.
 */
import { isIP } from 'node:net';
import type { SecureContextOptions } from 'node:tls';
import { BoundedMap } from '../../runtime/index.ts';
import { urlRefusal } from './address-policy.ts';
import { type Answer, exchange, type Origin } from './connections.ts';
import type { Fault } from './delivery.ts';
import { checkedAddresses, InternalAddressError, LookupError, pinned, type Resolve } from './resolve.ts';

export const RECEIVER_TIMEOUT_MS = 5_000;

/** `refused`: the platform did not connect because of the address policy, and why. */
export type SendResult = { status: number; fault: null } | { status: null; fault: Fault; refused?: string };
/** The attempt was given up before its outcome (the process is stopping): nothing is known of it. */
export const ABANDONED = 'abandoned';
/** An attempt under way, as its owner holds it (SendOptions.live). */
export interface Abandonable {
  abandon(): void;
}

export interface SendOptions {
  timeoutMs: number;
  /** WEBHOOK_ALLOW_PRIVATE_NETWORKS (development only). */
  allowPrivate: boolean;
  resolve: Resolve;
  /** Whose attempt it is: lookups are shared out per organisation (resolve.ts). */
  org?: string;
  /** Aborted: the attempt is given up at once and answers ABANDONED. */
  signal?: AbortSignal;
  /**
   * Holds the attempt while it is under way, so its owner can give it up (abandon(): it answers
   * ABANDONED), as `signal` does, without a listener added to and taken off a signal per attempt.
   */
  live?: Set<Abandonable>;
  /** Extra trust anchors for https receivers (tests only); the system's otherwise. */
  ca?: SecureContextOptions['ca'];
}

const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NONAME', 'EAI_NODATA']);

/** Spec 2.12 names three faults; a socket error that is neither DNS nor timeout means the
 * receiver did not take the request (refused, reset, unreachable), so it is a refused connection. */
export function classify(err: NodeJS.ErrnoException): Fault {
  if (err instanceof LookupError) return 'DNS failure';
  if (err.code && DNS_CODES.has(err.code)) return 'DNS failure';
  if (err.code === 'ETIMEDOUT' || err.code === 'ESOCKETTIMEDOUT') return 'timeout';
  return 'refused connection';
}

/** A refusal by the address policy is a connection the platform refused to make (spec 2.12 has no other word for it). */
const failure = (err: NodeJS.ErrnoException): SendResult =>
  err instanceof InternalAddressError ? { status: null, fault: 'refused connection', refused: err.message } : { status: null, fault: classify(err) };

interface Route {
  /** `literal`: an IP literal, so no DNS; the URL check has judged the address itself. */
  origin: Omit<Origin, 'address'>;
  /** The request line and the headers every attempt to this URL sends. */
  head: string;
}

const USER_AGENT = 'workforce-platform-webhooks/1';
/** RFC 9110 5.1 and 5.5: a header name is a token; a value is tabs, visible characters and obs-text (no CR, LF or NUL). */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const BAD_VALUE = /[^\t\x20-\x7e\x80-\xff]/;

function routeOf(u: URL, host: string): Route {
  const secure = u.protocol === 'https:';
  const literal = isIP(host) !== 0;
  const port = Number(u.port) || (secure ? 443 : 80);
  const authority = (host.includes(':') ? `[${host}]` : host) + (u.port ? `:${port}` : '');
  const head = `POST ${u.pathname + u.search} HTTP/1.1\r\nhost: ${authority}\r\ncontent-type: application/json\r\nuser-agent: ${USER_AGENT}\r\n`;
  return { origin: { secure, host, literal, port }, head };
}

/** The whole request: the route's head, the length, the attempt's own headers, the body (a string is sent as UTF-8). */
function requestBytes(route: Route, body: string | Buffer, headers: Record<string, string>): Buffer {
  const length = typeof body === 'string' ? Buffer.byteLength(body, 'utf8') : body.length;
  let head = `${route.head}content-length: ${length}\r\n`;
  for (const name in headers) {
    const value = headers[name];
    if (!TOKEN.test(name) || BAD_VALUE.test(value)) throw new TypeError(`invalid webhook request header ${JSON.stringify(name)}`);
    head += `${name}: ${value}\r\n`;
  }
  head += '\r\n';
  const bytes = Buffer.allocUnsafe(head.length + length); // the head is latin1: one byte a character
  const n = bytes.write(head, 0, 'latin1');
  if (typeof body === 'string') bytes.write(body, n, 'utf8');
  else body.copy(bytes, n);
  return bytes;
}

interface Target {
  /** Why the URL is refused, without and with the development setting (address-policy.ts). */
  refusal: { strict: string | null; development: string | null };
  /** Null when the URL is no http(s) URL at all (refused either way). */
  route: Route | null;
}

/** Checked endpoint URLs: an endpoint's URL never changes, and each attempt would parse it again. */
const targets = new BoundedMap<string, Target>(10_000);

function target(url: string): Target {
  let t = targets.get(url);
  if (!t) {
    const refusal = { strict: urlRefusal(url, false)?.detail ?? null, development: urlRefusal(url, true)?.detail ?? null };
    const u = URL.canParse(url) ? new URL(url) : null;
    const host = u ? u.hostname.replace(/^\[|\]$/g, '') : '';
    const route = u && host && (u.protocol === 'http:' || u.protocol === 'https:') ? routeOf(u, host) : null;
    targets.set(url, (t = { refusal, route }));
  }
  return t;
}

export function post(url: string, body: string | Buffer, headers: Record<string, string>, opts: SendOptions): Promise<SendResult | typeof ABANDONED> {
  const { refusal, route } = target(url);
  const why = opts.allowPrivate ? refusal.development : refusal.strict;
  if (why !== null || route === null) return Promise.resolve({ status: null, fault: 'refused connection', refused: why ?? 'url is not an http(s) URL.' });
  if (opts.signal?.aborted) return Promise.resolve(ABANDONED);
  return new Promise((resolve) => new Attempt(route, requestBytes(route, body, headers), opts, resolve));
}

/**
 * One attempt from resolution to its status, under one time limit. A class rather than closures:
 * an attempt is made per delivery, and its methods are shared.
 */
class Attempt implements Answer, Abandonable {
  private done = false;
  private exchange: { abandon(): void } | undefined;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly route: Route,
    private readonly request: Buffer,
    private readonly opts: SendOptions,
    private readonly resolve: (r: SendResult | typeof ABANDONED) => void,
  ) {
    // The time limit covers the resolution before the attempt too.
    this.timer = setTimeout(timedOut, opts.timeoutMs, this);
    opts.signal?.addEventListener('abort', this, { once: true });
    opts.live?.add(this);
    const { origin } = route;
    if (origin.literal) this.send(origin.host);
    else checkedAddresses(origin.host, opts.allowPrivate, opts.resolve, opts.org).then((all) => this.send(pinned(all).address), (err: NodeJS.ErrnoException) => this.finish(failure(err)));
  }

  /** The abort signal's listener: the process is stopping, the attempt is given up unjudged. */
  handleEvent(): void {
    this.abandon();
  }

  abandon(): void {
    this.finish(ABANDONED);
    this.exchange?.abandon();
  }

  answer(err: NodeJS.ErrnoException | null, status: number): void {
    this.finish(err ? failure(err) : { status, fault: null });
  }

  timedOut(): void {
    this.finish({ status: null, fault: 'timeout' });
    this.exchange?.abandon();
  }

  /** Connects to `address`, the checked one (pinned: no lookup at connect). */
  private send(address: string): void {
    if (this.done) return;
    const { opts, route } = this;
    // Kept apart by the setting, so a connection opened under the development setting is never
    // reused without it. Spec 6.1 asks for a 2xx: a redirect is an answer like any other non-2xx
    // and is not followed.
    this.exchange = exchange({ ...route.origin, address }, this.request, { pool: opts.allowPrivate ? 'development' : 'strict', ca: opts.ca }, this);
  }

  private finish(r: SendResult | typeof ABANDONED): void {
    if (this.done) return;
    this.done = true;
    clearTimeout(this.timer);
    this.opts.signal?.removeEventListener('abort', this);
    this.opts.live?.delete(this);
    this.resolve(r);
  }
}

function timedOut(a: Attempt): void {
  a.timedOut();
}
