/**
 * Health and HEAD (docs/gaps.md#health; RFC 9110 9.3.2). Over a real socket: /healthz and /readyz
 * answer without a credential; /readyz answers 503 unavailable once the platform is stopping;
 * HEAD is answered wherever GET is, with GET's status and Content-Length and no body, and a 405
 * names HEAD among the allowed methods where GET is.
 */
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/http.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h?.close());

/** Node's client reads no body after a HEAD: the raw bytes received tell whether one was sent. */
function head(path: string, key: string): Promise<{ status: number; length: string | undefined; bytes: number }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: h.port, path, method: 'HEAD', agent: false, headers: { 'service-api-key': key } }, (res) => {
      let bytes = 0;
      res.on('data', (c: Buffer) => (bytes += c.length));
      res.on('end', () => resolve({ status: res.statusCode!, length: res.headers['content-length'], bytes }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('health and HEAD', () => {
  it('HEAD on a GET route answers GET\'s status and Content-Length with no body', async () => {
    const get = await h.request('GET', '/v1/api_keys');
    expect(get.status).toBe(200);
    const r = await head('/v1/api_keys', h.key);
    expect(r).toEqual({ status: 200, length: String(Buffer.byteLength(get.text)), bytes: 0 });
    expect((await head('/v1/api_keys/api_key_nosuchkey00000000000', h.key)).status).toBe(404);
  });

  it('a 405 names HEAD among the allowed methods where GET is allowed', async () => {
    const r = await h.request('DELETE', '/v1/api_keys');
    expect(r.status).toBe(405);
    expect(r.headers.allow.split(', ').sort()).toEqual(['GET', 'HEAD', 'POST']);
  });

  it('/healthz and /readyz answer without a credential; /readyz is 503 unavailable once the platform stops', async () => {
    expect((await h.request('GET', '/healthz', { key: null })).body).toEqual({ object: 'health', status: 'alive' });
    const ready = await h.request('GET', '/readyz', { key: null });
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({ object: 'health', status: 'ready' });
    await h.platform.system.stop();
    const stopping = await h.request('GET', '/readyz', { key: null });
    expect(stopping.status).toBe(503);
    expect(stopping.body.error).toMatchObject({ code: 'unavailable', retryable: true });
    expect((await h.request('GET', '/healthz', { key: null })).status).toBe(200);
  });
});
