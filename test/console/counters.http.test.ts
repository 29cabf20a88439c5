/** GET /v1/allocation/counters (docs/gaps.md#console): the platform's own count a load test is checked against. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/http.ts';
import { connect } from '../../support/ws.ts';
import { heartbeats, makeAvailable, reading, workerId } from '../allocation/support.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

describe('heartbeat counters', () => {
  it('count every batch and reading the node received for the organisation, REST and socket alike: accepted, and refused by reason; another organisation\'s are its own', async () => {
    const w = workerId();
    await makeAvailable(h, w);
    await h.clock.advance(1000);
    const now = h.clock.now();
    const r = await heartbeats(h, { worker_id: w, readings: [reading(now - 300), reading(now - 200, { position: { latitude: 6.5244, longitude: 3.3792, accuracy_metres: 400 } }), reading(now - 100)] });
    expect(r.status, r.text).toBe(200);
    const ws = await connect(`${h.url}/v1/allocation/heartbeats/stream`, { 'service-api-key': h.key });
    ws.send(JSON.stringify({ worker_id: w, readings: [reading(now - 100), reading(now - 50)] }));
    expect(JSON.parse((await ws.next()).text)).toMatchObject({ accepted_count: 1, rejected_count: 1 });
    ws.close();

    const c = await h.request('GET', '/v1/allocation/counters');
    expect(c.status, c.text).toBe(200);
    expect(c.body).toMatchObject({ object: 'allocation_counters', batches: 2, readings_received: 5, readings_accepted: 3, readings_rejected: 2, rejected_by_reason: { accuracy_below_threshold: 1, duplicate_reading: 1 } });
    expect(Date.parse(c.body.since)).toBeLessThanOrEqual(h.clock.now());

    const other = await h.register();
    expect((await h.request('GET', '/v1/allocation/counters', { key: other.key })).body).toMatchObject({ batches: 0, readings_received: 0, readings_accepted: 0, readings_rejected: 0, rejected_by_reason: {} });
  });

  it('need the match:read scope', async () => {
    const k = await h.request('POST', '/v1/api_keys', { idempotencyKey: `ik-counters-${process.pid}`, body: { name: 'no match', scopes: ['run:read'] } });
    expect(k.status, k.text).toBe(200);
    const r = await h.request('GET', '/v1/allocation/counters', { key: k.body.key });
    expect(r.status).toBe(403);
    expect(r.body.error.message).toContain('match:read');
  });
});
