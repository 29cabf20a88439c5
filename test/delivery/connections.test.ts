/**
 * The webhook POST's connections (spec 6.1: the exact bytes, judged by the status; docs/gaps.md
 * #delivery "Connections"): kept alive and reused, never reused when the answer says otherwise,
 * one retry on a new connection when a kept connection was closed under the request (the
 * keep-alive race), https verified against the receiver's certificate. Receivers here are raw TCP
 * servers on loopback, so each test says exactly what goes over the wire.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createTlsServer } from 'node:tls';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { closeIdleConnections, exchange } from '../../actors/delivery/connections.ts';
import type { Resolve } from '../../actors/delivery/resolve.ts';
import { post, type SendOptions } from '../../actors/delivery/sender.ts';

const noDns: Resolve = (host) => Promise.reject(Object.assign(new Error(`no DNS for ${host}`), { code: 'ENOTFOUND' }));
const local: SendOptions = { timeoutMs: 2_000, allowPrivate: true, resolve: noDns };
const body = Buffer.from('{"id":"evt_1"}');

/** A receiver that reads requests off each connection and answers each with what `answer` returns (null: nothing). */
interface Receiver {
  url: string;
  connections: number;
  requests: Array<{ connection: number; head: string; body: string }>;
  close(): Promise<void>;
}

type Answerer = (request: { connection: number; index: number; socket: Socket }) => string | Buffer | null;

const servers: Server[] = [];

function listen(server: Server): Promise<number> {
  servers.push(server);
  return new Promise((r) => server.listen(0, '127.0.0.1', () => r((server.address() as AddressInfo).port)));
}

/** Frames requests by Content-Length (what the sender always sends). */
function serveOn(socket: Socket, rec: Receiver, answer: Answerer): void {
  const connection = ++rec.connections;
  let buf = Buffer.alloc(0);
  socket.on('error', () => {});
  socket.on('data', (chunk) => {
    buf = Buffer.concat([buf, chunk]);
    for (;;) {
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = buf.toString('latin1', 0, end);
      const len = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
      if (buf.length < end + 4 + len) return;
      rec.requests.push({ connection, head, body: buf.toString('utf8', end + 4, end + 4 + len) });
      buf = buf.subarray(end + 4 + len);
      const out = answer({ connection, index: rec.requests.length, socket });
      if (out !== null && !socket.destroyed) socket.write(out);
    }
  });
}

async function receiver(answer: Answerer): Promise<Receiver> {
  const rec: Receiver = { url: '', connections: 0, requests: [], close: async () => {} };
  const server = createServer((s) => serveOn(s, rec, answer));
  const port = await listen(server);
  rec.url = `http://127.0.0.1:${port}/hook`;
  return rec;
}

const OK = 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok';

afterEach(() => closeIdleConnections());
afterAll(async () => {
  closeIdleConnections();
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
});

