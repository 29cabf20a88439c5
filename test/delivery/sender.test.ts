/**
 * The outbound POST of a webhook attempt (spec 6.1: the exact bytes to the endpoint's URL; spec
 * 2.12 faults). The URL is parsed once per endpoint; these check that every part of it still
 * reaches the receiver, and that an attempt connects only to the address that was checked
 * (docs/gaps.md#delivery). Host names resolve through a stand-in resolver: no DNS here.
 */
import type { LookupAddress } from 'node:dns';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Resolve } from '../../actors/delivery/resolve.ts';
import { type Abandonable, ABANDONED, post, RECEIVER_TIMEOUT_MS, type SendOptions } from '../../actors/delivery/sender.ts';

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
      if (req.url!.startsWith('/moved')) res.writeHead(307, { location: '/landing' });
      else res.statusCode = req.url!.startsWith('/gone') ? 410 : 200;
      res.end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});

afterAll(() => new Promise<void>((r) => server.close(() => r())));

const noDns: Resolve = (host) => Promise.reject(Object.assign(new Error(`no DNS for ${host}`), { code: 'ENOTFOUND' }));
/** The receiver on 127.0.0.1 is reachable only with the development setting. */
const local: SendOptions = { timeoutMs: RECEIVER_TIMEOUT_MS, allowPrivate: true, resolve: noDns };
const strict: SendOptions = { ...local, allowPrivate: false };
/** A resolver answering each lookup of a name with the next answer, the last one repeated. */
function answers(...each: string[][]): Resolve {
  let n = 0;
  return async () => each[Math.min(n++, each.length - 1)].map((address): LookupAddress => ({ address, family: address.includes(':') ? 6 : 4 }));
}

describe('webhook POST (spec 6.1, 2.12)', () => {
  it('sends the exact bytes to the path and query of the URL, with the given headers', async () => {
    const body = Buffer.from('{"id":"evt_1","data":{"n":1}}');
    const r = await post(`http://127.0.0.1:${port}/hooks/in?tenant=a&x=1`, body, { 'x-test-signature': 't=1,v1=abc' }, local);
    expect(r).toEqual({ status: 200, fault: null });
    expect(seen.at(-1)).toEqual({ method: 'POST', url: '/hooks/in?tenant=a&x=1', authorization: undefined, signature: 't=1,v1=abc', body: body.toString() });
  });

  it('a non-2xx answer is reported with its status and no fault', async () => {
    expect(await post(`http://127.0.0.1:${port}/gone`, Buffer.from('{}'), {}, local)).toEqual({ status: 410, fault: null });
  });

  it('a redirect is an answer, not followed: nothing is sent to its location', async () => {
    const before = seen.length;
    expect(await post(`http://127.0.0.1:${port}/moved`, Buffer.from('{}'), {}, local)).toEqual({ status: 307, fault: null });
    expect(seen.slice(before).map((s) => s.url)).toEqual(['/moved']);
  });

  it('a port with nothing listening is a refused connection', async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const free = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    expect(await post(`http://127.0.0.1:${free}/`, Buffer.from('{}'), {}, local)).toEqual({ status: null, fault: 'refused connection' });
  });
});

