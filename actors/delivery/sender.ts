/**
 * One outbound webhook POST over node:http(s): the exact bytes, a hard time limit (spec 6.1, 8:
 * the receiver answers within 5 s), and a fault classified as spec 2.12 names them. Keep-alive
 * agents are shared so repeated deliveries to one receiver reuse connections.
 */
import http from 'node:http';
import https from 'node:https';
import { BoundedMap } from '../../runtime/index.ts';
import type { Fault } from './delivery.ts';

export const RECEIVER_TIMEOUT_MS = 5_000;

export type SendResult = { status: number; fault: null } | { status: null; fault: Fault };

const agents = {
  http: new http.Agent({ keepAlive: true, maxSockets: 256 }),
  https: new https.Agent({ keepAlive: true, maxSockets: 256 }),
};

const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NONAME', 'EAI_NODATA']);

/** Spec 2.12 names three faults; a socket error that is neither DNS nor timeout means the
 * receiver did not take the request (refused, reset, unreachable), so it is a refused connection. */
export function classify(err: NodeJS.ErrnoException): Fault {
  if (err.code && DNS_CODES.has(err.code)) return 'DNS failure';
  if (err.code === 'ETIMEDOUT' || err.code === 'ESOCKETTIMEDOUT') return 'timeout';
  return 'refused connection';
}

interface Target {
  secure: boolean;
  host: string;
  port: number;
  path: string;
  /** user:password from the URL, sent as basic authorization (as node:http does for a URL). */
  auth: string | undefined;
}

/** Parsed endpoint URLs: an endpoint's URL never changes, and each attempt would parse it again. */
const targets = new BoundedMap<string, Target>(10_000);

function target(url: string): Target {
  let t = targets.get(url);
  if (!t) {
    const u = new URL(url);
    const secure = u.protocol === 'https:';
    t = { secure, host: u.hostname.replace(/^\[|\]$/g, ''), port: Number(u.port) || (secure ? 443 : 80), path: u.pathname + u.search,
      auth: u.username || u.password ? `${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}` : undefined,
    };
    targets.set(url, t);
  }
  return t;
}

export function post(url: string, body: Buffer, headers: Record<string, string>, timeoutMs = RECEIVER_TIMEOUT_MS): Promise<SendResult> {
  const { secure, host, port, path, auth } = target(url);
  const mod = secure ? https : http;
  return new Promise((resolve) => {
    let done = false;
    const finish = (r: SendResult) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(r);
    };
    const req = mod.request({
      host,
      port,
      path,
      auth,
      method: 'POST',
      agent: secure ? agents.https : agents.http,
      headers: { 'content-type': 'application/json', 'content-length': String(body.length), 'user-agent': 'workforce-platform-webhooks/1', ...headers },
    }, (res) => {
      // The answer counts once its status line is in; the body is drained and dropped.
      finish({ status: res.statusCode ?? 0, fault: null });
      res.resume();
      res.on('error', () => {});
    });
    const timer = setTimeout(() => {
      finish({ status: null, fault: 'timeout' });
      req.destroy();
    }, timeoutMs);
    req.on('error', (err) => finish({ status: null, fault: classify(err) }));
    req.end(body);
  });
}
