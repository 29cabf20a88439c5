/**
 * Idempotency when the first answer was lost (spec 1.9, 8; STYLE "Idempotency is a rule with three
 * outcomes": a retry through another node is safe even if the key store missed). A node that dies
 * after a create committed but before the idempotency record was kept leaves the client to retry
 * and the create to run again. Each test runs a create, then deletes the kept idempotency record
 * (what the lost node never wrote), then retries with the same key and body: nothing is made twice.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/http.ts';
import { jsonRow } from '../payroll/support.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ config: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' } });
});
afterAll(async () => {
  await h.close();
});

/** The same request twice, the idempotency record of the first forgotten in between. */
async function rerun(path: string, body: unknown, key: string) {
  const first = await h.request('POST', path, { body, idempotencyKey: key });
  expect(first.status, first.text).toBeLessThan(300);
  await h.platform.stores.kv.delete(`idem:${h.org}:${key}`);
  const second = await h.request('POST', path, { body, idempotencyKey: key });
  expect(second.status, second.text).toBeLessThan(300);
  expect(second.headers['service-idempotent-replay']).toBeUndefined(); // it really ran again
  return { first: first.body, second: second.body };
}

describe('a create run again with the same Idempotency-Key makes nothing twice (spec 1.9, 8)', () => {
  it('POST /v1/api_keys - the same key, with a fresh secret; the undelivered secret stops working', async () => {
    const { first, second } = await rerun('/v1/api_keys', { name: 'rerun key', scopes: ['run:read'] }, 'ik-rerun-key');
    expect(second.id).toBe(first.id);
    expect(second.key).not.toBe(first.key);
    expect((await h.request('GET', '/v1/payroll/runs', { key: second.key })).status).toBe(200);
    expect((await h.request('GET', '/v1/payroll/runs', { key: first.key })).status).toBe(401);
    const all = await h.request('GET', '/v1/api_keys?limit=100');
    expect(all.body.data.filter((k: { name: string }) => k.name === 'rerun key')).toHaveLength(1);
  });

  it('POST /v1/webhook_endpoints - the same endpoint; its secret is not shown a second time', async () => {
    const { first, second } = await rerun('/v1/webhook_endpoints', { url: 'http://127.0.0.1:9/rerun' }, 'ik-rerun-endpoint');
    expect(second.id).toBe(first.id);
    expect(typeof first.secret).toBe('string');
    expect(second.secret).toBeNull();
    expect(second.secret_digests).toEqual(first.secret_digests);
    const all = await h.request('GET', '/v1/webhook_endpoints');
    expect(all.body.data.filter((e: { url: string }) => e.url === 'http://127.0.0.1:9/rerun')).toHaveLength(1);
  });

  it('POST /v1/payroll/runs - the same run', async () => {
    const { first, second } = await rerun('/v1/payroll/runs', { period: '2026-03', run_type: 'regular' }, 'ik-rerun-run');
    expect(second.id).toBe(first.id);
    const runs = await h.request('GET', '/v1/payroll/runs?period=2026-03');
    expect(runs.body.data).toHaveLength(1);
  });

  it('POST /v1/payroll/imports - the same import, pay profiles and roster entries', async () => {
    const row = jsonRow({ payee_ref: 'emp_rerun_1', monthly_basic: 4_000_000, monthly_housing: 1_500_000, monthly_transport: 1_000_000, monthly_other_allowances: 500_000, state_of_residence: 'NG-LA', nhf_contributing: true });
    const { first, second } = await rerun('/v1/payroll/imports', { format: 'json', rows: [row] }, 'ik-rerun-import');
    expect(second.id).toBe(first.id);
    expect(second.rows).toEqual(first.rows);
    const profile = await h.request('GET', `/v1/pay_profiles/${first.rows[0].pay_profile_id}`);
    expect(profile.status).toBe(200);
  });
});