describe('an attempt reaches only a checked public address (spec 4.11, docs/gaps.md#delivery)', () => {
  const refusedWith = (text: string) => ({ status: null, fault: 'refused connection', refused: expect.stringContaining(text) });

  it('a URL on an internal address is refused before connecting; nothing is sent', async () => {
    const before = seen.length;
    expect(await post(`http://127.0.0.1:${port}/in`, Buffer.from('{}'), {}, strict)).toEqual(refusedWith('127.0.0.1 is a loopback address'));
    expect(seen.length).toBe(before);
  });

  it('a URL with credentials is refused, with the development setting too; nothing is sent', async () => {
    const before = seen.length;
    expect(await post(`http://us%40er:p%3Ass@127.0.0.1:${port}/auth`, Buffer.from('{}'), {}, local)).toEqual(refusedWith('must not carry credentials'));
    expect(seen.length).toBe(before);
  });

  it('a public-looking name that resolves to 127.0.0.1 is refused at delivery time; nothing is sent', async () => {
    const before = seen.length;
    const r = await post(`http://hooks.example.test:${port}/in`, Buffer.from('{}'), {}, { ...strict, resolve: answers(['127.0.0.1']) });
    expect(r).toEqual(refusedWith('hooks.example.test resolves to 127.0.0.1, which is a loopback address'));
    expect(seen.length).toBe(before);
  });

  it('a name resolving to public and internal addresses at once is refused', async () => {
    const r = await post(`http://hooks.example.test:${port}/in`, Buffer.from('{}'), {}, { ...strict, resolve: answers(['203.0.113.7', '::ffff:10.0.0.8']) });
    expect(r).toEqual(refusedWith('::ffff:10.0.0.8, which is a private address'));
  });

  it('DNS rebinding - the connection goes to the address that was checked: the name is resolved once per attempt, never again at connect', async () => {
    const before = seen.length;
    let lookups = 0;
    const rebinding: Resolve = async () => (lookups++ === 0 ? [{ address: '127.0.0.1', family: 4 }] : [{ address: '169.254.169.254', family: 4 }]);
    const r = await post(`http://rebind.example.test:${port}/pinned`, Buffer.from('{}'), {}, { ...local, resolve: rebinding });
    expect(r).toEqual({ status: 200, fault: null });
    expect(lookups).toBe(1);
    expect(seen.slice(before).map((s) => s.url)).toEqual(['/pinned']);
    expect(await post(`http://rebind.example.test:${port}/pinned`, Buffer.from('{}'), {}, { ...local, resolve: rebinding })).toEqual(refusedWith('169.254.169.254, which is a cloud metadata address'));
    expect(seen.length).toBe(before + 1);
  });

  it('the address connected is the one resolved and checked: with the development setting the name reaches the receiver', async () => {
    const r = await post(`http://hooks.example.test:${port}/named`, Buffer.from('{}'), {}, { ...local, resolve: answers(['127.0.0.1']) });
    expect(r).toEqual({ status: 200, fault: null });
    expect(seen.at(-1)!.url).toBe('/named');
  });

  it.each([
    ['64:ff9b:1::7f00:1', 'loopback'], // RFC 8215 local-use NAT64
    ['64:ff9b:1::a00:1', 'private'],
    ['64:ff9b::7f00:1', 'loopback'], // NAT64 well-known
    ['::ffff:7f00:1', 'loopback'], // mapped
    ['::ffff:0:a00:1', 'private'], // translated
    ['::7f00:1', 'loopback'], // compatible
    ['2002:a9fe:a9fe::1', 'cloud metadata'], // 6to4
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'loopback'], // Teredo
  ])('a name resolving to %s (an IPv4-embedding IPv6 address) is refused at connect time as %s; nothing is sent', async (address, range) => {
    const before = seen.length;
    const r = await post(`http://hooks.example.test:${port}/in`, Buffer.from('{}'), {}, { ...strict, resolve: answers([address]) });
    expect(r).toEqual(refusedWith(`hooks.example.test resolves to ${address}, which is a ${range} address`));
    expect(seen.length).toBe(before);
  });

  it('a cloud metadata address is refused even with the development setting', async () => {
    const r = await post(`http://hooks.example.test:${port}/in`, Buffer.from('{}'), {}, { ...local, resolve: answers(['169.254.169.254']) });
    expect(r).toEqual(refusedWith('169.254.169.254, which is a cloud metadata address'));
  });

  it('a name that does not resolve is still a DNS failure', async () => {
    expect(await post('http://no-such-host.example.test/in', Buffer.from('{}'), {}, strict)).toEqual({ status: null, fault: 'DNS failure' });
  });
  it('an attempt its owner holds (SendOptions.live) is held until it ends; abandon() gives it up at once, unjudged (a stopping process)', async () => {
    let arrived: () => void = () => {};
    const reached = new Promise<void>((r) => (arrived = r));
    const hanging = http.createServer((req) => {
      req.resume();
      arrived(); // never answered
    });
    await new Promise<void>((r) => hanging.listen(0, '127.0.0.1', r));
    try {
      const live = new Set<Abandonable>();
      const answered = await post(`http://127.0.0.1:${port}/in`, Buffer.from('{}'), {}, { ...local, live });
      expect(answered).toEqual({ status: 200, fault: null });
      expect(live.size).toBe(0);
      const pending = post(`http://127.0.0.1:${(hanging.address() as AddressInfo).port}/in`, Buffer.from('{}'), {}, { ...local, live });
      await reached;
      expect(live.size).toBe(1);
      for (const a of [...live]) a.abandon();
      expect(await pending).toBe(ABANDONED);
      expect(live.size).toBe(0);
    } finally {
      hanging.closeAllConnections();
      await new Promise<void>((r) => hanging.close(() => r()));
    }
  });
});
