/**
 * One supply map for the cluster (DESIGN "The supply map", "Sharding"; docs/architecture.md "One
 * supply map for the cluster"), on three node processes over the real NATS and Redis:
 *  - heartbeats sent to node A, a work order opened on node B, its ranking asked on node C: every
 *    node ranks over every worker, wherever their heartbeats landed;
 *  - kill -9 of the node that owns the work order while an offer is pending: the offer's expiry
 *    reminder fires on the new owner, the cascade offers the next candidate, a decline and an
 *    acceptance follow, and the work order's journal shows every offer made once, none lost, none
 *    doubled, one writer per version.
 * Processes, leases and the actors' clock run on wall time; the waits are bounded by deadlines.
 */
import { Kvm } from '@nats-io/kv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../runtime/index.ts';
import { DEFAULT_SHARDS, shardOf } from '../../runtime/cluster/index.ts';
import { jsonCall, type JsonReply } from '../../support/node-http.ts';
import { clusterTestStores, testNamespace } from '../../support/stores.ts';
import type { ClusterStores } from '../../stores/index.ts';
import { WorkOrder } from '../../actors/allocation/index.ts';
import { EMPLOYMENT_FACTS } from '../engagements/support.ts';
import { NodeProcesses, type Proc } from '../../support/chaos/node-processes.ts';

const namespace = testNamespace('alloc_supply');
const nodes = new NodeProcesses(namespace, 'test/cluster/node-main.ts', { logDir: process.env.ALLOCATION_CLUSTER_LOG_DIR });
afterAll(() => nodes.stopAll(), 60_000);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let seq = 0;
let apiKey = '';

async function call(p: Proc, method: string, path: string, body?: unknown, key = apiKey): Promise<JsonReply> {
  const headers: Record<string, string> = { 'service-api-key': key };
  if (method === 'POST') headers['idempotency-key'] = `as-${process.pid}-${++seq}`;
  return jsonCall(p.port, method, path, headers, body, { agent: false, timeoutMs: 30_000 });
}