describe('keep-alive connections for webhook POSTs', () => {
  it('the exact bytes are sent, with the signature header, and one connection carries attempts one after another', async () => {
    const r = await receiver(() => OK);
    for (let i = 0; i < 3; i++) expect(await post(r.url, body, { 'x-signature': `t=${i}` }, local)).toEqual({ status: 200, fault: null });
    expect(r.connections).toBe(1);
    expect(r.requests.map((q) => q.body)).toEqual([body.toString(), body.toString(), body.toString()]);
    expect(r.requests[2].head).toMatch(/^POST \/hook HTTP\/1\.1\r\n/);
    expect(r.requests[2].head).toContain('\r\nx-signature: t=2');
    expect(r.requests[2].head).toContain(`\r\nhost: 127.0.0.1:${new URL(r.url).port}`);
    expect(r.requests[2].head).toContain('\r\ncontent-type: application/json');
  });

  it('attempts in flight at once each get a connection, and all are kept', async () => {
    const r = await receiver(() => OK);
    const results = await Promise.all(Array.from({ length: 4 }, () => post(r.url, body, {}, local)));
    expect(results.every((x) => x !== 'abandoned' && x.status === 200)).toBe(true);
    expect(r.connections).toBe(4);
    await Promise.all(Array.from({ length: 4 }, () => post(r.url, body, {}, local)));
    expect(r.connections).toBe(4);
  });

  it('a chunked answer is read to its end and the connection carries the next attempt', async () => {
    const r = await receiver(() => 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n');
    await post(r.url, body, {}, local);
    expect(await post(r.url, body, {}, local)).toEqual({ status: 200, fault: null });
    expect(r.connections).toBe(1);
  });

  it('Connection: close, and an answer whose body runs to the close, are never reused', async () => {
    const closing = await receiver(({ socket }) => (setImmediate(() => socket.end()), 'HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n'));
    await post(closing.url, body, {}, local);
    await post(closing.url, body, {}, local);
    expect(closing.connections).toBe(2);
    const unframed = await receiver(({ socket }) => (setImmediate(() => socket.end()), 'HTTP/1.1 202 Accepted\r\n\r\nthanks'));
    expect(await post(unframed.url, body, {}, local)).toEqual({ status: 202, fault: null });
    expect(await post(unframed.url, body, {}, local)).toEqual({ status: 202, fault: null });
    expect(unframed.connections).toBe(2);
  });

  it('the keep-alive race: a kept connection closed under the next request is retried once on a new one', async () => {
    // The receiver answers the first request on each connection and drops the connection at the
    // second without answering, as a server timing out an idle connection does.
    const r = await receiver(({ socket, index }) => {
      if (index === 2) {
        socket.destroy();
        return null;
      }
      return OK;
    });
    expect(await post(r.url, body, {}, local)).toEqual({ status: 200, fault: null });
    expect(await post(r.url, body, {}, local)).toEqual({ status: 200, fault: null });
    expect(r.connections).toBe(2);
    expect(r.requests.map((q) => q.connection)).toEqual([1, 1, 2]);
  });

  it('a new connection closed before any answer is a refused connection, not retried', async () => {
    const r = await receiver(({ socket }) => (socket.destroy(), null));
    expect(await post(r.url, body, {}, local)).toEqual({ status: null, fault: 'refused connection' });
    expect(r.requests).toHaveLength(1);
  });

  it('an answer that is not HTTP is a refused connection, and its connection is dropped', async () => {
    const r = await receiver(() => 'SSH-2.0-OpenSSH_9.6\r\n\r\n');
    expect(await post(r.url, body, {}, local)).toEqual({ status: null, fault: 'refused connection' });
    expect(await post(r.url, body, {}, local)).toEqual({ status: null, fault: 'refused connection' });
    expect(r.connections).toBe(2);
  });

  it('a receiver that never answers is a timeout, and its connection is closed', async () => {
    let closed = 0;
    const r = await receiver(({ socket }) => (socket.on('close', () => closed++), null));
    expect(await post(r.url, body, {}, { ...local, timeoutMs: 100 })).toEqual({ status: null, fault: 'timeout' });
    for (let i = 0; i < 100 && closed === 0; i++) await new Promise((res) => setImmediate(res));
    expect(closed).toBe(1);
  });

  it('a body past the drain limit is not read: the status counts and the connection is closed', async () => {
    let closed = 0;
    const r = await receiver(({ socket }) => (socket.on('close', () => closed++), `HTTP/1.1 200 OK\r\nContent-Length: ${8 * 1024 * 1024}\r\n\r\n${'x'.repeat(1024)}`));
    expect(await post(r.url, body, {}, local)).toEqual({ status: 200, fault: null });
    for (let i = 0; i < 100 && closed === 0; i++) await new Promise((res) => setImmediate(res));
    expect(closed).toBe(1);
  });

  it('a body that stops coming after the status has its connection closed once the drain time passes; the status stands', async () => {
    let closed = 0;
    const r = await receiver(({ socket }) => (socket.on('close', () => closed++), 'HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly part'));
    const { port } = new URL(r.url);
    const status = await new Promise<number>((resolve, reject) =>
      exchange({ secure: false, host: '127.0.0.1', literal: true, port: Number(port), address: '127.0.0.1' }, Buffer.from(`POST /hook HTTP/1.1\r\nhost: x\r\ncontent-length: 0\r\n\r\n`), { pool: 'test', drainMs: 50 }, {
        answer: (err, s) => (err ? reject(err) : resolve(s)),
      }),
    );
    expect(status).toBe(200);
    expect(closed).toBe(0);
    for (let i = 0; i < 200 && closed === 0; i++) await new Promise((res) => setTimeout(res, 5));
    expect(closed).toBe(1);
  });

  it('a header that would split the request is refused before anything is sent', async () => {
    const r = await receiver(() => OK);
    await expect(post(r.url, body, { 'x-signature': 'a\r\nx-injected: 1' }, local)).rejects.toThrow(/invalid webhook request header/);
    await expect(post(r.url, body, { 'bad name': 'v' }, local)).rejects.toThrow(/invalid webhook request header/);
    expect(r.requests).toHaveLength(0);
  });
});

describe('https receivers', () => {
  let dir: string;
  let cert: Buffer;
  let key: Buffer;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'webhook-tls-'));
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' });
    cert = readFileSync(join(dir, 'cert.pem'));
    key = readFileSync(join(dir, 'key.pem'));
  });

  async function tlsReceiver(): Promise<Receiver> {
    const rec: Receiver = { url: '', connections: 0, requests: [], close: async () => {} };
    const server = createTlsServer({ key, cert }, (s) => serveOn(s, rec, () => OK));
    const port = await listen(server as unknown as Server);
    rec.url = `https://127.0.0.1:${port}/hook`;
    return rec;
  }

  it('a receiver whose certificate is trusted gets the POST over TLS, on a kept connection', async () => {
    const r = await tlsReceiver();
    expect(await post(r.url, body, {}, { ...local, ca: cert })).toEqual({ status: 200, fault: null });
    expect(await post(r.url, body, {}, { ...local, ca: cert })).toEqual({ status: 200, fault: null });
    expect(r.connections).toBe(1);
    expect(r.requests.map((q) => q.body)).toEqual([body.toString(), body.toString()]);
  });

  it('an untrusted certificate is a refused connection: nothing is sent', async () => {
    const r = await tlsReceiver();
    expect(await post(r.url, body, {}, local)).toEqual({ status: null, fault: 'refused connection' });
    expect(r.requests).toHaveLength(0);
  });
});
