/**
 * The outbound POST of a webhook attempt (spec 6.1: the exact bytes to the endpoint's URL; spec
 * 2.12 faults). The URL is parsed once per endpoint; these check that every part of it still
 * reaches the receiver.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post } from '../../actors/delivery/sender.ts';

interface Seen {
  method: string;
  url: string;
  authorization: string | undefined;
  signature: string | undefined;
  body: string;
}

let server: http.Server;
let port: number;
const seen: Seen[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, authorization: req.headers.authorization, signature: req.headers['x-test-signature'] as string | undefined, body });
      res.statusCode = req.url!.startsWith('/gone') ? 410 : 200;
      res.end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});

afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('webhook POST (spec 6.1, 2.12)', () => {
  it('sends the exact bytes to the path and query of the URL, with the given headers', async () => {
    const body = Buffer.from('{"id":"evt_1","data":{"n":1}}');
    const r = await post(`http://127.0.0.1:${port}/hooks/in?tenant=a&x=1`, body, { 'x-test-signature': 't=1,v1=abc' });
    expect(r).toEqual({ status: 200, fault: null });
    expect(seen.at(-1)).toEqual({ method: 'POST', url: '/hooks/in?tenant=a&x=1', authorization: undefined, signature: 't=1,v1=abc', body: body.toString() });
  });

  it('credentials in the URL are sent as basic authorization', async () => {
    await post(`http://us%40er:p%3Ass@127.0.0.1:${port}/auth`, Buffer.from('{}'), {});
    expect(seen.at(-1)!.authorization).toBe(`Basic ${Buffer.from('us@er:p:ss').toString('base64')}`);
  });

  it('a non-2xx answer is reported with its status and no fault', async () => {
    expect(await post(`http://127.0.0.1:${port}/gone`, Buffer.from('{}'), {})).toEqual({ status: 410, fault: null });
  });

  it('a port with nothing listening is a refused connection', async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const free = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    expect(await post(`http://127.0.0.1:${free}/`, Buffer.from('{}'), {})).toEqual({ status: null, fault: 'refused connection' });
  });
});
