/**
 * One outbound webhook POST over node:http(s): the exact bytes, a hard time limit (spec 6.1, 8:
 * the receiver answers within 5 s), and a fault classified as spec 2.12 names them. Keep-alive
 * agents are shared so repeated deliveries to one receiver reuse connections. Nothing is sent to
 * an internal address (address-policy.ts): the URL is checked on every attempt, and a host name
 * is resolved and checked before the attempt and again at connect (resolve.ts).
 */
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { BoundedMap } from '../../runtime/index.ts';
import { urlRefusal } from './address-policy.ts';
import type { Fault } from './delivery.ts';
import { checkedAddresses, guardedLookup, InternalAddressError, type Resolve } from './resolve.ts';

export const RECEIVER_TIMEOUT_MS = 5_000;

/** `refused`: the platform did not connect because of the address policy, and why. */
export type SendResult = { status: number; fault: null } | { status: null; fault: Fault; refused?: string };

export interface SendOptions {
  timeoutMs: number;
  /** WEBHOOK_ALLOW_PRIVATE_NETWORKS (development only). */
  allowPrivate: boolean;
  resolve: Resolve;
}

/** Kept apart by the setting, so a socket opened under the development setting is never reused without it. */
const agents = {
  strict: { http: new http.Agent({ keepAlive: true, maxSockets: 256 }), https: new https.Agent({ keepAlive: true, maxSockets: 256 }) },
  development: { http: new http.Agent({ keepAlive: true, maxSockets: 256 }), https: new https.Agent({ keepAlive: true, maxSockets: 256 }) },
};

const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NONAME', 'EAI_NODATA']);

/** Spec 2.12 names three faults; a socket error that is neither DNS nor timeout means the
 * receiver did not take the request (refused, reset, unreachable), so it is a refused connection. */
export function classify(err: NodeJS.ErrnoException): Fault {
  if (err.code && DNS_CODES.has(err.code)) return 'DNS failure';
  if (err.code === 'ETIMEDOUT' || err.code === 'ESOCKETTIMEDOUT') return 'timeout';
  return 'refused connection';
}

/** A refusal by the address policy is a connection the platform refused to make (spec 2.12 has no other word for it). */
const failure = (err: NodeJS.ErrnoException): SendResult =>
  err instanceof InternalAddressError ? { status: null, fault: 'refused connection', refused: err.message } : { status: null, fault: classify(err) };

interface Route {
  secure: boolean;
  host: string;
  /** An IP literal: no DNS; the URL check has judged the address itself. */
  literal: boolean;
  port: number;
  path: string;
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
    const secure = u?.protocol === 'https:';
    const route = u && host ? { secure, host, literal: isIP(host) !== 0, port: Number(u.port) || (secure ? 443 : 80), path: u.pathname + u.search } : null;
    targets.set(url, (t = { refusal, route }));
  }
  return t;
}

export function post(url: string, body: Buffer, headers: Record<string, string>, opts: SendOptions): Promise<SendResult> {
  const { refusal, route } = target(url);
  const why = opts.allowPrivate ? refusal.development : refusal.strict;
  if (why !== null || route === null) return Promise.resolve({ status: null, fault: 'refused connection', refused: why ?? 'url is not an http(s) URL.' });
  const { secure, host, literal, port, path } = route;
  const mod = secure ? https : http;
  const pool = opts.allowPrivate ? agents.development : agents.strict;
  return new Promise((resolve) => {
    let done = false;
    let req: http.ClientRequest | undefined;
    const finish = (r: SendResult) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(r);
    };
    // The time limit covers the resolution before the attempt too.
    const timer = setTimeout(() => {
      finish({ status: null, fault: 'timeout' });
      req?.destroy();
    }, opts.timeoutMs);
    const send = () => {
      if (done) return;
      req = mod.request({
        host,
        port,
        path,
        method: 'POST',
        agent: secure ? pool.https : pool.http,
        lookup: guardedLookup(opts.allowPrivate, opts.resolve),
        headers: { 'content-type': 'application/json', 'content-length': String(body.length), 'user-agent': 'workforce-platform-webhooks/1', ...headers },
      }, (res) => {
        // The answer counts once its status line is in; the body is drained and dropped. Spec 6.1
        // asks for a 2xx: a redirect is an answer like any other non-2xx and is not followed.
        finish({ status: res.statusCode ?? 0, fault: null });
        res.resume();
        res.on('error', () => {});
      });
      req.on('error', (err) => finish(failure(err)));
      req.end(body);
    };
    if (literal) send();
    else checkedAddresses(host, opts.allowPrivate, opts.resolve).then(send, (err: NodeJS.ErrnoException) => finish(failure(err)));
  });
}
