/**
 * Offers to the phone across the cluster (spec 4.7; docs/gaps.md#allocation "Offers to the device"),
 * on three node processes over the real NATS and Redis: the worker's device is connected to node A,
 * the work order lives on node B (its shard's lease), the worker's inbox on node C. The offer the
 * work order makes reaches the device on A; the device accepts it on C knowing only what the frame
 * said; after it disconnects, another offer is made, and the device reconnecting to C asks for what
 * it missed by sequence. Processes, leases and the actors' clock run on wall time; the waits are
 * bounded by deadlines.
 */
import { Kvm } from '@nats-io/kv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../runtime/index.ts';
import { DEFAULT_SHARDS, shardOf } from '../../runtime/cluster/index.ts';
import { derivedId } from '../../kernel/index.ts';
import { DeviceInbox, HEARTBEAT_SOCKET_PATH, inboxIdOf, WorkOrder } from '../../actors/allocation/index.ts';
import { jsonCall, type JsonReply } from '../../support/node-http.ts';
import { clusterTestStores, testNamespace } from '../../support/stores.ts';
import { connect, type TestSocket } from '../../support/ws.ts';
import type { ClusterStores } from '../../stores/index.ts';
import { EMPLOYMENT_FACTS } from '../engagements/support.ts';
import { NodeProcesses, type Proc } from '../../support/chaos/node-processes.ts';

const namespace = testNamespace('device_offers');
const nodes = new NodeProcesses(namespace, 'test/cluster/node-main.ts', { logDir: process.env.ALLOCATION_CLUSTER_LOG_DIR });
afterAll(() => nodes.stopAll(), 60_000);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let seq = 0;
let apiKey = '';

async function call(p: Proc, method: string, path: string, body?: unknown, key = apiKey, ik?: string): Promise<JsonReply> {
  const headers: Record<string, string> = { 'service-api-key': key };
  if (method === 'POST') headers['idempotency-key'] = ik ?? `do-${process.pid}-${++seq}`;
  return jsonCall(p.port, method, path, headers, body, { agent: false, timeoutMs: 30_000 });
}

async function ok(p: Proc, method: string, path: string, body?: unknown, key?: string, ik?: string): Promise<any> {
  const r = await call(p, method, path, body, key, ik);
  if (r.status < 200 || r.status >= 300) throw new Error(`${method} ${path} on ${p.id}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

async function until<T>(what: string, f: () => Promise<T | undefined>, limitMs: number): Promise<T> {
  const t = performance.now();
  for (;;) {
    const v = await f();
    if (v !== undefined) return v;
    if (performance.now() - t > limitMs) throw new Error(`${what}: not within ${limitMs / 1000} s`);
    await sleep(100);
  }
}

/** The next frame of the socket matching `match`, read within `limitMs` (a deadline for a failure, not a time rule). */
async function frame(s: TestSocket, what: string, match: (f: any) => boolean, limitMs = 15_000): Promise<any> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no ${what} frame within ${limitMs / 1000} s`)), limitMs)));
  try {
    for (;;) {
      const f = JSON.parse((await Promise.race([s.next(), deadline])).text);
      if (match(f)) return f;
    }
  } finally {
    clearTimeout(timer);
  }
}

async function livePassport(p: Proc, subject: string): Promise<void> {
  const token = await ok(p, 'POST', '/v1/identity/consent_tokens', { subject_ref: subject, purpose: 'employment_verification', checks: ['government_identifier', 'name_match', 'date_of_birth_match'], wording_version: 'v1' });
  const v = await ok(p, 'POST', '/v1/identity/verifications', { subject_ref: subject, consent_token_id: token.id, claims: { full_name: 'Chidi Okafor', date_of_birth: '1990-04-12', government_identifier: '70123456789' } });
  expect(v.outcome).toBe('resolved');
}

