/**
 * A worker owns their availability (spec 4.7): "a device credential bound to one worker_id (issued
 * by the organisation, shown once, stored as a digest, revocable) authenticates that worker's
 * heartbeat socket, heartbeats, PUT /v1/allocation/availability/{worker_id}, and their own offers
 * and assignment steps; an organisation key cannot change a worker's availability". Through a real
 * socket, over HTTP and the heartbeat WebSocket.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { area, HEARTBEAT_SOCKET_PATH, withDeviceSockets, DeviceCredential } from '../../actors/allocation/index.ts';
import type { Principal, SocketDef } from '../../kernel/index.ts';
import { startHarness, type Harness } from '../../support/http.ts';
import { dispatchKit } from './dispatch-support.ts';
import { connect, heartbeats, reading, workerId } from './support.ts';
import { upgrade } from '../../support/ws.ts';

let h: Harness;
let kit: ReturnType<typeof dispatchKit>;
beforeAll(async () => {
  h = await startHarness();
  kit = dispatchKit(h);
});
afterAll(async () => {
  await h?.close();
});

let n = 0;
const ik = () => `dc-${process.pid}-${++n}`;
const issue = (worker: string, key?: string, idempotencyKey = ik()) =>
  h.request('POST', '/v1/allocation/device_credentials', { body: { worker_id: worker, name: 'phone' }, key, idempotencyKey });
const put = (worker: string, availability: string, key: string) => h.request('PUT', `/v1/allocation/availability/${worker}`, { body: { availability }, key });
const revoke = (id: string) => h.request('POST', `/v1/allocation/device_credentials/${id}/revoke`, { idempotencyKey: ik() });
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const socketUrl = () => h.url + HEARTBEAT_SOCKET_PATH;

describe('device credentials (spec 4.7)', { timeout: 120_000 }, () => {
  it('spec 4.7: a device credential is shown once when issued and stored only as a digest; it stays listed without its secret', async () => {
    const w = workerId();
    const key = ik();
    const r = await issue(w, undefined, key);
    expect(r.status, r.text).toBe(201);
    expect(r.body).toMatchObject({ object: 'device_credential', worker_id: w, name: 'phone', status: 'active', revoked_at: null, livemode: false });
    expect(r.body.id).toMatch(/^match_device_credential_/);
    const secret = r.body.key as string;
    expect(secret).toMatch(/^dk_test_[A-Za-z0-9]{40}$/);

    // only the digest is kept: the credential table holds sha256(secret), and nothing the platform stores holds the secret
    const kv = h.platform.stores.kv;
    expect(await kv.get(`device_credential_digest:${r.body.id}`)).toBe(sha256(secret));
    expect(await kv.get(`cred:${sha256(secret)}`)).toMatchObject({ type: 'device', worker: w, org: h.org });
    const journal = await h.platform.stores.journal.read(`${DeviceCredential.kind}.${r.body.id}`, 0);
    expect(journal.map((e) => e.type)).toEqual(['device_credential.issued']);
    expect(JSON.stringify(journal)).not.toContain(secret);

    // never returned again: not on read, not on list, not on a replay of the issuing request
    const read = await h.request('GET', `/v1/allocation/device_credentials/${r.body.id}`);
    expect(read.status).toBe(200);
    expect(read.body.key).toBeUndefined();
    expect(read.text).not.toContain(secret);
    const list = await h.request('GET', `/v1/allocation/device_credentials?worker_id=${w}`);
    expect(list.body.data.map((c: { id: string }) => c.id)).toEqual([r.body.id]);
    expect(list.text).not.toContain(secret);
    const replay = await issue(w, undefined, key);
    expect(replay.headers['service-idempotent-replay']).toBe('true');
    expect(replay.body).toMatchObject({ id: r.body.id, key: null });

    // another organisation sees none of it
    const other = await h.register();
    expect((await h.request('GET', `/v1/allocation/device_credentials/${r.body.id}`, { key: other.key })).body.error.code).toBe('organisation_mismatch');
    expect((await h.request('GET', '/v1/allocation/device_credentials', { key: other.key })).body.data).toEqual([]);
  });

  it('spec 4.7: the device credential moves its own worker\u2019s availability and sends its heartbeats over REST and the socket', async () => {
    const w = workerId();
    const secret = (await issue(w)).body.key as string;
    const on = await put(w, 'available', secret);
    expect(on.status, on.text).toBe(200);
    expect(on.body).toMatchObject({ object: 'worker_availability', worker_id: w, availability: 'available' });
    expect((await h.request('GET', `/v1/allocation/availability/${w}`, { key: secret })).body.availability).toBe('available');

    await h.clock.advance(1000);
    const rest = await heartbeats(h, { worker_id: w, readings: [reading(h.clock.now() - 500)] }, secret);
    expect(rest.body, rest.text).toMatchObject({ object: 'heartbeat_receipt', worker_id: w, accepted_count: 1 });
    const s = await connect(socketUrl(), { authorization: `Bearer ${secret}` });
    try {
      s.send(JSON.stringify({ worker_id: w, readings: [reading(h.clock.now() - 100)] }));
      expect(JSON.parse((await s.next()).text)).toMatchObject({ object: 'heartbeat_receipt', worker_id: w, accepted_count: 1 });
    } finally {
      s.close();
    }
    const off = await put(w, 'unavailable', secret);
    expect(off.body).toMatchObject({ availability: 'unavailable', supply: { in_map: false, excluded_because: 'not_available' } });
  });

  it('spec 4.7: a device credential cannot act for another worker, nor outside its worker\u2019s routes (403 forbidden)', async () => {
    const mine = workerId();
    const theirs = workerId();
    const secret = (await issue(mine)).body.key as string;
    const theirSecret = (await issue(theirs)).body.key as string;
    expect((await put(theirs, 'available', theirSecret)).status).toBe(200);

    const refusals = [
      await put(theirs, 'unavailable', secret),
      await h.request('GET', `/v1/allocation/availability/${theirs}`, { key: secret }),
      await heartbeats(h, { worker_id: theirs, readings: [reading(h.clock.now() - 100)] }, secret),
    ];
    for (const r of refusals) {
      expect(r.status, r.text).toBe(403);
      expect(r.body.error.code).toBe('forbidden');
      expect(r.body.error.message).toContain(mine);
    }
    // the other worker's availability is as their own device left it
    expect((await h.request('GET', `/v1/allocation/availability/${theirs}`)).body.availability).toBe('available');

    // the socket: a batch of another worker is an error frame, nothing stored
    const s = await connect(socketUrl(), { 'service-api-key': secret });
    try {
      s.send(JSON.stringify({ worker_id: theirs, readings: [reading(h.clock.now() - 50)] }));
      expect(JSON.parse((await s.next()).text).error).toMatchObject({ code: 'forbidden' });
    } finally {
      s.close();
    }

    // the organisation's routes and other modules are not a device's
    for (const [method, path] of [
      ['GET', '/v1/allocation/work_orders'],
      ['GET', '/v1/allocation/integrity_flags'],
      ['GET', '/v1/allocation/device_credentials'],
      ['GET', '/v1/allocation/supply?latitude=6.5&longitude=3.4&radius_metres=1000'],
      ['GET', '/v1/allocation/events'],
      ['GET', '/v1/allocation/audit_entries'],
      ['GET', '/v1/payroll/runs'],
      ['GET', '/v1/api_keys'],
    ] as const) {
      const r = await h.request(method, path, { key: secret });
      expect([path, r.status, r.body.error?.code]).toEqual([path, 403, 'forbidden']);
    }
    const mint = await h.request('POST', '/v1/allocation/device_credentials', { body: { worker_id: mine }, key: secret, idempotencyKey: ik() });
    expect([mint.status, mint.body.error.code]).toEqual([403, 'forbidden']);
    // a session-only endpoint does not take it either
    expect((await h.request('GET', '/v1/me', { key: secret })).status).toBe(401);
  });

  it('spec 4.7: every allocation socket but the heartbeat socket refuses a device credential\u2019s frames (403 forbidden)', async () => {
    const device: Principal = { kind: 'device', id: 'match_device_credential_x', org: h.org, livemode: false, scopes: new Set(['match:read', 'match:write']), worker: 'w1' };
    const key: Principal = { kind: 'api_key', id: 'api_key_x', org: h.org, livemode: false, scopes: new Set(['match:read', 'match:write']) };
    const ctx = (principal: Principal) => ({ principal, org: h.org, livemode: false, requestId: 'req_test', platform: h.platform });
    const frame = { data: new TextEncoder().encode('{}'), binary: false };
    const echo: SocketDef = { path: '/v1/allocation/echo', module: 'match', summary: 'echo', onMessage: async () => 'answered' };
    const [heartbeat, wrapped] = withDeviceSockets(area.sockets![0]!, [echo]);
    expect(heartbeat).toBe(area.sockets![0]);
    await expect(wrapped!.onMessage(frame, ctx(device))).rejects.toMatchObject({ code: 'forbidden' });
    await expect(wrapped!.onMessage(frame, ctx(key))).resolves.toBe('answered');
    // the mounted area: the heartbeat socket first, every other one refusing a device
    expect(area.sockets![0]!.path).toBe(HEARTBEAT_SOCKET_PATH);
    for (const s of area.sockets!.slice(1)) await expect(s.onMessage(frame, ctx(device))).rejects.toMatchObject({ code: 'forbidden' });
  });

  it('spec 4.7: a revoked device credential stops at once: requests, new sockets and frames on a socket opened before (401), and stays listed with revoked_at', async () => {
    const w = workerId();
    const issued = (await issue(w)).body;
    const secret = issued.key as string;
    expect((await put(w, 'available', secret)).status).toBe(200);
    const open = await connect(socketUrl(), { 'service-api-key': secret });
    try {
      const r = await revoke(issued.id);
      expect(r.status, r.text).toBe(200);
      expect(r.body).toMatchObject({ id: issued.id, status: 'revoked' });
      expect(r.body.revoked_at).toEqual(expect.any(String));

      const refused = await put(w, 'unavailable', secret);
      expect([refused.status, refused.body.error.code]).toEqual([401, 'unauthenticated']);
      expect((await heartbeats(h, { worker_id: w, readings: [reading(h.clock.now() - 100)] }, secret)).status).toBe(401);
      const up = await upgrade(socketUrl(), { 'service-api-key': secret });
      expect(up.ok ? 101 : up.status).toBe(401);
      open.send(JSON.stringify({ worker_id: w, readings: [reading(h.clock.now() - 50)] }));
      expect(JSON.parse((await open.next()).text).error).toMatchObject({ code: 'unauthenticated' });
    } finally {
      open.close();
    }
    expect(await h.platform.stores.kv.get(`cred:${sha256(secret)}`)).toBeUndefined();
    expect((await revoke(issued.id)).status).toBe(409);
    const listed = (await h.request('GET', `/v1/allocation/device_credentials?worker_id=${w}`)).body.data;
    expect(listed).toEqual([expect.objectContaining({ id: issued.id, status: 'revoked', revoked_at: expect.any(String) })]);
    // availability stayed where the worker left it
    expect((await h.request('GET', `/v1/allocation/availability/${w}`)).body.availability).toBe('available');
  });

  it('spec 4.7: an organisation key cannot change a worker\u2019s availability (403 forbidden); it may read it and relay heartbeats', async () => {
    const w = workerId();
    const secret = (await issue(w)).body.key as string;
    for (const availability of ['available', 'unavailable']) {
      const r = await put(w, availability, h.key);
      expect(r.status, r.text).toBe(403);
      expect(r.body.error.code).toBe('forbidden');
      expect(r.body.error.message).toMatch(/device credential/);
    }
    expect((await h.request('GET', `/v1/allocation/availability/${w}`)).status).toBe(404); // nothing was recorded
    expect((await put(w, 'available', secret)).status).toBe(200);
    expect((await put(w, 'unavailable', h.key)).status).toBe(403);
    expect((await h.request('GET', `/v1/allocation/availability/${w}`)).body.availability).toBe('available');
    // a heartbeat never changes availability (spec 4.7), so an organisation's relay may send them
    await h.clock.advance(1000);
    const relayed = await heartbeats(h, { worker_id: w, readings: [reading(h.clock.now() - 100, { availability: 'unavailable' })] });
    expect(relayed.body).toMatchObject({ accepted_count: 1 });
    expect((await h.request('GET', `/v1/allocation/availability/${w}`)).body.availability).toBe('available');
  });

  it('spec 4.7: the worker accepts their own offer and takes their own assignment steps with their device credential; another worker\u2019s credential is refused', async () => {
    const p = kit.centre();
    const made = await kit.worker(p, 300);
    const stranger = await kit.worker(kit.centre(), 300);
    const device = (await issue(made.worker)).body.key as string;
    const otherDevice = (await issue(stranger.worker)).body.key as string;
    const wo = await kit.open(p, { location: { ...p, radius_metres: 500 } });
    const [offer] = await kit.offers(wo.id);
    expect(offer!.worker_id).toBe(made.worker);
    const post = (path: string, key: string, body?: unknown) => h.request('POST', path, { body, key, idempotencyKey: ik() });

    const theirs = await post(`/v1/allocation/offers/${offer!.id}/accept`, otherDevice);
    expect([theirs.status, theirs.body.error.code]).toEqual([403, 'forbidden']);
    expect((await h.request('GET', `/v1/allocation/offers/${offer!.id}`, { key: otherDevice })).status).toBe(403);
    expect((await h.request('GET', `/v1/allocation/offers/${offer!.id}`, { key: device })).body).toMatchObject({ id: offer!.id, status: 'pending' });
    const accepted = await post(`/v1/allocation/offers/${offer!.id}/accept`, device);
    expect(accepted.status, accepted.text).toBe(200);
    expect(accepted.body.status).toBe('accepted');

    // the organisation makes the assignment (its passcodes go to the site, never to the device)
    const forbidden = await post('/v1/allocation/assignments', device, { offer_id: offer!.id });
    expect(forbidden.status).toBe(403);
    const a = await kit.post('/v1/allocation/assignments', { offer_id: offer!.id });
    expect(a.status, a.text).toBe(201);
    const asg = a.body as { id: string; passcodes: { start: string } };

    expect((await post(`/v1/allocation/assignments/${asg.id}/start`, otherDevice)).status).toBe(403);
    const started = await post(`/v1/allocation/assignments/${asg.id}/start`, device);
    expect(started.status, started.text).toBe(200);
    expect(started.body.status).toBe('started');
    // the device reports from inside the geofence, then arrives with the start passcode the site gives
    await h.clock.advance(30_000);
    const inside = await heartbeats(h, { worker_id: made.worker, readings: [reading(h.clock.now() - 100, { position: { ...p, accuracy_metres: 5 } })] }, device);
    expect(inside.body.accepted_count).toBe(1);
    expect((await post(`/v1/allocation/assignments/${asg.id}/arrival`, otherDevice, { passcode: asg.passcodes.start })).status).toBe(403);
    const arrived = await post(`/v1/allocation/assignments/${asg.id}/arrival`, device, { passcode: asg.passcodes.start });
    expect(arrived.status, arrived.text).toBe(200);
    expect(arrived.body.status).toBe('arrived');
    const seen = await h.request('GET', `/v1/allocation/assignments/${asg.id}`, { key: device });
    expect(seen.body).toMatchObject({ id: asg.id, status: 'arrived' });
    expect(seen.text).not.toContain(asg.passcodes.start);
    // cancelling is the organisation's
    expect((await post(`/v1/allocation/assignments/${asg.id}/cancel`, device)).status).toBe(403);
  });
});
