/** Ledger reads through the HTTP API (spec 1 rule 5, 2.3, 4.2, 5.6). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/http.ts';
import { STARTING_CHART } from '../../actors/ledger/index.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

describe('ledger over HTTP', () => {
  it('GET /v1/ledger/accounts - the starting chart in code order, zero (not absent) for accounts never posted to (spec 2.3, 4.2)', async () => {
    const o = await h.register();
    const r = await h.request('GET', '/v1/ledger/accounts', { key: o.key });
    expect(r.status, r.text).toBe(200);
    expect(r.body.object).toBe('list');
    expect(r.body.has_more).toBe(false);
    expect(r.body.data.map((a: any) => a.code)).toEqual(STARTING_CHART.map((e) => e.code).sort());
    for (const a of r.body.data) {
      expect(a).toMatchObject({ object: 'ledger_account', livemode: false, mocked: false, currency: 'NGN', balance: { amount: 0, currency: 'NGN' } });
      expect(a.id).toMatch(/^ledger_account_/);
      expect(['asset', 'liability', 'expense', 'equity']).toContain(a.kind);
    }
    const again = await h.request('GET', '/v1/ledger/accounts', { key: o.key });
    expect(again.body.data.map((a: any) => a.id)).toEqual(r.body.data.map((a: any) => a.id));
  });

  it('no endpoint writes a posting and no ledger write scope exists (spec 1 rule 5)', async () => {
    const o = await h.register();
    const post = await h.request('POST', '/v1/ledger/postings', { key: o.key, idempotencyKey: 'ik-ledger-1', body: { lines: [] } });
    expect([404, 405]).toContain(post.status);
    const empty = await h.request('GET', '/v1/ledger/postings', { key: o.key });
    expect(empty.body).toEqual({ object: 'list', data: [], has_more: false });
    expect((await h.request('GET', '/v1/ledger/postings/ledger_posting_missing', { key: o.key })).status).toBe(404);
    expect((await h.request('GET', '/v1/ledger/postings/not_a_posting', { key: o.key })).status).toBe(404);
    const routes = h.platform.areas.flatMap((a) => a.routes).filter((r) => r.path.startsWith('/v1/ledger'));
    expect(routes.every((r) => r.method === 'GET' && r.module === 'ledger')).toBe(true);
  });
});
