/**
 * Talking to platform processes a test or bench started (the failover test, the chaos bench):
 * a free loopback port to give one, and a JSON request through node:http with a deadline, on a
 * given agent (keep-alive) or on a fresh connection (`agent: false`).
 */
import { request, type Agent, type IncomingHttpHeaders } from 'node:http';
import { createServer } from 'node:net';

export interface JsonReply {
  status: number;
  body: any;
  /** Lower-case names, as node:http gives them (a replay is told by `service-idempotent-replay`). */
  headers: IncomingHttpHeaders;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export function jsonCall(port: number, method: string, path: string, headers: Record<string, string>, body: unknown, opts: { agent: Agent | false; timeoutMs: number }): Promise<JsonReply> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const sent = { ...headers, ...(opts.agent === false ? { connection: 'close' } : {}), ...(data ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(data)) } : {}) };
    const req = request({ host: '127.0.0.1', port, method, path, agent: opts.agent, timeout: opts.timeoutMs, headers: sent }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined, headers: res.headers }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end(data);
  });
}