async function currentEngagement(p: Proc, employer: string, worker: string): Promise<void> {
  const e = await ok(p, 'POST', '/v1/rail/engagements', { engaging_party_ref: employer, worker_ref: worker, starts_on: '2026-01-05', ends_on: null, facts: EMPLOYMENT_FACTS });
  await ok(p, 'POST', `/v1/rail/engagements/${e.id}/paper`, { template_code: 'ng_contract_of_employment' });
  const instrument = (await ok(p, 'GET', `/v1/rail/instruments?engagement_id=${e.id}`)).data[0];
  for (const [party, ref] of [['engaging_party', employer], ['worker', worker]]) await ok(p, 'POST', `/v1/rail/engagements/${e.id}/instruments/${instrument.id}/assents`, { party, subject_ref: ref });
  await ok(p, 'POST', `/v1/rail/engagements/${e.id}/instruments/${instrument.id}/execute`);
  expect((await ok(p, 'POST', `/v1/rail/engagements/${e.id}/activate`)).status).toBe('current');
}

const CENTRE = { latitude: 6.47, longitude: 3.41 };

describe('offers reach a device on another node (spec 4.7; DESIGN "Sharding")', () => {
  let stores: ClusterStores;
  let kv: Awaited<ReturnType<Kvm['open']>>;
  let a: Proc, b: Proc, c: Proc;
  let org = '';
  const ownerOf = async (kind: string, id: string): Promise<string> => (await kv.get(`s.${shardOf(kind, id)}`))!.json<{ node: string }>().node;

  beforeAll(async () => {
    [a, b, c] = await Promise.all([nodes.start('node-a'), nodes.start('node-b'), nodes.start('node-c')]);
    stores = await clusterTestStores(new ManualClock(), { namespace, ephemeral: false });
    kv = await new Kvm(stores.nats).open(`${namespace}_shards`);
    await until('every shard owned', async () => {
      let n = 0;
      for (let s = 0; s < DEFAULT_SHARDS; s++) {
        const e = await kv.get(`s.${s}`);
        if (e && e.operation === 'PUT' && e.value.length && e.json<{ until: number }>().until > Date.now()) n++;
      }
      return n === DEFAULT_SHARDS ? true : undefined;
    }, 20_000);
    const reg = await jsonCall(a.port, 'POST', '/v1/registrations', {}, { organisation_name: 'Field Works', name: 'Ada Obi', email: `device.offers.${process.pid}@example.ng`, password: 'violet-harmattan-7-kettle' }, { agent: false, timeoutMs: 30_000 });
    if (reg.status !== 200) throw new Error(`registration failed: ${reg.status} ${JSON.stringify(reg.body)}`);
    apiKey = reg.body.api_key.key;
    org = reg.body.organisation.id;
  }, 180_000);

  afterAll(async () => {
    await stores?.close();
  });

  it('a device on node A receives the offer a work order on node B made, accepts it on node C, and on reconnecting to C receives the offer it missed', async () => {
    // a worker whose inbox is on node C, so the notice crosses from B (the work order) to C (the inbox) to A (the device)
    let worker = '';
    for (let i = 0; !worker; i++) {
      const w = `wrk_devoffers_${process.pid}_${i}`;
      if ((await ownerOf(DeviceInbox.kind, inboxIdOf(org, w))) === c.id) worker = w;
    }
    const employer = `employer_dev_${process.pid}`;
    await livePassport(a, employer);
    await livePassport(a, worker);
    await currentEngagement(a, employer, worker);
    const device = (await ok(a, 'POST', '/v1/allocation/device_credentials', { worker_id: worker })).key as string;
    await ok(a, 'PUT', `/v1/allocation/availability/${worker}`, { availability: 'available' }, device);
    const reading = { recorded_at: new Date().toISOString(), position: { ...CENTRE, accuracy_metres: 5 }, connectivity: 'good', availability: 'available', battery_percent: 80, mock_location_detected: false, device_integrity_attested: true };
    expect(await ok(a, 'POST', '/v1/allocation/heartbeats', { worker_id: worker, readings: [reading] }, device)).toMatchObject({ accepted_count: 1 });
    await until('node B sees the worker in its supply map', async () => {
      const near = (await ok(b, 'GET', `/v1/allocation/supply?latitude=${CENTRE.latitude}&longitude=${CENTRE.longitude}&radius_metres=1000`)).data as { worker_id: string }[];
      return near.some((n) => n.worker_id === worker) ? true : undefined;
    }, 10_000);

    const onA = await connect(`http://127.0.0.1:${a.port}${HEARTBEAT_SOCKET_PATH}`, { 'service-api-key': device });
    onA.send(JSON.stringify({ type: 'subscribe' }));
    const sub = await frame(onA, 'subscribed', (f) => f.type === 'subscribed');

    /** Opens a work order on B whose actor lives on B: its Idempotency-Key picks its id, so its shard. */
    const openOnB = async () => {
      let ik = '';
      for (let i = 0; !ik; i++) {
        const k = `wo-dev-${process.pid}-${seq}-${i}`;
        if ((await ownerOf(WorkOrder.kind, derivedId('match_work_order_', [org, k, '']))) === b.id) ik = k;
      }
      seq++;
      const window = { starts_at: new Date().toISOString(), ends_at: new Date(Date.now() + 4 * 3_600_000).toISOString() };
      const wo = await ok(b, 'POST', '/v1/allocation/work_orders', { location: { ...CENTRE, radius_metres: 500 }, window, headcount: 1, cascade_width: 1, offer_timeout_seconds: 120 }, undefined, ik);
      expect(await ownerOf(WorkOrder.kind, wo.id)).toBe(b.id);
      return wo;
    };

    const wo1 = await openOnB();
    const made = await frame(onA, 'offer.made', (f) => f.type === 'offer.made' && f.offer.work_order_id === wo1.id);
    expect(made).toMatchObject({ sequence: sub.sequence + 1, worker_id: worker, offer: { status: 'pending', worker_id: worker } });
    expect(Date.now()).toBeLessThan(Date.parse(made.offer.expires_at)); // within the offer's life
    // accepted on node C with only what the frame said
    const accepted = await ok(c, 'POST', `/v1/allocation/offers/${made.offer.id}/accept`, undefined, device);
    expect(accepted).toMatchObject({ id: made.offer.id, status: 'accepted' });
    const told = await frame(onA, 'offer.accepted', (f) => f.type === 'offer.accepted');
    expect(told.sequence).toBe(made.sequence + 1);
    onA.close();

    // made while no device is connected; the device reconnects to C and asks after what it holds
    const wo2 = await openOnB();
    const onC = await connect(`http://127.0.0.1:${c.port}${HEARTBEAT_SOCKET_PATH}`, { 'service-api-key': device });
    onC.send(JSON.stringify({ type: 'subscribe', after_sequence: told.sequence }));
    // from the backlog before `subscribed`, or live after it when the inbox records it later
    const seen: any[] = [];
    await frame(onC, 'offer.made and subscribed', (f) => (seen.push(f), seen.some((x) => x.type === 'offer.made') && seen.some((x) => x.type === 'subscribed')));
    const missed = seen.find((x) => x.type === 'offer.made');
    expect(missed).toMatchObject({ sequence: told.sequence + 1, offer: { work_order_id: wo2.id, status: 'pending' } });
    expect(seen.find((x) => x.type === 'subscribed')).toMatchObject({ after_sequence: told.sequence });
    // the device's own list, asked on A, holds the pending offer
    const pending = await ok(a, 'GET', '/v1/allocation/offers?status=pending', undefined, device);
    expect(pending.data.map((o: { id: string }) => o.id)).toEqual([missed.offer.id]);
    onC.close();
  }, 180_000);
});
