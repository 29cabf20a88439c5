/**
 * A revoked API key stops authenticating (spec 5.2) even when the derived records that find its
 * credential are missing or stale (docs/gaps.md#accounts "Revocation without the derived records"):
 * the revocation in the journal is what authentication checks, not only what the key-value store
 * still holds.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../runtime/index.ts';
import { type Harness, startHarness } from '../../support/http.ts';
import { localTestStores, storeFamily, tempDir } from '../../support/stores.ts';

const harnesses: Harness[] = [];
afterEach(async () => {
  for (const h of harnesses.splice(0)) await h.close();
});

async function harness(opts: Parameters<typeof startHarness>[0] = {}): Promise<Harness> {
  const h = await startHarness(opts);
  harnesses.push(h);
  return h;
}

async function newKey(h: Harness, name: string): Promise<{ id: string; key: string }> {
  const c = await h.request('POST', '/v1/api_keys', { body: { name }, idempotencyKey: `k-${name}` });
  expect(c.status).toBe(200);
  expect((await h.request('GET', '/v1/api_keys', { key: c.body.key })).status).toBe(200);
  return { id: c.body.id, key: c.body.key };
}

describe('revoke - the secret stops (401) even when a derived record is missing (spec 5.2)', () => {
  it('the record that finds the credential from the key id is gone: revoke, and the secret answers 401', async () => {
    const h = await harness();
    const k = await newKey(h, 'digest-lost');
    await h.platform.stores.kv.delete(`api_key_digest:${k.id}`);
    const rv = await h.request('POST', `/v1/api_keys/${k.id}/revoke`, { idempotencyKey: 'rv-digest-lost' });
    expect(rv.status).toBe(200);
    expect(rv.body.revoked_at).not.toBeNull();
    const after = await h.request('GET', '/v1/api_keys', { key: k.key });
    expect({ status: after.status, code: after.body.error?.code }).toEqual({ status: 401, code: 'unauthenticated' });
    expect((await h.request('GET', '/v1/api_keys', { key: k.key, bearer: true })).status).toBe(401);
  });

  it('the digest record is stale (names another digest): revoke, and the secret answers 401', async () => {
    const h = await harness();
    const k = await newKey(h, 'digest-stale');
    await h.platform.stores.kv.set(`api_key_digest:${k.id}`, '0'.repeat(64));
    expect((await h.request('POST', `/v1/api_keys/${k.id}/revoke`, { idempotencyKey: 'rv-digest-stale' })).status).toBe(200);
    expect((await h.request('GET', '/v1/api_keys', { key: k.key })).status).toBe(401);
  });

  it('other keys of the organisation keep working', async () => {
    const h = await harness();
    const gone = await newKey(h, 'gone');
    const kept = await newKey(h, 'kept');
    await h.platform.stores.kv.delete(`api_key_digest:${gone.id}`);
    expect((await h.request('POST', `/v1/api_keys/${gone.id}/revoke`, { idempotencyKey: 'rv-gone' })).status).toBe(200);
    expect((await h.request('GET', '/v1/api_keys', { key: gone.key })).status).toBe(401);
    expect((await h.request('GET', '/v1/api_keys', { key: kept.key })).status).toBe(200);
  });

  it.runIf(storeFamily() === 'local')('after a restart the revocation is read again from the journal: the left-over credential still answers 401', async () => {
    const dir = tempDir();
    const clock = new ManualClock();
    const first = await startHarness({ clock, stores: localTestStores(clock, { dir, keep: true }) });
    const k = await newKey(first, 'restart');
    await first.platform.stores.kv.delete(`api_key_digest:${k.id}`);
    expect((await first.request('POST', `/v1/api_keys/${k.id}/revoke`, { idempotencyKey: 'rv-restart' })).status).toBe(200);
    await first.close();
    const second = await harness({ clock, stores: localTestStores(clock, { dir }) });
    expect((await second.request('GET', '/v1/api_keys', { key: k.key })).status).toBe(401);
    expect((await second.request('GET', '/v1/api_keys')).status).toBe(200);
  });
});
