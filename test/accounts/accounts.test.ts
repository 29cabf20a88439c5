/**
 * Accounts area through a real socket (spec 2.2, 4.1, 5).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/http.ts';
import { ALL_SCOPES, Account, ApiKey } from '../../actors/accounts/index.ts';
import { runOperatorCommand } from '../../operator/commands.ts';

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

describe('registration (spec 4.1, 5.7)', () => {
  it('needs no credential and returns organisation, account, session and the first sandbox key with key and next', async () => {
    const body = h.registration.body;
    expect(body).toMatchObject({
      object: 'registration',
      livemode: false,
      mocked: false,
      organisation: { id: expect.stringMatching(/^org_/), name: expect.any(String) },
      account: { email: h.registration.email, name: expect.any(String) },
      session: { token: expect.any(String), expires_at: expect.any(String) },
      api_key: { id: expect.stringMatching(/^api_key_/), object: 'api_key', realm: 'test', livemode: false, revoked_at: null, key: expect.any(String), next: expect.any(String) },
    });
  });

  it('the first sandbox key carries every named scope and no wildcard (spec 5.6)', () => {
    const scopes: string[] = h.registration.body.api_key.scopes;
    for (const m of ['anchor', 'proof', 'rail', 'flow', 'match', 'run', 'remit', 'route']) {
      for (const a of ['read', 'write', 'approve']) expect(scopes).toContain(`${m}:${a}`);
    }
    expect(scopes).toEqual(expect.arrayContaining(['ledger:read', 'delivery:read', 'delivery:write']));
    expect(scopes.some((s) => s.includes('*'))).toBe(false);
    expect(scopes).toEqual([...ALL_SCOPES]);
  });

  it('sandbox keys carry a test prefix and realm test (spec 5.1)', () => {
    expect(h.key).toMatch(/^sk_test_[0-9A-Za-z]{40}$/);
    expect(h.registration.body.api_key.realm).toBe('test');
  });

  it('a known email answers 409 conflict, whatever its case', async () => {
    const r = await h.request('POST', '/v1/registrations', {
      key: null,
      body: { organisation_name: 'Again Ltd', name: 'Someone', email: h.registration.email.toUpperCase(), password: 'another-long-passphrase-42' },
    });
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe('conflict');
  });

  it('a weak password is refused with a showable reason', async () => {
    const cases = [
      ['short1', 'at least 10'],
      ['password123', 'too common'],
      ['kemi.adeyemi-secret', 'email'],
    ] as const;
    for (const [password, reason] of cases) {
      const r = await h.request('POST', '/v1/registrations', { key: null, body: { organisation_name: 'Weak Co', name: 'Kemi', email: 'kemi.adeyemi@example.ng', password } });
      expect(r.status).toBe(400);
      expect(r.body.error.validation.entries[0]).toMatchObject({ code: 'weak_password', field: '/password' });
      expect(r.body.error.message).toContain(reason);
    }
  });

  it('every missing field is named', async () => {
    const r = await h.request('POST', '/v1/registrations', { key: null, body: {} });
    expect(r.status).toBe(400);
    expect(r.body.error.validation.entries.map((e: { field: string }) => e.field).sort()).toEqual(['/email', '/name', '/organisation_name', '/password']);
  });

  it('passwords are kept only as a memory-hard (scrypt) hash; key secrets are not in any record', async () => {
    const me = await h.request('GET', '/v1/me', { key: null, session: h.session });
    const accountId = (await h.platform.stores.kv.get<{ account: string }>(`account_email:${h.registration.email}`))!.account;
    const state = await h.platform.system.state<{ password: { algorithm: string; hash: string } }>(Account, accountId, h.org);
    expect(state.password.algorithm).toBe('scrypt');
    expect(JSON.stringify(state)).not.toContain(h.registration.password);
    const events = await h.platform.stores.journal.read(`${ApiKey.kind}.${h.registration.keyId}`, 0);
    expect(events.length).toBeGreaterThan(0);
    expect(JSON.stringify(events)).not.toContain(h.key);
    expect(me.text).not.toContain(h.key);
  });
});

describe('sessions (spec 5.4)', () => {
  it('POST /v1/sessions with the right password gives a session that GET /v1/me accepts', async () => {
    const s = await h.request('POST', '/v1/sessions', { key: null, body: { email: h.registration.email, password: h.registration.password } });
    expect(s.status).toBe(200);
    expect(s.body).toMatchObject({ object: 'session', token: expect.any(String), expires_at: expect.any(String) });
    const me = await h.request('GET', '/v1/me', { key: null, session: s.body.token });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ object: 'account', account: { email: h.registration.email }, organisation: { id: h.org } });
  });

  it('an unknown email and a wrong password answer identically', async () => {
    const wrong = await h.request('POST', '/v1/sessions', { key: null, body: { email: h.registration.email, password: 'not-the-password-at-all' } });
    const unknown = await h.request('POST', '/v1/sessions', { key: null, body: { email: 'nobody@example.ng', password: 'not-the-password-at-all' } });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body.error.code).toBe(unknown.body.error.code);
    expect(wrong.body.error.message).toBe(unknown.body.error.message);
  });

  it('GET /v1/me refuses an API key with 401 (spec 5.4)', async () => {
    const r = await h.request('GET', '/v1/me');
    expect(r.status).toBe(401);
    expect(r.body.error.code).toBe('unauthenticated');
    const bearer = await h.request('GET', '/v1/me', { bearer: true });
    expect(bearer.status).toBe(401);
  });

  it('a session is not an API key: key endpoints refuse it', async () => {
    const r = await h.request('GET', '/v1/api_keys', { key: null, session: h.session });
    expect(r.status).toBe(401);
  });

  it('a session stops being accepted at expires_at', async () => {
    const own = await startHarness();
    try {
      const expires = Date.parse(own.registration.body.session.expires_at);
      await own.clock.advanceTo(expires - 1);
      expect((await own.request('GET', '/v1/me', { key: null, session: own.session })).status).toBe(200);
      await own.clock.advanceTo(expires);
      const r = await own.request('GET', '/v1/me', { key: null, session: own.session });
      expect(r.status).toBe(401);
    } finally {
      await own.close();
    }
  });
});

describe('API keys (spec 2.2, 5.2, 5.6)', () => {
  it('a key is shown once: creation returns key, lists and GET /v1/me never do', async () => {
    const c = await h.request('POST', '/v1/api_keys', { body: { name: 'exports' }, idempotencyKey: 'k-once' });
    expect(c.status).toBe(200);
    expect(c.body.key).toMatch(/^sk_test_/);
    const list = await h.request('GET', '/v1/api_keys');
    expect(list.text).not.toContain(c.body.key);
    expect(list.body.data.every((k: Record<string, unknown>) => !('key' in k))).toBe(true);
    const me = await h.request('GET', '/v1/me', { key: null, session: h.session });
    expect(me.text).not.toContain(c.body.key);
    expect(me.body.api_keys.map((k: { id: string }) => k.id)).toContain(c.body.id);
  });

  it('a key is shown once: replaying its creation (same Idempotency-Key) answers key null, and no record keeps it', async () => {
    const first = await h.request('POST', '/v1/api_keys', { body: { name: 'retry me' }, idempotencyKey: 'k-replay-secret' });
    const replay = await h.request('POST', '/v1/api_keys', { body: { name: 'retry me' }, idempotencyKey: 'k-replay-secret' });
    expect(first.body.key).toMatch(/^sk_test_/);
    expect(replay.headers['service-idempotent-replay']).toBe('true');
    expect(replay.body).toEqual({ ...first.body, key: null });
    const stored = await h.platform.stores.kv.get(`idem:${h.org}:k-replay-secret`);
    expect(JSON.stringify(stored)).not.toContain(first.body.key);
  });

  it('later keys may carry fewer scopes, never more than the caller (403 naming the scope), never a wildcard', async () => {
    const narrow = await h.request('POST', '/v1/api_keys', { body: { name: 'narrow', scopes: ['iam:read', 'iam:write', 'run:read'] }, idempotencyKey: 'k-narrow' });
    expect(narrow.status).toBe(200);
    expect(narrow.body.scopes).toEqual(['run:read', 'iam:read', 'iam:write']);
    const wider = await h.request('POST', '/v1/api_keys', { key: narrow.body.key, body: { name: 'wider', scopes: ['run:read', 'run:approve'] }, idempotencyKey: 'k-wider' });
    expect(wider.status).toBe(403);
    expect(wider.body.error.code).toBe('forbidden');
    expect(wider.body.error.message).toContain('run:approve');
    const wild = await h.request('POST', '/v1/api_keys', { body: { name: 'wild', scopes: ['run:*'] }, idempotencyKey: 'k-wild' });
    expect(wild.status).toBe(400);
    const star = await h.request('POST', '/v1/api_keys', { body: { name: 'star', scopes: ['*'] }, idempotencyKey: 'k-star' });
    expect(star.status).toBe(400);
    // default: the caller's own scopes
    const inherit = await h.request('POST', '/v1/api_keys', { key: narrow.body.key, body: { name: 'inherit' }, idempotencyKey: 'k-inherit' });
    expect(inherit.body.scopes).toEqual(['run:read', 'iam:read', 'iam:write']);
  });

  it('a revoked key stops at once (401) and stays listed with revoked_at', async () => {
    const c = await h.request('POST', '/v1/api_keys', { body: { name: 'to revoke' }, idempotencyKey: 'k-revoke' });
    expect((await h.request('GET', '/v1/api_keys', { key: c.body.key })).status).toBe(200);
    const rv = await h.request('POST', `/v1/api_keys/${c.body.id}/revoke`, { idempotencyKey: 'rv-1' });
    expect(rv.status).toBe(200);
    expect(rv.body.revoked_at).toBe(new Date(h.clock.now()).toISOString());
    const after = await h.request('GET', '/v1/api_keys', { key: c.body.key });
    expect(after.status).toBe(401);
    const bearer = await h.request('GET', '/v1/api_keys', { key: c.body.key, bearer: true });
    expect(bearer.status).toBe(401);
    const list = await h.request('GET', '/v1/api_keys?limit=100');
    const listed = list.body.data.find((k: { id: string }) => k.id === c.body.id);
    expect(listed).toMatchObject({ id: c.body.id, revoked_at: rv.body.revoked_at });
  });

  it('revoking a revoked key answers 409 conflict', async () => {
    const c = await h.request('POST', '/v1/api_keys', { body: { name: 'twice' }, idempotencyKey: 'k-twice' });
    await h.request('POST', `/v1/api_keys/${c.body.id}/revoke`, { idempotencyKey: 'rv-twice-1' });
    const again = await h.request('POST', `/v1/api_keys/${c.body.id}/revoke`, { idempotencyKey: 'rv-twice-2' });
    expect(again.status).toBe(409);
  });

  it('a record of another organisation answers 403 organisation_mismatch (spec 5.5)', async () => {
    const other = await h.register();
    const r = await h.request('POST', `/v1/api_keys/${other.keyId}/revoke`, { idempotencyKey: 'cross-org' });
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe('organisation_mismatch');
    expect((await h.request('GET', '/v1/api_keys', { key: other.key })).status).toBe(200);
  });

  it('an unknown key id answers 404', async () => {
    const r = await h.request('POST', '/v1/api_keys/api_key_doesnotexist0000000000/revoke', { idempotencyKey: 'unknown-id' });
    expect(r.status).toBe(404);
  });

  it('session-authenticated /v1/account/api_keys creates and revokes keys', async () => {
    const c = await h.request('POST', '/v1/account/api_keys', { key: null, session: h.session, body: { name: 'from the dashboard', scopes: ['ledger:read'] }, idempotencyKey: 'acct-1' });
    expect(c.status).toBe(200);
    expect(c.body).toMatchObject({ object: 'api_key', realm: 'test', scopes: ['ledger:read'], key: expect.stringMatching(/^sk_test_/) });
    const withKey = await h.request('POST', '/v1/account/api_keys', { body: { name: 'x' }, idempotencyKey: 'acct-2' });
    expect(withKey.status).toBe(401);
    const rv = await h.request('POST', `/v1/account/api_keys/${c.body.id}/revoke`, { key: null, session: h.session, idempotencyKey: 'acct-rv' });
    expect(rv.status).toBe(200);
    expect(rv.body.revoked_at).not.toBeNull();
  });
});

describe('lists (spec 2.1, 4 preamble, 8)', () => {
  it('limit 0 and 101 are refused with 400; 1 and 100 are accepted', async () => {
    for (const limit of [0, 101, -1]) {
      const r = await h.request('GET', `/v1/api_keys?limit=${limit}`);
      expect(r.status).toBe(400);
      expect(r.body.error.validation.entries[0].field).toBe('/query/limit');
    }
    expect((await h.request('GET', '/v1/api_keys?limit=abc')).status).toBe(400);
    expect((await h.request('GET', '/v1/api_keys?limit=1')).status).toBe(200);
    expect((await h.request('GET', '/v1/api_keys?limit=100')).status).toBe(200);
  });

  it('pages newest first with has_more; default limit 25', async () => {
    const own = await startHarness();
    try {
      for (let i = 0; i < 27; i++) {
        await own.clock.advance(1000);
        await own.request('POST', '/v1/api_keys', { body: { name: `k${i}` }, idempotencyKey: `page-${i}` });
      }
      const first = await own.request('GET', '/v1/api_keys');
      expect(first.body).toMatchObject({ object: 'list', has_more: true });
      expect(first.body.data).toHaveLength(25);
      expect(first.body.data[0].name).toBe('k26');
      const last = first.body.data[24].id;
      const second = await own.request('GET', `/v1/api_keys?starting_after=${last}`);
      expect(second.body.has_more).toBe(false);
      expect(second.body.data.map((k: { name: string }) => k.name)).toEqual(['k1', 'k0', 'First sandbox key']);
    } finally {
      await own.close();
    }
  });

  it('a starting_after of another organisation gives an empty page, not a refusal', async () => {
    const other = await h.register();
    const r = await h.request('GET', `/v1/api_keys?starting_after=${other.keyId}`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ object: 'list', data: [], has_more: false });
    const unknown = await h.request('GET', '/v1/api_keys?starting_after=api_key_nope');
    expect(unknown.body).toEqual({ object: 'list', data: [], has_more: false });
  });
});

describe('token grant (spec 5.3, 8)', () => {
  let client: { id: string; client_secret: string };
  beforeAll(async () => {
    client = (await runOperatorCommand(h.platform, { op: 'issue-client', org: h.org, name: 'payroll sync', scopes: ['run:read', 'run:write', 'iam:read'] })) as typeof client;
  });

  it('client_credentials gives a Bearer access token carrying the organisation and the requested scopes', async () => {
    const t = await h.request('POST', '/v1/oauth/token', { key: null, body: { grant_type: 'client_credentials', client_id: client.id, client_secret: client.client_secret, scope: 'iam:read' } });
    expect(t.status).toBe(200);
    expect(t.body).toMatchObject({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 900, scope: 'iam:read' });
    expect(t.body).not.toHaveProperty('refresh_token');
    const list = await h.request('GET', '/v1/api_keys', { key: t.body.access_token, bearer: true });
    expect(list.status).toBe(200);
    expect(list.body.data.map((k: { id: string }) => k.id)).toContain(h.registration.keyId);
    const write = await h.request('POST', '/v1/api_keys', { key: t.body.access_token, bearer: true, body: { name: 'x' }, idempotencyKey: 'tok-w' });
    expect(write.status).toBe(403);
    expect(write.body.error.message).toContain('iam:write');
  });

  it('a token never carries more than its client was granted', async () => {
    const t = await h.request('POST', '/v1/oauth/token', { key: null, body: { grant_type: 'client_credentials', client_id: client.id, client_secret: client.client_secret, scope: 'run:read run:approve' } });
    expect(t.status).toBe(403);
    expect(t.body.error.message).toContain('run:approve');
    const all = await h.request('POST', '/v1/oauth/token', { key: null, body: { grant_type: 'client_credentials', client_id: client.id, client_secret: client.client_secret } });
    expect(all.body.scope).toBe('run:read run:write iam:read');
  });

  it('an unknown client and a wrong secret produce the same response', async () => {
    const wrong = await h.request('POST', '/v1/oauth/token', { key: null, body: { grant_type: 'client_credentials', client_id: client.id, client_secret: 'cs_test_wrong' } });
    const unknown = await h.request('POST', '/v1/oauth/token', { key: null, body: { grant_type: 'client_credentials', client_id: 'client_unknown', client_secret: 'cs_test_wrong' } });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(wrong.status);
    expect(unknown.body.error.code).toBe(wrong.body.error.code);
    expect(unknown.body.error.message).toBe(wrong.body.error.message);
  });

  it('another grant type is refused', async () => {
    const r = await h.request('POST', '/v1/oauth/token', { key: null, body: { grant_type: 'refresh_token', client_id: client.id, client_secret: client.client_secret } });
    expect(r.status).toBe(400);
    expect(r.body.error.validation.entries[0].field).toBe('/grant_type');
  });

  it('an access token lasts fifteen minutes (manual clock)', async () => {
    const own = await startHarness();
    try {
      const c = (await runOperatorCommand(own.platform, { op: 'issue-client', org: own.org, name: 'c', scopes: ['iam:read'] })) as typeof client;
      const t = await own.request('POST', '/v1/oauth/token', { key: null, body: { grant_type: 'client_credentials', client_id: c.id, client_secret: c.client_secret } });
      expect(Date.parse(t.body.expires_at) - own.clock.now()).toBe(15 * 60_000);
      await own.clock.advance(15 * 60_000 - 1);
      expect((await own.request('GET', '/v1/api_keys', { key: t.body.access_token, bearer: true })).status).toBe(200);
      await own.clock.advance(1);
      const expired = await own.request('GET', '/v1/api_keys', { key: t.body.access_token, bearer: true });
      expect(expired.status).toBe(401);
      expect(expired.body.error.code).toBe('unauthenticated');
    } finally {
      await own.close();
    }
  });

  it('a revoked client can mint no more tokens', async () => {
    const c = (await runOperatorCommand(h.platform, { op: 'issue-client', org: h.org, name: 'short-lived', scopes: ['iam:read'] })) as typeof client;
    await runOperatorCommand(h.platform, { op: 'revoke-client', org: h.org, client: c.id });
    const t = await h.request('POST', '/v1/oauth/token', { key: null, body: { grant_type: 'client_credentials', client_id: c.id, client_secret: c.client_secret } });
    expect(t.status).toBe(401);
  });
});

describe('support access (spec 2.2, 4.1)', () => {
  it('entries recorded by the operator are listed to the organisation, newest first, and to no other', async () => {
    const own = await startHarness();
    try {
      await runOperatorCommand(own.platform, { op: 'support-access', org: own.org, action: 'GET /v1/payroll/runs/run_1', purpose: 'ticket 1', staff: 'a.bello' });
      await own.clock.advance(60_000);
      await runOperatorCommand(own.platform, { op: 'support-access', org: own.org, action: 'GET /v1/ledger/accounts', purpose: 'ticket 2', staff: 'a.bello' });
      const r = await own.request('GET', '/v1/support_access');
      expect(r.status).toBe(200);
      expect(r.body.data.map((e: { purpose: string }) => e.purpose)).toEqual(['ticket 2', 'ticket 1']);
      expect(r.body.data[0]).toEqual({ id: expect.stringMatching(/^sta_/), object: 'support_access', livemode: false, mocked: false, at: expect.any(String), action: 'GET /v1/ledger/accounts', purpose: 'ticket 2' });
      expect((await own.request('GET', '/v1/support_access?limit=1')).body).toMatchObject({ has_more: true });
      const other = await own.register();
      expect((await own.request('GET', '/v1/support_access', { key: other.key })).body.data).toEqual([]);
    } finally {
      await own.close();
    }
  });
});
