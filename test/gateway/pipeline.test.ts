/**
 * Gateway rules through a real socket (spec 1, 2.1, 4 preamble, 5, 7, 8).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { request as httpRequest } from 'node:http';
import { areas } from '../../actors/index.ts';
import { startHarness, type Harness } from '../../support/http.ts';
import { executions, probeArea } from './probe-area.ts';
import { upgrade as connect } from '../../support/ws.ts';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ areas: [...areas, probeArea], maxBodyBytes: 64 * 1024 });
});
afterAll(async () => {
  await h.close();
});
beforeEach(() => {
  executions.count = 0;
});

const charge = { description: 'probe', price: { amount: 150000, currency: 'NGN' } };

describe('request id and transport errors (spec 7; DESIGN gateway pipeline)', () => {
  it('every response carries Service-Request-Id with prefix req_: success, 401, 404, 405, 400, 500', async () => {
    const rs = await Promise.all([
      h.request('GET', '/v1/api_keys'),
      h.request('GET', '/v1/api_keys', { key: null }),
      h.request('GET', '/v1/nowhere'),
      h.request('DELETE', '/v1/api_keys'),
      h.request('POST', '/v1/registrations', { body: '{"broken', key: null }),
      h.request('GET', '/v1/probe/fault'),
    ]);
    expect(rs.map((r) => r.status)).toEqual([200, 401, 404, 405, 400, 500]);
    const ids = rs.map((r) => r.headers['service-request-id']);
    for (const id of ids) expect(id).toMatch(/^req_[0-9A-Za-z]{22}$/);
    expect(new Set(ids).size).toBe(ids.length);
    for (const r of rs.slice(1)) expect(r.body.error.request_id).toBe(r.headers['service-request-id']);
  });

  it('unknown path answers 404 not_found in the error shape', async () => {
    const r = await h.request('GET', '/v1/unknown/thing');
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ error: { code: 'not_found', message: expect.any(String), request_id: expect.stringMatching(/^req_/), retryable: false } });
  });

  it('wrong method answers 405 method_not_allowed with Allow', async () => {
    const r = await h.request('PUT', '/v1/api_keys');
    expect(r.status).toBe(405);
    expect(r.body.error.code).toBe('method_not_allowed');
    expect(r.headers['allow']).toBe('POST, GET, HEAD');
  });

  it('a body of another media type answers 415 unsupported_media_type', async () => {
    const r = await h.request('POST', '/v1/probe/charges', { body: JSON.stringify(charge), idempotencyKey: 'k-415', headers: { 'content-type': 'text/plain' } });
    expect(r.status).toBe(415);
    expect(r.body.error.code).toBe('unsupported_media_type');
    expect(executions.count).toBe(0);
  });

  it('handlers see the request headers the platform reads, by lower-case name, and no other (docs/gaps.md#gateway)', async () => {
    const extra = { 'X-Forwarded-For': '10.0.0.1', 'Idempotency-Key': 'Mixed-Case-1' };
    const get = await h.request('GET', '/v1/probe/headers', { headers: extra });
    expect(get.status).toBe(200);
    expect(get.body.headers).toEqual({ 'service-api-key': h.key }); // a GET has no body and no Idempotency-Key to read
    const post = await h.request('POST', '/v1/probe/headers', { headers: extra, body: {} });
    expect(post.status).toBe(200);
    expect(post.body.headers).toEqual({ 'service-api-key': h.key, 'idempotency-key': 'Mixed-Case-1', 'content-type': 'application/json', 'content-length': '2' });
  });

  it('unreadable JSON answers 400 invalid_request', async () => {
    const r = await h.request('POST', '/v1/probe/charges', { body: '{"description":', idempotencyKey: 'k-unreadable' });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('invalid_request');
  });

  it('a body over the size cap answers 413 with a request id, streamed or declared', async () => {
    const big = JSON.stringify({ description: 'x'.repeat(70 * 1024), price: charge.price });
    const r = await h.request('POST', '/v1/probe/charges', { body: big, idempotencyKey: 'k-big' });
    expect(r.status).toBe(413);
    expect(r.body.error.code).toBe('payload_too_large');
    expect(r.headers['service-request-id']).toMatch(/^req_/);
    // chunked upload without a declared length
    const chunked = await new Promise<{ status: number; id: string | undefined }>((resolve, reject) => {
      const req = httpRequest(`${h.url}/v1/probe/charges`, { method: 'POST', headers: { 'content-type': 'application/json', 'service-api-key': h.key, 'idempotency-key': 'k-chunk' } }, (res) => {
        res.resume();
        resolve({ status: res.statusCode ?? 0, id: res.headers['service-request-id'] as string | undefined });
      });
      req.on('error', (e) => (e as NodeJS.ErrnoException).code === 'EPIPE' || (e as NodeJS.ErrnoException).code === 'ECONNRESET' ? undefined : reject(e));
      for (let i = 0; i < 80; i++) req.write('x'.repeat(1024));
      req.end();
    });
    expect(chunked.status).toBe(413);
    expect(chunked.id).toMatch(/^req_/);
    expect(executions.count).toBe(0);
  });

  it('a fault that is not an ApiError answers 500 internal_error without its internals', async () => {
    const r = await h.request('GET', '/v1/probe/fault');
    expect(r.status).toBe(500);
    expect(r.body.error.code).toBe('internal_error');
    expect(r.text).not.toContain('secret internals');
    expect(r.body.error.retryable).toBe(false); // a deterministic fault: the same request fails the same way
  });
});

describe('credentials and scopes (spec 5.1, 5.6)', () => {
  it('API key - Service-Api-Key and Authorization: Bearer are the same credential (spec 5.1)', async () => {
    const a = await h.request('GET', '/v1/api_keys');
    const b = await h.request('GET', '/v1/api_keys', { bearer: true });
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(b.body).toEqual(a.body);
  });

  it('no valid credential answers 401 (spec 7)', async () => {
    const none = await h.request('GET', '/v1/api_keys', { key: null });
    const wrong = await h.request('GET', '/v1/api_keys', { key: 'sk_test_' + 'A'.repeat(40) });
    const malformed = await h.request('GET', '/v1/api_keys', { key: null, headers: { authorization: 'Basic abc' } });
    for (const r of [none, wrong, malformed]) {
      expect(r.status).toBe(401);
      expect(r.body.error.code).toBe('unauthenticated');
    }
  });

  it('missing scope - 403 forbidden whose message names the scope (spec 5.6)', async () => {
    const k = await h.request('POST', '/v1/api_keys', { body: { name: 'reader', scopes: ['run:read', 'iam:read'] }, idempotencyKey: 'scope-reader' });
    expect(k.status).toBe(200);
    const write = await h.request('POST', '/v1/probe/charges', { key: k.body.key, body: charge, idempotencyKey: 'x1' });
    expect(write.status).toBe(403);
    expect(write.body.error.code).toBe('forbidden');
    expect(write.body.error.message).toContain('run:write');
    const approve = await h.request('POST', '/v1/probe/runs/run_1/approve', { key: k.body.key });
    expect(approve.status).toBe(403);
    expect(approve.body.error.message).toContain('run:approve');
    const read = await h.request('GET', '/v1/api_keys', { key: k.body.key });
    expect(read.status).toBe(200);
  });

  it('a path ending in /approve needs approve, not write (spec 5.6)', async () => {
    const k = await h.request('POST', '/v1/api_keys', { body: { name: 'approver', scopes: ['run:approve'] }, idempotencyKey: 'scope-approver' });
    const r = await h.request('POST', '/v1/probe/runs/run_1/approve', { key: k.body.key });
    expect(r.status).toBe(200);
    expect(r.body.run_id).toBe('run_1');
  });
});

describe('idempotency (spec 1.9, 8)', () => {
  it('missing Idempotency-Key on a marked POST answers 400 idempotency_key_missing', async () => {
    const r = await h.request('POST', '/v1/probe/charges', { body: charge });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('idempotency_key_missing');
    expect(executions.count).toBe(0);
  });

  it('a key longer than 255 characters is refused; 255 is accepted', async () => {
    const long = await h.request('POST', '/v1/probe/charges', { body: charge, idempotencyKey: 'k'.repeat(256) });
    expect(long.status).toBe(400);
    expect(long.body.error.code).toBe('idempotency_key_invalid');
    const max = await h.request('POST', '/v1/probe/charges', { body: charge, idempotencyKey: 'k'.repeat(255) });
    expect(max.status).toBe(200);
  });

  it('same key and body returns the original response with Service-Idempotent-Replay: true', async () => {
    const first = await h.request('POST', '/v1/probe/charges', { body: charge, idempotencyKey: 'replay-1' });
    const second = await h.request('POST', '/v1/probe/charges', { body: charge, idempotencyKey: 'replay-1' });
    expect(first.status).toBe(200);
    expect(first.headers['service-idempotent-replay']).toBeUndefined();
    expect(second.status).toBe(200);
    expect(second.headers['service-idempotent-replay']).toBe('true');
    expect(second.text).toBe(first.text);
    expect(second.headers['service-request-id']).toMatch(/^req_/);
    expect(second.headers['service-request-id']).not.toBe(first.headers['service-request-id']);
    expect(executions.count).toBe(1);
  });

  it('errors are replayed too', async () => {
    const first = await h.request('POST', '/v1/probe/refusals', { idempotencyKey: 'refusal-1' });
    const second = await h.request('POST', '/v1/probe/refusals', { idempotencyKey: 'refusal-1' });
    expect(first.status).toBe(409);
    expect(second.status).toBe(409);
    expect(second.text).toBe(first.text);
    expect(second.headers['service-idempotent-replay']).toBe('true');
    expect(executions.count).toBe(1);
  });

  it('same key with a different body answers 400 idempotency_key_reused', async () => {
    await h.request('POST', '/v1/probe/charges', { body: charge, idempotencyKey: 'reuse-1' });
    const r = await h.request('POST', '/v1/probe/charges', { body: { ...charge, description: 'other' }, idempotencyKey: 'reuse-1' });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('idempotency_key_reused');
    expect(executions.count).toBe(1);
  });

  it('50 concurrent requests with one key execute once; the others wait and replay', async () => {
    const rs = await Promise.all(Array.from({ length: 50 }, () => h.request('POST', '/v1/probe/charges', { body: charge, idempotencyKey: 'concurrent-50' })));
    expect(executions.count).toBe(1);
    expect(rs.every((r) => r.status === 200)).toBe(true);
    expect(new Set(rs.map((r) => r.text)).size).toBe(1);
    expect(rs.filter((r) => r.headers['service-idempotent-replay'] === 'true')).toHaveLength(49);
  });

  it('keys are scoped to the organisation', async () => {
    const other = await h.register();
    const a = await h.request('POST', '/v1/probe/charges', { body: charge, idempotencyKey: 'shared-key' });
    const b = await h.request('POST', '/v1/probe/charges', { key: other.key, body: charge, idempotencyKey: 'shared-key' });
    expect(a.headers['service-idempotent-replay']).toBeUndefined();
    expect(b.headers['service-idempotent-replay']).toBeUndefined();
    expect(executions.count).toBe(2);
  });

  it('records are kept at least 7 days: a retry six days later replays', async () => {
    const first = await h.request('POST', '/v1/probe/charges', { body: charge, idempotencyKey: 'days-later' });
    await h.clock.advance(6 * 24 * 3600_000 + 23 * 3600_000);
    // the harness key is fine for this long (API keys do not expire)
    const later = await h.request('POST', '/v1/probe/charges', { body: charge, idempotencyKey: 'days-later' });
    expect(later.headers['service-idempotent-replay']).toBe('true');
    expect(later.text).toBe(first.text);
    expect(executions.count).toBe(1);
  });
});

describe('validation and money (spec 2.1, 7)', () => {
  it('a refused body names every failing field in a ValidationReport', async () => {
    const r = await h.request('POST', '/v1/probe/charges', { body: { description: '', price: { amount: 5, currency: 'ZZZ' }, extra: 1 }, idempotencyKey: 'v-1' });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('validation_failed');
    const v = r.body.error.validation;
    expect(v.error_count).toBe(3);
    expect(v.entries.map((e: { field: string }) => e.field).sort()).toEqual(['/description', '/extra', '/price/currency']);
    for (const [i, e] of v.entries.entries()) expect(e).toMatchObject({ index: i + 1, severity: 'error', code: expect.any(String), detail: expect.any(String) });
  });

  it('money - a fractional amount is refused with invalid_money_amount, never rounded (spec 1.3)', async () => {
    const r = await h.request('POST', '/v1/probe/charges', { body: { ...charge, price: { amount: 1500.5, currency: 'NGN' } }, idempotencyKey: 'm-1' });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('invalid_money_amount');
    expect(r.body.error.validation.entries[0]).toMatchObject({ code: 'invalid_money_amount', field: '/price/amount' });
    expect(executions.count).toBe(0);
  });

  it('money - a fraction anywhere (nested in an array) is refused, alongside other failing fields', async () => {
    const body = { ...charge, description: '', lines: [{ label: 'a', amount: { amount: 100, currency: 'NGN' } }, { label: 'b', amount: { amount: 0.01, currency: 'NGN' } }] };
    const r = await h.request('POST', '/v1/probe/charges', { body, idempotencyKey: 'm-2' });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('invalid_money_amount');
    const fields = r.body.error.validation.entries.map((e: { field: string }) => e.field);
    expect(fields).toEqual(expect.arrayContaining(['/lines/1/amount/amount', '/description']));
  });

  it('GET /v1/currencies serves ISO 4217 minor units (NGN 2, JPY 0, BHD 3)', async () => {
    const r = await h.request('GET', '/v1/currencies', { key: null });
    expect(r.status).toBe(200);
    expect(r.body.object).toBe('list');
    const by = new Map(r.body.data.map((c: { code: string }) => [c.code, c]));
    expect(by.get('NGN')).toMatchObject({ minor_unit_digits: 2, minor_units_per_major_unit: 100 });
    expect(by.get('JPY')).toMatchObject({ minor_unit_digits: 0, minor_units_per_major_unit: 1 });
    expect(by.get('BHD')).toMatchObject({ minor_unit_digits: 3, minor_units_per_major_unit: 1000 });
  });
});

describe('WebSocket endpoints (DESIGN gateway: heartbeat socket)', () => {
  it('an upgrade without a credential is refused with 401 and a request id', async () => {
    const r = await connect(`${h.url}/v1/probe/stream`);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.status).toBe(401);
    expect(JSON.parse(r.body).error.code).toBe('unauthenticated');
    expect(r.headers['service-request-id']).toMatch(/^req_/);
  });

  it('an upgrade without the module write scope is refused with 403 naming it', async () => {
    const k = await h.request('POST', '/v1/api_keys', { body: { name: 'no match', scopes: ['match:read'] }, idempotencyKey: 'ws-scope' });
    const r = await connect(`${h.url}/v1/probe/stream`, { 'service-api-key': k.body.key });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.status).toBe(403);
    expect(JSON.parse(r.body).error.message).toContain('match:write');
  });

  it('an authenticated socket carries frames with the credential organisation; errors come back as error frames', async () => {
    const r = await connect(`${h.url}/v1/probe/stream`, { authorization: `Bearer ${h.key}` });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    r.socket.send('hello');
    const reply = JSON.parse((await r.socket.next()).text);
    expect(reply).toMatchObject({ echo: 'hello', org: h.org, request_id: expect.stringMatching(/^req_/) });
    r.socket.send('fail');
    const err = JSON.parse((await r.socket.next()).text);
    expect(err.error.code).toBe('conflict');
    r.socket.close();
  });
});
