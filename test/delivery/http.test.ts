import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/http.ts';
import { LOCAL_RECEIVERS, startReceiver, verifies, type Receiver } from './support.ts';

let h: Harness | undefined;
let r: Receiver | undefined;
afterEach(async () => {
  await h?.close();
  await r?.close();
  h = r = undefined;
});

describe('delivery over HTTP (spec 4.11, 6)', () => {
  it('create with Idempotency-Key, test delivery signed over the raw bytes, read and list through the gateway (spec 4.11, 6.2)', async () => {
    h = await startHarness({ config: LOCAL_RECEIVERS });
    r = await startReceiver();
    const missingKey = await h.request('POST', '/v1/webhook_endpoints', { body: { url: r.url } });
    expect(missingKey.status).toBe(400);
    const created = await h.request('POST', '/v1/webhook_endpoints', { body: { url: r.url }, idempotencyKey: 'ik-1' });
    expect(created.status).toBe(200);
    expect(created.body.secret).toMatch(/^whsec_/);
    const replayed = await h.request('POST', '/v1/webhook_endpoints', { body: { url: r.url }, idempotencyKey: 'ik-1' });
    expect(replayed.body.id).toBe(created.body.id);

    const test = await h.request('POST', `/v1/webhook_endpoints/${created.body.id}/test`, { body: {} });
    expect(test.status).toBe(200);
    expect(test.body).toMatchObject({ is_test: true, event_type: 'payroll.run.completed', sequence: 1 });
    await h.platform.system.settle();
    expect(r.received).toHaveLength(1);
    expect(verifies(r.received[0], created.body.secret, h.clock.now())).toBe(true);
    expect(r.received[0].body.request_id).toBe(test.headers['service-request-id']);

    const one = await h.request('GET', `/v1/webhook_deliveries/${test.body.id}`);
    expect(one.body.signed_body).toBe(r.received[0].raw.toString('utf8'));
    const list = await h.request('GET', `/v1/webhook_deliveries?endpoint_id=${created.body.id}`);
    expect(list.body).toMatchObject({ object: 'list', has_more: false });
    expect(list.body.data[0]).not.toHaveProperty('signed_body');

    const other = await h.register();
    const foreign = await h.request('GET', `/v1/webhook_deliveries/${test.body.id}`, { key: other.key });
    expect(foreign.status).toBe(403);
    expect((await h.request('GET', '/v1/webhook_endpoints', { key: other.key })).body.data).toEqual([]);
  });

  it('create - a url on an internal address answers 400 validation_failed naming /url; nothing is created (spec 4.11, docs/gaps.md#delivery)', async () => {
    h = await startHarness();
    const refused = await h.request('POST', '/v1/webhook_endpoints', { body: { url: 'http://[::ffff:7f00:1]:8080/hook' }, idempotencyKey: 'ik-internal' });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'validation_failed', message: 'url host ::ffff:7f00:1 is a loopback address; webhooks are only sent to public internet addresses.' });
    expect(JSON.stringify(refused.body)).toContain('"field":"/url"');
    expect((await h.request('GET', '/v1/webhook_endpoints')).body.data).toEqual([]);
  });

  it('module event lists and audit entries are served for every module (spec 4, 6)', async () => {
    h = await startHarness();
    for (const path of ['/v1/identity', '/v1/credentials', '/v1/rail', '/v1/sourcing', '/v1/allocation', '/v1/payroll', '/v1/remittance', '/v1/payouts']) {
      const ev = await h.request('GET', `${path}/events`);
      const au = await h.request('GET', `${path}/audit_entries?limit=5`);
      expect([path, ev.status, ev.body.object, au.status, au.body.object]).toEqual([path, 200, 'list', 200, 'list']);
    }
    expect((await h.request('GET', '/v1/payroll/events?limit=0')).status).toBe(400);
    expect((await h.request('GET', '/v1/payroll/events/evt_unknown')).status).toBe(404);
  });

  it('an area event reaches a subscribed endpoint through the real platform: accounts api_key.created (spec 6)', async () => {
    h = await startHarness({ config: LOCAL_RECEIVERS });
    r = await startReceiver();
    const ep = await h.request('POST', '/v1/webhook_endpoints', { body: { url: r.url, event_types: ['api_key.created'] }, idempotencyKey: 'ik-2' });
    const key = await h.request('POST', '/v1/api_keys', { body: { name: 'hooks' }, idempotencyKey: 'ik-3' });
    await h.platform.system.settle();
    if (key.status !== 200) return expect.fail(`api key creation answered ${key.status} ${key.text}`);
    expect(r.received.map((x) => x.body.type)).toEqual(['api_key.created']);
    expect(r.received[0].body).toMatchObject({ org_id: h.org, source: 'iam', sequence: expect.any(Number) });
    expect(verifies(r.received[0], ep.body.secret, h.clock.now())).toBe(true);
    expect(JSON.stringify(r.received[0].body)).not.toContain(key.body.key);
  });
});
