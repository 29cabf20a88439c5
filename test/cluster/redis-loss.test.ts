/**
 * Losing Redis costs a rebuild, never a record, a credential or a timer (DESIGN "Stores";
 * docs/cluster.md "What runs where"). A platform over the shared NATS and a redis-server of this
 * file's own, through the real gateway; each rule writes what it needs, Redis is emptied (FLUSHALL,
 * or killed and started again empty), and the rule holds after. Time is the harness's ManualClock.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueClient } from '../../actors/accounts/index.ts';
import { ManualClock } from '../../runtime/index.ts';
import { createClusterStores, type ClusterStores } from '../../stores/index.ts';
import { startHarness, type Harness } from '../../support/http.ts';
import { natsUrl, testNamespace } from '../../support/stores.ts';
import { consent, subject } from '../identity/support.ts';
import { OwnRedis } from '../../support/chaos/redis-server.ts';

let redis: OwnRedis;
let stores: ClusterStores;
let h: Harness;
let n = 0;
const ik = (what: string) => `redis-loss-${what}-${process.pid}-${++n}`;

beforeAll(async () => {
  redis = await OwnRedis.start();
  const clock = new ManualClock();
  stores = await createClusterStores({ natsUrl: natsUrl(), redisUrl: redis.url, now: () => clock.now(), namespace: testNamespace('redisloss'), ephemeral: true });
  h = await startHarness({ clock, stores });
}, 60_000);

afterAll(async () => {
  await h?.close();
  await stores?.close().catch(() => {});
  await redis?.stop();
});

const authenticates = async (key: string) => (await h.request('GET', '/v1/api_keys', { key })).status;

describe('Redis emptied under a cluster platform (DESIGN "Stores": JetStream holds what cannot be recomputed)', { timeout: 60_000 }, () => {
  it('spec 5: every API key still authenticates after FLUSHALL, and one issued after it too', async () => {
    const made = await h.request('POST', '/v1/api_keys', { body: { name: 'kept through a flush' }, idempotencyKey: ik('key') });
    expect(made.status, made.text).toBe(200);
    await redis.flushAll();
    expect(await authenticates(h.key)).toBe(200);
    expect(await authenticates(made.body.key)).toBe(200);
    const after = await h.request('POST', '/v1/api_keys', { body: { name: 'issued after the flush' }, idempotencyKey: ik('key') });
    expect(after.status, after.text).toBe(200);
    expect(await authenticates(after.body.key)).toBe(200);
    expect(await authenticates(`${made.body.key}x`)).toBe(401);
  });

  it('spec 5, 4.1: sign-in by email and password, an issued session and a device credential still authenticate after Redis is killed and started empty', async () => {
    const device = await h.request('POST', '/v1/allocation/device_credentials', { body: { worker_id: `wrk_redis_loss_${process.pid}`, name: 'phone' }, idempotencyKey: ik('device') });
    expect(device.status, device.text).toBe(201);
    await redis.restartEmpty();
    const me = await h.request('GET', '/v1/me', { key: null, session: h.session });
    expect(me.status, me.text).toBe(200);
    const signIn = await h.request('POST', '/v1/sessions', { key: null, body: { email: h.registration.email, password: h.registration.password } });
    expect(signIn.status, signIn.text).toBe(200);
    expect((await h.request('GET', '/v1/me', { key: null, session: signIn.body.token })).status).toBe(200);
    const moved = await h.request('PUT', `/v1/allocation/availability/wrk_redis_loss_${process.pid}`, { body: { availability: 'available' }, key: device.body.key });
    expect(moved.status, moved.text).toBe(200);
  });

  it('spec 5 item 3: an OAuth client still grants access tokens after FLUSHALL, and a token granted before it still authenticates', async () => {
    const client = await issueClient(h.platform, { org: h.org, name: 'kept through a flush', scopes: ['iam:read'] });
    const grant = () => h.request('POST', '/v1/oauth/token', { key: null, body: { grant_type: 'client_credentials', client_id: client.id, client_secret: client.client_secret } });
    const before = await grant();
    expect(before.status, before.text).toBe(200);
    await redis.flushAll();
    expect((await h.request('GET', '/v1/api_keys', { key: before.body.access_token, bearer: true })).status).toBe(200);
    const after = await grant();
    expect(after.status, after.text).toBe(200);
    expect((await h.request('GET', '/v1/api_keys', { key: after.body.access_token, bearer: true })).status).toBe(200);
  });

  it('spec 4.1: a registered email is refused with 409 after FLUSHALL (its reservation is kept in JetStream)', async () => {
    await redis.flushAll();
    const again = await h.request('POST', '/v1/registrations', {
      key: null,
      body: { organisation_name: 'Second Try Ltd', name: 'Ada Obi', email: h.registration.email, password: 'violet-harmattan-7-kettle' },
    });
    expect(again.status, again.text).toBe(409);
    expect(again.body.error.code).toBe('conflict');
  });

  it('spec 3 "Consent token", 6: a consent token expires on time with its consent_token.expired event though Redis was emptied before it was due', async () => {
    const expires = h.clock.now() + 3_600_000;
    const t = await consent(h, subject('redisloss'), { expires_at: new Date(expires).toISOString() });
    await h.platform.system.settle(); // the creation's public event is written before Redis goes
    await redis.flushAll();
    await h.clock.advance(3_600_000 - 1);
    await h.platform.system.settle();
    expect((await h.request('GET', `/v1/identity/consent_tokens/${t.id}`)).body.status).toBe('active');
    await h.clock.advance(1);
    await h.platform.system.settle();
    expect((await h.request('GET', `/v1/identity/consent_tokens/${t.id}`)).body.status).toBe('expired');
    const events = await h.request('GET', '/v1/identity/events?limit=100');
    expect(events.body.data.some((e: { type: string; data: { id: string } }) => e.type === 'anchor.consent_token.expired' && e.data.id === t.id)).toBe(true);
  });

  it('spec 8 (Idempotency-Key): a retried POST /v1/api_keys after FLUSHALL replays its first answer (the same key record, its secret not shown again) and issues no second secret', async () => {
    const key = ik('replay');
    const first = await h.request('POST', '/v1/api_keys', { body: { name: 'once only' }, idempotencyKey: key });
    expect(first.status, first.text).toBe(200);
    await redis.flushAll();
    const retry = await h.request('POST', '/v1/api_keys', { body: { name: 'once only' }, idempotencyKey: key });
    expect(retry.status).toBe(200);
    expect(retry.headers['service-idempotent-replay']).toBe('true');
    // A replay never shows the secret again (it is not kept); the record is the first one, and the
    // first secret still works: an execution again would have issued and kept another.
    expect(retry.body).toEqual({ ...first.body, key: null });
    expect(await authenticates(first.body.key)).toBe(200);
    const reused = await h.request('POST', '/v1/api_keys', { body: { name: 'another body' }, idempotencyKey: key });
    expect(reused.body.error.code).toBe('idempotency_key_reused');
  });

  it('DESIGN "Stores": every list is whole again after FLUSHALL, rebuilt from the journal while serving, a change made before the rebuild included', async () => {
    await h.platform.system.derived!.check(); // earlier rules' flushes are mended first
    const keys = [];
    for (let i = 0; i < 3; i++) keys.push((await h.request('POST', '/v1/api_keys', { body: { name: `listed ${i}` }, idempotencyKey: ik('list') })).body.id);
    const tokens = [];
    for (let i = 0; i < 4; i++) tokens.push(await consent(h, subject(`redisloss-list-${i}`)));
    const ids = async (path: string) => ((await h.request('GET', path)).body.data as { id: string }[]).map((x) => x.id);
    const keysBefore = await ids('/v1/api_keys?limit=100');
    const tokensBefore = await ids('/v1/identity/consent_tokens?limit=100');
    expect(keysBefore).toEqual(expect.arrayContaining(keys));
    await h.platform.system.settle();
    await redis.flushAll();
    // committed while the lists are empty: its own list change is written, and the rebuild must not undo it
    const withdrawn = await h.request('POST', `/v1/identity/consent_tokens/${tokens[1].id}/revoke`, { idempotencyKey: ik('list-revoke') });
    expect(withdrawn.status, withdrawn.text).toBe(200);
    await h.platform.system.derived!.check();
    expect(await ids('/v1/api_keys?limit=100')).toEqual(keysBefore);
    expect(await ids('/v1/identity/consent_tokens?limit=100')).toEqual(tokensBefore);
    const active = await ids('/v1/identity/consent_tokens?limit=100&status=active');
    expect(active).toEqual(expect.arrayContaining([tokens[0].id, tokens[2].id, tokens[3].id]));
    expect(active).not.toContain(tokens[1].id);
    expect(await ids('/v1/identity/consent_tokens?limit=100&status=withdrawn')).toContain(tokens[1].id);
  });

  it('spec 3 "every transition is recorded", 6: audit entries and public events are whole again after FLUSHALL, each event under the sequence it had', async () => {
    await h.platform.system.derived!.check(); // earlier rules' flushes are mended first
    const t = await consent(h, subject('redisloss-events'));
    await h.request('POST', `/v1/identity/consent_tokens/${t.id}/revoke`, { idempotencyKey: ik('events-revoke') });
    await h.platform.system.settle();
    const events = async () => (await h.request('GET', '/v1/identity/events?limit=100')).body.data;
    const audits = async () => (await h.request('GET', `/v1/identity/audit_entries?limit=100&record_id=${t.id}`)).body.data;
    const eventsBefore = await events();
    const auditsBefore = await audits();
    expect(eventsBefore.filter((e: { data: { id: string } }) => e.data.id === t.id).map((e: { type: string }) => e.type)).toEqual(['anchor.consent_token.created', 'anchor.consent_token.withdrawn']);
    expect(auditsBefore.length).toBe(2);
    await redis.flushAll();
    await h.platform.system.derived!.check();
    expect(await events()).toEqual(eventsBefore);
    expect(await audits()).toEqual(auditsBefore);
  });

  it('spec 4.1: a revoked key stays revoked (401) through FLUSHALL', async () => {
    const made = await h.request('POST', '/v1/api_keys', { body: { name: 'to revoke' }, idempotencyKey: ik('revoke') });
    const revoked = await h.request('POST', `/v1/api_keys/${made.body.id}/revoke`, { idempotencyKey: ik('revoke') });
    expect(revoked.status, revoked.text).toBe(200);
    expect(await authenticates(made.body.key)).toBe(401);
    await redis.flushAll();
    expect(await authenticates(made.body.key)).toBe(401);
  });
});
