/**
 * One outbound webhook POST over node:http(s): the exact bytes, a hard time limit (spec 6.1, 8:
 * the receiver answers within 5 s), and a fault classified as spec 2.12 names them. Keep-alive
 * agents are shared so repeated deliveries to one receiver reuse connections.
 */
import http from 'node:http';
import https from 'node:https';
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

export function post(url: URL, body: Buffer, headers: Record<string, string>, timeoutMs = RECEIVER_TIMEOUT_MS): Promise<SendResult> {
  const secure = url.protocol === 'https:';
  const mod = secure ? https : http;
  return new Promise((resolve) => {
    let done = false;
    const finish = (r: SendResult) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(r);
    };
    const req = mod.request(url, {
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
