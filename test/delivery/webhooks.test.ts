import { afterEach, describe, expect, it } from 'vitest';
import { ATTEMPT_WATCHDOG_MS, RETRY_SCHEDULE_SECONDS } from '../../actors/delivery/index.ts';
import { FakeRun, call, signatureCount, startPlatform, startReceiver, stopKeepingStores, verifies, type Receiver, type TestPlatform } from './support.ts';

const A = { org: 'org_Aaaaaaaaaaaaaaaaaaaaaa' };
const B = { org: 'org_Bbbbbbbbbbbbbbbbbbbbbb' };

let tp: TestPlatform | undefined;
const receivers: Receiver[] = [];
afterEach(async () => {
  await tp?.stop();
  tp = undefined;
  for (const r of receivers.splice(0)) await r.close();
});

async function receiver(respond?: Parameters<typeof startReceiver>[0]) {
  const r = await startReceiver(respond);
  receivers.push(r);
  return r;
}

const settle = () => tp!.platform.system.settle();
const run = (id: string, cmd: string, org = A.org) => tp!.platform.system.ask(FakeRun, id, cmd as never, {} as never, { org, requestId: `req_${cmd}` });
const createEndpoint = (url: string, event_types?: string[], who = A) => call(tp!.platform, 'POST', '/v1/webhook_endpoints', who, { body: { url, ...(event_types ? { event_types } : {}) } });
const deliveries = async (endpoint_id?: string, who = A) => (await call(tp!.platform, 'GET', '/v1/webhook_deliveries', who, { query: { limit: 100, ...(endpoint_id ? { endpoint_id } : {}) } })).data;
const delivery = (id: string, who = A) => call(tp!.platform, 'GET', `/v1/webhook_deliveries/${id}`, who);

describe('webhook endpoints (spec 2.12, 4.11)', () => {
  it('create - secret shown once, digests only afterwards, event_types default * (spec 2.12, 4.11)', async () => {
    tp = await startPlatform();
    const ep = await createEndpoint('https://example.com/hooks');
    expect(ep).toMatchObject({ object: 'webhook_endpoint', livemode: false, mocked: false, url: 'https://example.com/hooks', event_types: ['*'], disabled_at: null });
    expect(ep.id).toMatch(/^webhook_endpoint_/);
    expect(ep.secret).toMatch(/^whsec_/);
    expect(ep.secret_digests).toHaveLength(1);
    const read = await call(tp.platform, 'GET', `/v1/webhook_endpoints/${ep.id}`, A);
    expect(read).not.toHaveProperty('secret');
    expect(JSON.stringify(read)).not.toContain(ep.secret);
    expect((await call(tp.platform, 'GET', '/v1/webhook_endpoints', A, { query: {} })).data.map((e: any) => e.id)).toEqual([ep.id]);
    await expect(call(tp.platform, 'GET', `/v1/webhook_endpoints/${ep.id}`, B)).rejects.toMatchObject({ code: 'organisation_mismatch' });
  });

  it('create - refuses a url that is not http(s) and malformed event types, naming every field (spec 2.1, 4.11)', async () => {
    tp = await startPlatform();
    await expect(createEndpoint('ftp://x', ['*', 'Run approved'])).rejects.toMatchObject({
      code: 'validation_failed',
      details: { validation: { error_count: 3 } },
    });
  });

  it('disable - sets disabled_at; a second disable, a test and a rotation answer 409 (spec 4.11, 7)', async () => {
    tp = await startPlatform();
    const ep = await createEndpoint('http://127.0.0.1:9/');
    const d = await call(tp.platform, 'POST', `/v1/webhook_endpoints/${ep.id}/disable`, A);
    expect(d.disabled_at).toBe(new Date(tp.clock.now()).toISOString());
    for (const action of ['disable', 'test', 'rotate_secret']) {
      await expect(call(tp.platform, 'POST', `/v1/webhook_endpoints/${ep.id}/${action}`, A, { body: {} })).rejects.toMatchObject({ code: 'conflict', status: 409 });
    }
  });

  it('rotate_secret - both secrets sign while two are active, newest first; the previous retires after 24 h and never signs again (spec 6.2, 8)', async () => {
    tp = await startPlatform();
    const r = await receiver();
    const ep = await createEndpoint(r.url);
    const rotated = await call(tp.platform, 'POST', `/v1/webhook_endpoints/${ep.id}/rotate_secret`, A);
    expect(rotated.secret).not.toBe(ep.secret);
    expect(rotated.secret_digests).toEqual([expect.any(String), ep.secret_digests[0]]);
    await call(tp.platform, 'POST', `/v1/webhook_endpoints/${ep.id}/test`, A, { body: {} });
    await settle();
    const [during] = r.received;
    expect(signatureCount(during)).toBe(2);
    expect(verifies(during, ep.secret, tp.clock.now())).toBe(true);
    expect(verifies(during, rotated.secret, tp.clock.now())).toBe(true);

    await tp.clock.advance(24 * 3600_000);
    await settle();
    expect((await call(tp.platform, 'GET', `/v1/webhook_endpoints/${ep.id}`, A)).secret_digests).toEqual([rotated.secret_digests[0]]);
    await call(tp.platform, 'POST', `/v1/webhook_endpoints/${ep.id}/test`, A, { body: {} });
    await settle();
    const after = r.received[1];
    expect(signatureCount(after)).toBe(1);
    expect(verifies(after, rotated.secret, tp.clock.now())).toBe(true);
    expect(verifies(after, ep.secret, tp.clock.now())).toBe(false);
  });

  it('rotate_secret - at most two active secrets: a second rotation retires the oldest at once (spec 2.12, 8)', async () => {
    tp = await startPlatform();
    const ep = await createEndpoint('http://127.0.0.1:9/');
    const r1 = await call(tp.platform, 'POST', `/v1/webhook_endpoints/${ep.id}/rotate_secret`, A);
    const r2 = await call(tp.platform, 'POST', `/v1/webhook_endpoints/${ep.id}/rotate_secret`, A);
    expect(r2.secret_digests).toEqual([expect.any(String), r1.secret_digests[0]]);
    expect(r2.secret_digests).not.toContain(ep.secret_digests[0]);
  });
});

