/**
 * The OpenAPI document says what the code does for refusals too (DESIGN "Gateway"; spec 7): the
 * catalogue codes a route declares in `errors` (kernel/area.ts) are documented responses at the
 * code's catalogue status, with the one error body, and the route really answers that status.
 * The same answers are checked in depth where each rule lives (test/accounts/accounts.test.ts:
 * "an unknown email and a wrong password answer identically", "an unknown client and a wrong
 * secret produce the same response"; test/allocation/heartbeats.http.test.ts: "a worker with no
 * availability record is 404 ...").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueClient } from '../../actors/accounts/index.ts';
import { areas } from '../../actors/index.ts';
import { CATALOGUE } from '../../kernel/index.ts';
import { startHarness, type Harness } from '../../support/http.ts';
import { heartbeats, reading, workerId } from '../allocation/support.ts';

let h: Harness;
let doc: any;
beforeAll(async () => {
  h = await startHarness();
  doc = (await h.request('GET', '/v1/openapi.json', { key: null })).body;
});
afterAll(() => h.close());

const ERROR_SCHEMA = { $ref: '#/components/schemas/Error' };
const response = (method: string, path: string, status: number) => doc.paths[path]?.[method.toLowerCase()]?.responses?.[String(status)];

describe('declared error responses (OpenAPI; spec 7)', () => {
  it('every code a route declares in errors is a response at its catalogue status with the error body', () => {
    const declared = areas.flatMap((a) => a.routes).filter((r) => r.errors?.length);
    expect(declared.length).toBeGreaterThanOrEqual(3);
    for (const r of declared) {
      for (const code of r.errors!) {
        const res = response(r.method, r.path, CATALOGUE[code].status);
        expect(res, `${r.method} ${r.path} ${code}`).toBeDefined();
        expect(res.content['application/json'].schema).toEqual(ERROR_SCHEMA);
      }
    }
  });

  it('POST /v1/oauth/token documents 401 and answers it for an unknown client and for a wrong secret (spec 5 item 3)', async () => {
    expect(response('POST', '/v1/oauth/token', 401)?.description).toContain('unauthenticated');
    const client = await issueClient(h.platform, { org: h.org, name: 'openapi check', scopes: ['iam:read'] });
    for (const client_id of ['client_unknown', client.id]) {
      const r = await h.request('POST', '/v1/oauth/token', { key: null, body: { grant_type: 'client_credentials', client_id, client_secret: 'cs_test_wrong' } });
      expect(r.status, r.text).toBe(401);
      expect(r.body.error.code).toBe('unauthenticated');
    }
  });

  it('POST /v1/sessions documents 401 and answers it for a wrong password (spec 5 item 4)', async () => {
    expect(response('POST', '/v1/sessions', 401)?.description).toContain('unauthenticated');
    const r = await h.request('POST', '/v1/sessions', { key: null, body: { email: h.registration.email, password: 'not-the-password-at-all' } });
    expect(r.status, r.text).toBe(401);
    expect(r.body.error.code).toBe('unauthenticated');
  });

  it('POST /v1/allocation/heartbeats documents 404 and answers it for an unknown worker (spec 4.7)', async () => {
    expect(response('POST', '/v1/allocation/heartbeats', 404)?.description).toContain('not_found');
    const r = await heartbeats(h, { worker_id: workerId(), readings: [reading(h.clock.now())] });
    expect(r.status, r.text).toBe(404);
    expect(r.body.error.code).toBe('not_found');
  });
});