async function ok(p: Proc, method: string, path: string, body?: unknown, key?: string): Promise<any> {
  const r = await call(p, method, path, body, key);
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

/** A subject with a live passport (the sandbox NIN resolves at dal_2). */
async function livePassport(p: Proc, subject: string): Promise<void> {
  const token = await ok(p, 'POST', '/v1/identity/consent_tokens', { subject_ref: subject, purpose: 'employment_verification', checks: ['government_identifier', 'name_match', 'date_of_birth_match'], wording_version: 'v1' });
  const v = await ok(p, 'POST', '/v1/identity/verifications', { subject_ref: subject, consent_token_id: token.id, claims: { full_name: 'Chidi Okafor', date_of_birth: '1990-04-12', government_identifier: '70123456789' } });
  expect(v.outcome).toBe('resolved');
}

/** An engagement between the employer and the worker, executed and current. */
async function currentEngagement(p: Proc, employer: string, worker: string): Promise<void> {
  const e = await ok(p, 'POST', '/v1/rail/engagements', { engaging_party_ref: employer, worker_ref: worker, starts_on: '2026-01-05', ends_on: null, facts: EMPLOYMENT_FACTS });
  await ok(p, 'POST', `/v1/rail/engagements/${e.id}/paper`, { template_code: 'ng_contract_of_employment' });
  const instrument = (await ok(p, 'GET', `/v1/rail/instruments?engagement_id=${e.id}`)).data[0];
  for (const [party, ref] of [['engaging_party', employer], ['worker', worker]]) await ok(p, 'POST', `/v1/rail/engagements/${e.id}/instruments/${instrument.id}/assents`, { party, subject_ref: ref });
  await ok(p, 'POST', `/v1/rail/engagements/${e.id}/instruments/${instrument.id}/execute`);
  expect((await ok(p, 'POST', `/v1/rail/engagements/${e.id}/activate`)).status).toBe('current');
}

/** The worker makes themselves available with their own device credential (spec 4.7). */
async function makeAvailable(p: Proc, worker: string): Promise<void> {
  const device = await ok(p, 'POST', '/v1/allocation/device_credentials', { worker_id: worker });
  await ok(p, 'PUT', `/v1/allocation/availability/${worker}`, { availability: 'available' }, device.key);
}

const CENTRE = { latitude: 6.45, longitude: 3.39 };
const north = (metres: number) => ({ latitude: CENTRE.latitude + metres / 111_320, longitude: CENTRE.longitude, accuracy_metres: 5 });

function reading(at: number, position: { latitude: number; longitude: number; accuracy_metres: number }) {
  return { recorded_at: new Date(at).toISOString(), position, connectivity: 'good', availability: 'available', battery_percent: 80, mock_location_detected: false, device_integrity_attested: true };
}

interface Offer {
  id: string;
  worker_id: string;
  status: string;
}

describe('one supply map for the cluster: three node processes (DESIGN "The supply map", "Sharding")', () => {
  let stores: ClusterStores;
  let kv: Awaited<ReturnType<Kvm['open']>>;
  let a: Proc, b: Proc, c: Proc;
  const workers: string[] = [];

  beforeAll(async () => {
    [a, b, c] = await Promise.all([nodes.start('node-a'), nodes.start('node-b'), nodes.start('node-c')]);
    stores = await clusterTestStores(new ManualClock(), { namespace, ephemeral: false });
    kv = await new Kvm(stores.nats).open(`${namespace}_shards`);
    await until(
      'every shard owned',
      async () => {
        let n = 0;
        for (let s = 0; s < DEFAULT_SHARDS; s++) {
          const e = await kv.get(`s.${s}`);
          if (e && e.operation === 'PUT' && e.value.length && e.json<{ until: number }>().until > Date.now()) n++;
        }
        return n === DEFAULT_SHARDS ? true : undefined;
      },
      20_000,
    );
    const reg = await jsonCall(a.port, 'POST', '/v1/registrations', {}, { organisation_name: 'Supply Works', name: 'Ada Obi', email: `alloc.supply.${process.pid}@example.ng`, password: 'violet-harmattan-7-kettle' }, { agent: false, timeoutMs: 30_000 });
    if (reg.status !== 200) throw new Error(`registration failed: ${reg.status} ${JSON.stringify(reg.body)}`);
    apiKey = reg.body.api_key.key;
    // three eligible workers (live passport, current engagement), 100, 200 and 300 m north of the point
    const employer = `employer_${process.pid}`;
    await livePassport(a, employer);
    for (let i = 1; i <= 3; i++) {
      const w = `wrk_cluster_${process.pid}_${i}`;
      await livePassport(a, w);
      await currentEngagement(a, employer, w);
      await makeAvailable(a, w);
      workers.push(w);
    }
  }, 180_000);

  afterAll(async () => {
    await stores?.close();
  });

  it('heartbeats on A, a work order opened on B, its ranking on C sees every worker; kill -9 of the work order\u2019s owner mid-cascade: the cascade goes on with no offer lost or doubled', async () => {
    // heartbeats land on node A only; each reading is recorded now, after its worker became
    // available (the last worker's availability is committed a moment before: a reading dated
    // before it is outside the collection window, spec 2.8)
    for (const [i, w] of workers.entries()) {
      const r = await ok(a, 'POST', '/v1/allocation/heartbeats', { worker_id: w, readings: [reading(Date.now(), north(100 * (i + 1)))] });
      expect(r, JSON.stringify(r.rejections)).toMatchObject({ accepted_count: 1, presence: 'reporting' });
    }
    const near = async (p: Proc) => ((await ok(p, 'GET', `/v1/allocation/supply?latitude=${CENTRE.latitude}&longitude=${CENTRE.longitude}&radius_metres=2000`)).data as { worker_id: string }[]).map((n) => n.worker_id);
    // B and C hold no soft state of these workers: they see them through the cluster's supply map
    for (const p of [b, c]) await until(`${p.id} sees the workers in its supply map`, async () => ((await near(p)).length === 3 ? true : undefined), 10_000);
    expect(await near(c)).toEqual(workers);

    // the work order, opened on B, ranks the three
    const window = { starts_at: new Date().toISOString(), ends_at: new Date(Date.now() + 4 * 3_600_000).toISOString() };
    const wo = await ok(b, 'POST', '/v1/allocation/work_orders', { location: { ...CENTRE, radius_metres: 1000 }, search_radius_metres: 2000, window, headcount: 1, cascade_width: 1, offer_timeout_seconds: 10 });
    expect(wo.cascade).toMatchObject({ candidates: 3, offered: 1, pending: 1 });
    // its ranking, asked on C
    const ranking = await ok(c, 'GET', `/v1/allocation/work_orders/${wo.id}/ranking`);
    expect((ranking.candidates as { worker_id: string }[]).map((x) => x.worker_id)).toEqual(workers);
    const offersOn = async (p: Proc) => ((await ok(p, 'GET', `/v1/allocation/work_orders/${wo.id}/offers`)).data as Offer[]).slice().reverse();
    const first = await offersOn(c);
    expect(first.map((o) => [o.worker_id, o.status])).toEqual([[workers[0], 'pending']]);

    // kill -9 the node that owns the work order while its first offer is pending
    const lease = await kv.get(`s.${shardOf(WorkOrder.kind, wo.id)}`);
    const ownerId = lease!.json<{ node: string }>().node;
    const owner = [a, b, c].find((p) => p.id === ownerId)!;
    owner.up = false;
    owner.child.kill('SIGKILL');
    const [s1, s2] = [a, b, c].filter((p) => p.up);

    // the survivors still rank over every worker (their copies of the map hold them, whichever node died)
    const again = await until('a survivor ranks again', async () => {
      const r = await call(s1, 'GET', `/v1/allocation/work_orders/${wo.id}/ranking`);
      return r.status === 200 ? r.body : undefined;
    }, 30_000);
    expect((again.candidates as { worker_id: string }[]).map((x) => x.worker_id)).toEqual(workers);

    // the pending offer's expiry reminder fires on the new owner, and the cascade offers the next
    const afterExpiry = await until('the first offer expires and the second is made', async () => {
      const r = await call(s2, 'GET', `/v1/allocation/work_orders/${wo.id}/offers`);
      if (r.status !== 200) return undefined;
      const list = (r.body.data as Offer[]).slice().reverse();
      return list.length >= 2 ? list : undefined;
    }, 40_000);
    expect(afterExpiry.map((o) => [o.worker_id, o.status])).toEqual([
      [workers[0], 'expired'],
      [workers[1], 'pending'],
    ]);
    // a decline on one survivor, an acceptance on the other
    await ok(s1, 'POST', `/v1/allocation/offers/${afterExpiry[1].id}/decline`, { reason: 'Too far today.' });
    const third = await until('the third offer is made', async () => {
      const list = await offersOn(s2);
      return list.length === 3 ? list[2] : undefined;
    }, 10_000);
    expect([third.worker_id, third.status]).toEqual([workers[2], 'pending']);
    const accepted = await ok(s2, 'POST', `/v1/allocation/offers/${third.id}/accept`);
    expect(accepted.status).toBe('accepted');

    const final = await ok(s1, 'GET', `/v1/allocation/work_orders/${wo.id}`);
    expect(final).toMatchObject({ status: 'filled', accepted_count: 1, cascade: { candidates: 3, offered: 3, pending: 0, accepted: 1, declined: 1, expired: 1, withdrawn: 0 } });
    expect((await offersOn(s1)).map((o) => [o.worker_id, o.status])).toEqual([
      [workers[0], 'expired'],
      [workers[1], 'declined'],
      [workers[2], 'accepted'],
    ]);

    // the journal: one writer per version, each offer made once and decided once
    const events = await stores.journal.read(`${WorkOrder.kind}.${wo.id}`, 0);
    expect(events.map((e) => e.version)).toEqual(events.map((_, i) => i + 1));
    const made = events.filter((e) => e.type === 'offer.made').map((e) => (e.data as { offer_id: string; worker_id: string }).worker_id);
    expect(made).toEqual(workers);
    const decided = events.filter((e) => ['offer.expired', 'offer.declined', 'offer.accepted'].includes(e.type)).map((e) => (e.data as { offer_id: string }).offer_id);
    expect(new Set(decided).size).toBe(3);
    expect(decided).toHaveLength(3);
  }, 180_000);
});