describe('webhook deliveries (spec 2.12, 3, 6)', () => {
  it('test - a delivery with is_test true, default type payroll.run.completed, signed over the exact bytes sent (spec 4.11, 6.2, 6.4)', async () => {
    tp = await startPlatform();
    const r = await receiver();
    const ep = await createEndpoint(r.url);
    const d = await call(tp.platform, 'POST', `/v1/webhook_endpoints/${ep.id}/test`, A, { body: {} });
    expect(d).toMatchObject({ object: 'webhook_delivery', is_test: true, event_type: 'payroll.run.completed', sequence: 1, attempts: 1, endpoint_id: ep.id });
    await settle();
    expect(r.received).toHaveLength(1);
    const [rec] = r.received;
    expect(verifies(rec, ep.secret, tp.clock.now())).toBe(true);
    const read = await delivery(d.id);
    expect(read.signed_body).toBe(rec.raw.toString('utf8'));
    expect(read.signature_header).toBe(rec.signature);
    expect(read).toMatchObject({ attempts: 1, last_status: 200, last_fault: null, delivered_at: new Date(tp.clock.now()).toISOString(), next_attempt_at: null, failed_at: null, retry_schedule_seconds: [10, 60, 300, 1800, 7200, 18000, 36000, 72000] });
    expect(rec.body).toMatchObject({ id: d.event_id, type: 'payroll.run.completed', org_id: A.org, sequence: 0, source: 'run', schema_version: 2 });
    const other = await call(tp.platform, 'POST', `/v1/webhook_endpoints/${ep.id}/test`, A, { body: { event_type: 'run.approved' } });
    expect(other).toMatchObject({ event_type: 'run.approved', sequence: 2 });
    await settle();
  });

  it('list - omits signed_body and signature_header; the single read includes them (spec 4.11)', async () => {
    tp = await startPlatform();
    const r = await receiver();
    const ep = await createEndpoint(r.url);
    await call(tp.platform, 'POST', `/v1/webhook_endpoints/${ep.id}/test`, A, { body: {} });
    await settle();
    const [listed] = await deliveries();
    expect(listed).not.toHaveProperty('signed_body');
    expect(listed).not.toHaveProperty('signature_header');
    expect(await delivery(listed.id)).toHaveProperty('signed_body');
  });

  it('subscriptions - * receives every event, a filtered endpoint only its types, another organisation nothing (spec 6.5)', async () => {
    tp = await startPlatform();
    const r = await receiver();
    const all = await createEndpoint(r.url);
    const approvedOnly = await createEndpoint(r.url, ['run.approved']);
    const foreign = await createEndpoint(r.url, undefined, B);
    await run('run_fake_1', 'create');
    await run('run_fake_1', 'approve');
    await settle();
    expect((await deliveries(all.id)).map((d: any) => [d.event_type, d.sequence])).toEqual([['run.approved', 2], ['run.created', 1]]);
    expect((await deliveries(approvedOnly.id)).map((d: any) => d.event_type)).toEqual(['run.approved']);
    expect(await deliveries(foreign.id, B)).toEqual([]);
    expect(r.received).toHaveLength(3);
    // The delivered envelope is the module list's event, same id and bytes.
    const events = (await call(tp.platform, 'GET', '/v1/payroll/events', A, { query: {} })).data;
    const sent = r.received.find((x) => x.body.type === 'run.approved')!;
    expect(sent.body).toEqual(events[1]);
  });

  it('disabled endpoints receive nothing (spec 4.11)', async () => {
    tp = await startPlatform();
    const r = await receiver();
    const ep = await createEndpoint(r.url);
    await call(tp.platform, 'POST', `/v1/webhook_endpoints/${ep.id}/disable`, A);
    await run('run_fake_1', 'create');
    await settle();
    expect(r.received).toHaveLength(0);
    expect(await deliveries(ep.id)).toEqual([]);
  });

  it('retries - eight retries at exactly 10 s, 1 min, 5 min, 30 min, 2 h, 5 h, 10 h, 20 h, each signing its own timestamp, then failed (spec 3, 6.3, 8)', async () => {
    tp = await startPlatform();
    const r = await receiver(() => 500);
    const ep = await createEndpoint(r.url);
    const start = tp.clock.now();
    await run('run_fake_1', 'create');
    await settle();
    const [d0] = await deliveries(ep.id);
    const arrivals = [tp.clock.now()];
    expect(r.received).toHaveLength(1);
    let elapsed = 0;
    for (const [i, step] of RETRY_SCHEDULE_SECONDS.entries()) {
      const before = await delivery(d0.id);
      expect(before).toMatchObject({ attempts: i + 1, last_status: 500, last_fault: null, next_attempt_at: new Date(start + (elapsed + step) * 1000).toISOString(), failed_at: null });
      await tp.clock.advance(step * 1000 - 1);
      await settle();
      expect(r.received).toHaveLength(i + 1); // not a millisecond early
      await tp.clock.advance(1);
      await settle();
      elapsed += step;
      arrivals.push(tp.clock.now());
      expect(r.received).toHaveLength(i + 2);
    }
    expect(arrivals.map((t) => (t - start) / 1000)).toEqual([0, 10, 70, 370, 2170, 9370, 27370, 63370, 135370]);
    const ts = r.received.map((x) => Number(x.signature.split(',')[0].slice(2)));
    expect(ts).toEqual(arrivals.map((t) => Math.floor(t / 1000)));
    r.received.forEach((x, i) => expect(verifies(x, ep.secret, arrivals[i])).toBe(true));
    expect(new Set(r.received.map((x) => x.raw.toString())).size).toBe(1);
    const failed = await delivery(d0.id);
    expect(failed).toMatchObject({ attempts: 9, next_attempt_at: null, delivered_at: null, failed_at: new Date(tp.clock.now()).toISOString() });
    await tp.clock.advance(72000 * 1000);
    await settle();
    expect(r.received).toHaveLength(9);
  });

  it('replay - a failed delivery starts again with the same event id and occurred_at; 409 while retrying (spec 3, 4.11, 6)', async () => {
    tp = await startPlatform();
    let answer = 503;
    const r = await receiver(() => answer);
    const ep = await createEndpoint(r.url);
    await run('run_fake_1', 'create');
    await settle();
    const [d] = await deliveries(ep.id);
    await expect(call(tp.platform, 'POST', `/v1/webhook_deliveries/${d.id}/replay`, A)).rejects.toMatchObject({ code: 'conflict' });
    for (const step of RETRY_SCHEDULE_SECONDS) {
      await tp.clock.advance(step * 1000);
      await settle();
    }
    expect((await delivery(d.id)).failed_at).not.toBeNull();
    answer = 200;
    await tp.clock.advance(3600_000);
    const replayed = await call(tp.platform, 'POST', `/v1/webhook_deliveries/${d.id}/replay`, A);
    expect(replayed).toMatchObject({ id: d.id, event_id: d.event_id, attempts: 10, failed_at: null, sequence: 1 });
    await settle();
    const last = r.received[r.received.length - 1];
    expect(last.body.id).toBe(d.event_id);
    expect(last.body.occurred_at).toBe(r.received[0].body.occurred_at);
    expect(last.raw.equals(r.received[0].raw)).toBe(true);
    expect(verifies(last, ep.secret, tp.clock.now())).toBe(true);
    expect(await delivery(d.id)).toMatchObject({ delivered_at: new Date(tp.clock.now()).toISOString(), last_status: 200, attempts: 10 });
  });

  it('restart in the middle of the ladder - loses and duplicates nothing (spec 6.3)', async () => {
    tp = await startPlatform();
    let answer = 500;
    const r = await receiver(() => answer);
    const ep = await createEndpoint(r.url);
    await run('run_fake_1', 'create');
    await run('run_fake_2', 'create');
    await settle();
    for (const step of RETRY_SCHEDULE_SECONDS.slice(0, 3)) {
      await tp.clock.advance(step * 1000);
      await settle();
    }
    expect(r.received).toHaveLength(8);
    await stopKeepingStores(tp.platform);
    tp = await startPlatform({ clock: tp.clock, stores: tp.stores });
    await run('run_fake_3', 'create');
    await settle();
    answer = 200;
    await tp.clock.advance(RETRY_SCHEDULE_SECONDS[3] * 1000);
    await settle();
    const ds = await deliveries(ep.id);
    expect(ds.map((d: any) => d.sequence)).toEqual([3, 2, 1]);
    expect(ds.every((d: any) => d.delivered_at !== null)).toBe(true);
    // Each event arrived once per attempt: 4 attempts each for the first two, 2 for the third.
    const count = (id: string) => r.received.filter((x) => x.body.id === id).length;
    expect(ds.map((d: any) => count(d.event_id))).toEqual([2, 5, 5]);
    expect(ds.map((d: any) => d.attempts)).toEqual([2, 5, 5]);
  });

  it('delivery sequence - monotonic per endpoint from 1 with no gaps under concurrent events (spec 2.12, 8)', async () => {
    tp = await startPlatform();
    const r = await receiver();
    const e1 = await createEndpoint(r.url);
    const e2 = await createEndpoint(r.url, ['run.approved']);
    await Promise.all(Array.from({ length: 30 }, async (_, i) => {
      await run(`run_fake_${i}`, 'create');
      await run(`run_fake_${i}`, 'approve');
    }));
    await settle();
    const seq = async (id: string) => (await deliveries(id)).map((d: any) => d.sequence).reverse();
    expect(await seq(e1.id)).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
    expect(await seq(e2.id)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    expect(r.received).toHaveLength(90);
  });
});

describe('faults (spec 2.12 last_fault)', () => {
  it('a refused connection, a DNS failure and a timeout are named as such (spec 2.12, 6.1)', async () => {
    tp = await startPlatform({ config: { WEBHOOK_RECEIVER_TIMEOUT_MS: '300' } });
    const hang = await receiver(() => 'hang');
    const closed = await receiver();
    const closedUrl = closed.url;
    await closed.close();
    receivers.splice(receivers.indexOf(closed), 1);
    const refused = await createEndpoint(closedUrl);
    const dns = await createEndpoint('http://no-such-host.invalid/hook');
    const slow = await createEndpoint(hang.url);
    for (const ep of [refused, dns, slow]) await call(tp.platform, 'POST', `/v1/webhook_endpoints/${ep.id}/test`, A, { body: {} });
    await settle();
    const faultOf = async (ep: any) => (await deliveries(ep.id))[0];
    expect(await faultOf(refused)).toMatchObject({ last_fault: 'refused connection', last_status: null, attempts: 1 });
    expect(await faultOf(dns)).toMatchObject({ last_fault: 'DNS failure', last_status: null });
    expect(await faultOf(slow)).toMatchObject({ last_fault: 'timeout', last_status: null });
    expect((await faultOf(slow)).next_attempt_at).toBe(new Date(tp.clock.now() + 10_000).toISOString());
  });

  it('bounded concurrency per endpoint - a dead receiver does not hold up another endpoint (spec 6.1)', async () => {
    tp = await startPlatform({ config: { WEBHOOK_RECEIVER_TIMEOUT_MS: '600', WEBHOOK_CONCURRENCY_PER_ENDPOINT: '2' } });
    const hang = await receiver(() => 'hang');
    const ok = await receiver();
    const dead = await createEndpoint(hang.url);
    const live = await createEndpoint(ok.url);
    for (let i = 0; i < 6; i++) await call(tp.platform, 'POST', `/v1/webhook_endpoints/${dead.id}/test`, A, { body: {} });
    await call(tp.platform, 'POST', `/v1/webhook_endpoints/${live.id}/test`, A, { body: {} });
    // The live endpoint's delivery is answered while the dead one still holds its two slots.
    for (let i = 0; i < 200 && ok.received.length === 0; i++) await new Promise((res) => setTimeout(res, 5));
    expect(ok.received).toHaveLength(1);
    expect(hang.received.length).toBeLessThanOrEqual(2);
    await settle();
    expect(hang.received).toHaveLength(6);
  });

  it('an attempt still queued when its watchdog fires is never sent: the watchdog counts it a timeout and the retry ladder sends it once (spec 6.1, 6.3)', async () => {
    tp = await startPlatform({ config: { WEBHOOK_RECEIVER_TIMEOUT_MS: '800', WEBHOOK_CONCURRENCY_PER_ENDPOINT: '1' } });
    // The first request hangs (the one slot is held for 800 ms of real time); every later one is answered.
    const r = await receiver((_req, n) => (n === 1 ? 'hang' : 200));
    const ep = await createEndpoint(r.url, ['run.created']);
    const start = tp.clock.now();
    await run('run_fake_1', 'create');
    await run('run_fake_2', 'create');
    // Both deliveries made (their first attempts started now) and the first sent.
    for (let i = 0; i < 400 && (r.received.length === 0 || (await deliveries(ep.id)).length < 2); i++) await new Promise((res) => setTimeout(res, 5));
    expect(r.received).toHaveLength(1); // the second waits in the endpoint's queue behind the hanging one
    expect((await deliveries(ep.id)).map((d: { attempts: number }) => d.attempts)).toEqual([1, 1]);
    // Both watchdogs fire while the second attempt still waits; then the ladder's retries go out.
    await tp.clock.advance(ATTEMPT_WATCHDOG_MS + 1);
    await settle();
    await tp.clock.advance(RETRY_SCHEDULE_SECONDS[0] * 1000);
    await settle();
    const sent = r.received.map((x) => ({ run: x.body.data.id as string, t: Number(x.signature.split(',')[0].slice(2)) }));
    const first = sent[0].run;
    const second = first === 'run_fake_1' ? 'run_fake_2' : 'run_fake_1';
    const retryAt = Math.floor((start + ATTEMPT_WATCHDOG_MS + RETRY_SCHEDULE_SECONDS[0] * 1000) / 1000);
    // The hung attempt, then each delivery's second attempt; the queued first attempt never left.
    expect(sent.filter((x) => x.run === second)).toEqual([{ run: second, t: retryAt }]);
    expect(sent.filter((x) => x.run === first)).toEqual([{ run: first, t: Math.floor(start / 1000) }, { run: first, t: retryAt }]);
    for (const d of await deliveries(ep.id)) expect(d).toMatchObject({ attempts: 2, last_status: 200, last_fault: null });
  });
});
