/**
 * Rate limits (docs/gaps.md#rate-limits; gateway/rate-limits.ts): token buckets per credential, per
 * organisation and per client address for POSTs without a credential, from a rate policy pack, on
 * the platform's clock. Over a real socket: a key over its budget is refused 429 rate_limited with
 * Retry-After and RateLimit headers and served again once the clock has refilled its bucket;
 * another organisation is served meanwhile; the organisation's bucket holds over all its keys; a
 * flood of wrong-password sign-ins from one address is refused while a person on another address
 * signs in at once.
 */
import { request as httpRequest } from 'node:http';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/http.ts';
import { tempDir } from '../../support/stores.ts';

const rule = (per_second: number, burst: number) => ({ per_second, burst });
const PACK = {
  name: 'gateway_rate_policy',
  version: '2026.11.1',
  credential: { api_key: rule(2, 3), access_token: rule(2, 3), session: rule(2, 3), device: rule(2, 3) },
  organisation: { sandbox: rule(4, 5), live: rule(4, 5) },
  unauthenticated: { address: rule(1, 6) },
  buckets_kept: 1_000,
};

let h: Harness;
beforeAll(async () => {
  const file = join(tempDir('wf-rate-'), 'pack.json');
  writeFileSync(file, JSON.stringify(PACK));
  h = await startHarness({ config: { RATE_POLICY_FILE: file } });
});
afterAll(async () => h?.close());

/** A POST from a chosen loopback address (127.0.0.0/8 is all this host's). */
function postFrom(address: string, path: string, body: unknown): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: any }> {
  return new Promise((resolve, reject) => {
    const text = JSON.stringify(body);
    const req = httpRequest({ host: '127.0.0.1', port: h.port, path, method: 'POST', localAddress: address, agent: false, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) } }, (res) => {
      let data = '';
      res.on('data', (c) => (data += c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: data ? JSON.parse(data) : undefined }));
    });
    req.on('error', reject);
    req.end(text);
  });
}

describe('rate limits (docs/gaps.md#rate-limits)', () => {
  it('a key over its budget gets 429 rate_limited with Retry-After and RateLimit headers, and is served again once its bucket refilled', async () => {
    await h.clock.advance(60_000); // every bucket full
    const { key } = await h.register();
    await h.clock.advance(60_000);
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await h.request('GET', '/v1/api_keys', { key })).status);
    expect(statuses).toEqual([200, 200, 200]);
    const refused = await h.request('GET', '/v1/api_keys', { key });
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({ code: 'rate_limited', retryable: true });
    expect(refused.body.error.message).toMatch(/credential/);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.headers).toMatchObject({ 'ratelimit-limit': '3', 'ratelimit-remaining': '0' });
    expect(refused.headers['service-request-id']).toMatch(/^req_/);
    // still refused until the clock has moved, now from the request's head alone (before its
    // credential is checked), saying when to send again; a refusal takes nothing from the bucket
    const again = await h.request('GET', '/v1/api_keys', { key });
    expect(again.status).toBe(429);
    expect(again.body.error).toMatchObject({ code: 'rate_limited', retryable: true });
    expect(again.headers['retry-after']).toBe('1');
    expect(await h.gateway.metrics.registry.getSingleMetricAsString('platform_http_requests_total')).toMatch(/route="over_budget",method="GET",status="429"/);
    await h.clock.advance(Number(refused.headers['retry-after']) * 1000);
    expect((await h.request('GET', '/v1/api_keys', { key })).status).toBe(200);
  });

  it("another organisation is served while one organisation's key is refused", async () => {
    await h.clock.advance(60_000);
    const a = await h.register();
    const b = await h.register();
    await h.clock.advance(60_000);
    for (let i = 0; i < 3; i++) await h.request('GET', '/v1/api_keys', { key: a.key });
    expect((await h.request('GET', '/v1/api_keys', { key: a.key })).status).toBe(429);
    expect((await h.request('GET', '/v1/api_keys', { key: b.key })).status).toBe(200);
  });

  it("an organisation's bucket holds over all its keys: a second key of the same organisation is refused with it", async () => {
    await h.clock.advance(60_000);
    const a = await h.register();
    await h.clock.advance(60_000);
    const second = await h.request('POST', '/v1/api_keys', { key: a.key, idempotencyKey: 'second-key', body: { name: 'second' } });
    expect(second.status).toBe(200);
    await h.clock.advance(60_000);
    // the organisation's burst is 5: three on the first key, two on the second, then the sixth is refused
    for (let i = 0; i < 3; i++) expect((await h.request('GET', '/v1/api_keys', { key: a.key })).status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await h.request('GET', '/v1/api_keys', { key: second.body.key })).status).toBe(200);
    const refused = await h.request('GET', '/v1/api_keys', { key: second.body.key });
    expect(refused.status).toBe(429);
    expect(refused.body.error.message).toMatch(/organisation/);
  });

  it('a flood of wrong-password sign-ins from one address is refused 429 before any password check, while a person on another address signs in meanwhile', async () => {
    await h.clock.advance(60_000);
    const person = await h.register();
    await h.clock.advance(60_000);
    const flood = await Promise.all(Array.from({ length: 40 }, () => postFrom('127.0.0.3', '/v1/sessions', { email: person.email, password: 'not-the-password-at-all' })));
    const counts = flood.reduce<Record<number, number>>((c, r) => ((c[r.status] = (c[r.status] ?? 0) + 1), c), {});
    expect(counts).toEqual({ 401: 6, 429: 34 });
    expect(flood.find((r) => r.status === 429)!.body.error.message).toMatch(/address/);
    // the clock has not moved: the other address's bucket is its own
    const signIn = await postFrom('127.0.0.4', '/v1/sessions', { email: person.email, password: person.password });
    expect(signIn.status).toBe(200);
  });
});
