/**
 * Requests the transport cannot read, over raw TCP (docs/gaps.md#gateway "Malformed requests and
 * HTTP/1.0"). Where uWebSockets.js hands the request to us, it is answered 400 invalid_request in
 * the error shape and the connection closed at once. Where uWebSockets.js 20.30 refuses it itself,
 * the measured behaviour is pinned here: no byte is answered and the connection is closed, either
 * at once or by uWS's HTTP idle timeout (about 10 s); meanwhile the server serves everyone else.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { areas } from '../../actors/index.ts';
import { startHarness, type Harness } from '../../support/http.ts';
import { get, RawConnection } from './raw-http.ts';

// the transport reads and refuses these before any store is touched: one project runs them (vitest.config.ts TEST_STORES)
const transportOnly = process.env.TEST_STORES === 'memory';

let h: Harness;
beforeAll(async () => {
  if (transportOnly) h = await startHarness({ areas });
});
afterAll(async () => {
  await h?.close();
});

const HOST = 'host: 127.0.0.1\r\n';
const post = (headers: string, body = '') => `POST /v1/registrations HTTP/1.1\r\n${HOST}content-type: application/json\r\n${headers}\r\n${body}`;

/** Sends each request on its own connection; resolves with what each received and how it ended. */
async function sendEach(cases: Record<string, string>) {
  const open = await Promise.all(
    Object.entries(cases).map(async ([name, bytes]) => {
      const c = await RawConnection.open(h.port);
      c.send(bytes);
      return { name, c };
    }),
  );
  // the server serves a well-formed request meanwhile
  const ok = await RawConnection.open(h.port);
  ok.send(get('/v1/openapi.json'));
  expect((await ok.next())?.status).toBe(200);
  ok.destroy();
  return Promise.all(open.map(async ({ name, c }) => ({ name, ending: await c.ended, received: c.received })));
}

describe.runIf(transportOnly)('malformed requests (docs/gaps.md#gateway)', () => {
  it('a Transfer-Encoding other than chunked answers 400 invalid_request with a request id, and the connection closes at once', async () => {
    for (const coding of ['gzip', 'gzip, deflate', 'identity']) {
      const c = await RawConnection.open(h.port);
      c.send(post(`transfer-encoding: ${coding}\r\n`)); // the head; a body would follow
      const r = await c.next();
      expect(r?.status, `${coding}: ${JSON.stringify(c.received)}`).toBe(400);
      expect(r?.headers.connection).toBe('close');
      expect(r?.headers['service-request-id']).toMatch(/^req_/);
      expect(JSON.parse(r!.body).error).toMatchObject({ code: 'invalid_request', message: expect.stringContaining('Transfer-Encoding'), retryable: false });
      expect(await c.ended).toBe('fin');
    }
  });

  it('uWS closes at once, answering nothing: an unreadable Content-Length, Content-Length with Transfer-Encoding, a body that is not chunked, an unknown or lower-case method', async () => {
    const got = await sendEach({
      'content-length abc': post('content-length: abc\r\n'),
      'content-length -1': post('content-length: -1\r\n'),
      'content-length +2': post('content-length: +2\r\n', '{}'),
      'content-length and chunked': post('content-length: 3\r\ntransfer-encoding: chunked\r\n', '0\r\n\r\n'),
      // uWS reads the body as chunked in the same pass as the head, and closes before our 400 leaves
      'gzip with its body in the same packet': post('transfer-encoding: gzip\r\n', '{}'),
      'method FOO': `FOO /v1/openapi.json HTTP/1.1\r\n${HOST}\r\n`,
      'method get': `get /v1/openapi.json HTTP/1.1\r\n${HOST}\r\n`,
    });
    for (const g of got) expect(g, g.name).toEqual({ name: g.name, ending: 'fin', received: '' });
  });

  it('uWS answers nothing and closes at its idle timeout: HTTP/1.0, no Host, a header line without a colon, folded or control characters, an absolute-form target, bare LF line ends', async () => {
    const got = await sendEach({
      'HTTP/1.0 without Host': 'GET /v1/openapi.json HTTP/1.0\r\n\r\n',
      'HTTP/1.0 as curl -0 sends it': `GET /v1/openapi.json HTTP/1.0\r\n${HOST}user-agent: curl/8\r\naccept: */*\r\n\r\n`,
      'HTTP/1.1 without Host': 'GET /v1/openapi.json HTTP/1.1\r\n\r\n',
      'header line without a colon': `GET /v1/openapi.json HTTP/1.1\r\n${HOST}no-colon-here\r\n\r\n`,
      'folded header': `GET /v1/openapi.json HTTP/1.1\r\n${HOST}x-a: b\r\n  c\r\n\r\n`,
      'control character in a header value': `GET /v1/openapi.json HTTP/1.1\r\n${HOST}x-a: b\x01c\r\n\r\n`,
      'absolute-form target': `GET http://127.0.0.1/v1/openapi.json HTTP/1.1\r\n${HOST}\r\n`,
      'bare LF line ends': 'GET /v1/openapi.json HTTP/1.1\nhost: 127.0.0.1\n\n',
    });
    for (const g of got) expect(g, g.name).toEqual({ name: g.name, ending: 'fin', received: '' });
  }, 30_000);
});
