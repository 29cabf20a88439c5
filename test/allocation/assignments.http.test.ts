/**
 * Assignments with proof of service and exceptions (spec 3: "acceptance, arrival and completion
 * require the engagement to be executed and current (422 engagement_not_current); arrival needs
 * geofence entry corroborated by a start passcode; completion needs a completion passcode, dwell
 * duration and telemetry continuity; disagreeing signals send the assignment to exception and it
 * does not settle"; 4.7; 6 cascade removal), through a real socket.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CASCADE_REMOVAL } from '../../actors/allocation/index.ts';
import { startHarness, type Harness } from '../../support/http.ts';
import { post as railPost } from '../engagements/support.ts';
import { dispatchKit, type Point } from './dispatch-support.ts';

let h: Harness;
let kit: ReturnType<typeof dispatchKit>;
beforeAll(async () => {
  h = await startHarness();
  kit = dispatchKit(h);
});
afterAll(async () => {
  await h?.close();
});

const MIN = 60_000;

/** A worker 400 m north of a 100 m geofence, an accepted offer, and its assignment (with the passcodes shown once). */
async function assigned() {
  const p = kit.centre();
  const w = await kit.worker(p, 400);
  const wo = await kit.open(p, { location: { ...p, radius_metres: 100 }, search_radius_metres: 5000 });
  const [offer] = await kit.offers(wo.id);
  const acc = await kit.post(`/v1/allocation/offers/${offer!.id}/accept`);
  expect(acc.status, acc.text).toBe(200);
  const a = await kit.post('/v1/allocation/assignments', { offer_id: offer!.id });
  expect(a.status, a.text).toBe(201);
  return { p, w, wo, offer: offer!, a: a.body as { id: string; passcodes: { start: string; completion: string } } };
}

/** Readings inside the geofence every `everyMs` for `forMs`, ending now. */
async function stayInside(worker: string, p: Point, forMs: number, everyMs = MIN) {
  for (let t = 0; t <= forMs; t += everyMs) {
    await h.clock.advance(t === 0 ? 1000 : everyMs);
    await kit.at(worker, p);
  }
  await h.platform.system.settle();
}

describe('assignments (spec 3, 4.7)', { timeout: 120_000 }, () => {
  it('arrival needs the start passcode and a geofence entry; completion needs the passcode, dwell and continuity; the proof is sealed', async () => {
    const { p, w, a } = await assigned();
    expect(a.passcodes.start).toMatch(/^\d{6}$/);
    const read = await h.request('GET', `/v1/allocation/assignments/${a.id}`);
    expect(read.body).toMatchObject({ object: 'assignment', status: 'assigned' });
    await h.platform.system.settle();
    // on assignment: out of the supply map, readings still collected
    expect((await h.request('GET', `/v1/allocation/supply/${w.worker}`)).body).toMatchObject({ in_map: false, excluded_because: 'on_assignment' });
    expect(read.text).not.toContain(a.passcodes.start);
    expect((await kit.post(`/v1/allocation/assignments/${a.id}/start`)).body.status).toBe('started');
    const wrong = await kit.post(`/v1/allocation/assignments/${a.id}/arrival`, { passcode: a.passcodes.start === '000000' ? '111111' : '000000' });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.validation.entries[0].code).toBe('passcode_mismatch');
    await h.clock.advance(30_000);
    await kit.at(w.worker, p);
    const arrived = await kit.post(`/v1/allocation/assignments/${a.id}/arrival`, { passcode: a.passcodes.start });
    expect(arrived.status, arrived.text).toBe(200);
    expect(arrived.body.status).toBe('arrived');
    await stayInside(w.worker, p, 6 * MIN);
    const done = await kit.post(`/v1/allocation/assignments/${a.id}/completion`, { passcode: a.passcodes.completion });
    expect(done.status, done.text).toBe(200);
    expect(done.body).toMatchObject({ status: 'completed', proof_sealed: true });
    const proof = (await h.request('GET', `/v1/allocation/assignments/${a.id}/proof`)).body;
    expect(proof).toMatchObject({ object: 'proof_bundle', assignment_id: a.id, continuity: { max_gap_seconds: 60 } });
    expect(proof.dwell_seconds).toBeGreaterThanOrEqual(300);
    expect(proof.seal.hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(proof.geofence_crossings[0]).toMatchObject({ direction: 'entered' });
    expect(proof.passcode_checks.map((c: { digest: string }) => c.digest.startsWith('sha256:'))).toEqual([true, true]);
    expect(JSON.stringify(proof)).not.toContain(a.passcodes.completion);
    // the completed assignment counts towards the worker's reliability in later rankings (prior 0.5, weight 2)
    await h.platform.system.settle();
    const next = await kit.open(p);
    const ranked = (await h.request('GET', `/v1/allocation/work_orders/${next.id}/ranking`)).body.candidates as { worker_id: string; factors: { reliability: { value: number } } }[];
    expect(ranked.find((c) => c.worker_id === w.worker)!.factors.reliability.value).toBeCloseTo((1 + 0.5 * 2) / (1 + 2), 5);
  });

  it('a passcode with no geofence entry is an exception; adjudicated dismissed it closes without a proof', async () => {
    const { a } = await assigned();
    const r = await kit.post(`/v1/allocation/assignments/${a.id}/arrive`, { passcode: a.passcodes.start });
    expect(r.body).toMatchObject({ status: 'exception' });
    const exc = (await h.request('GET', `/v1/allocation/exceptions/${r.body.exception_id}`)).body;
    expect(exc).toMatchObject({ object: 'assignment_exception', status: 'open', step: 'arrival' });
    expect(exc.conflicting_signals.map((s: { name: string }) => s.name)).toEqual(['start_passcode_without_geofence_entry']);
    expect((await h.request('GET', '/v1/allocation/exceptions')).body.data.some((e: { id: string }) => e.id === exc.id)).toBe(true);
    const bad = await kit.post(`/v1/allocation/exceptions/${exc.id}/adjudicate`, { outcome: 'upheld', reason: 'x', accepted_signals: ['telemetry_gap'] });
    expect(bad.status).toBe(400);
    const d = await kit.post(`/v1/allocation/exceptions/${exc.id}/adjudicate`, { outcome: 'dismissed', reason: 'The worker never reached the site.' });
    expect(d.body).toMatchObject({ status: 'dismissed', decision: { outcome: 'dismissed' } });
    expect((await h.request('GET', `/v1/allocation/assignments/${a.id}`)).body.status).toBe('closed');
    expect((await h.request('GET', `/v1/allocation/assignments/${a.id}/proof`)).status).toBe(409);
    expect((await kit.post(`/v1/allocation/exceptions/${exc.id}/adjudicate`, { outcome: 'upheld', reason: 'again' })).status).toBe(409);
  });

  it('dwell counts from the geofence entry, not from the first reading after arrival: minutes inside before arrival count (spec 3)', async () => {
    const { p, w, a } = await assigned();
    // a walk to the site, inside from the first reading there, arrival recorded four minutes later,
    // completion two minutes after that
    await h.clock.advance(MIN);
    await stayInside(w.worker, p, 4 * MIN);
    expect((await kit.post(`/v1/allocation/assignments/${a.id}/arrive`, { passcode: a.passcodes.start })).body.status).toBe('arrived');
    await stayInside(w.worker, p, 2 * MIN);
    const done = await kit.post(`/v1/allocation/assignments/${a.id}/complete`, { passcode: a.passcodes.completion });
    expect(done.body, done.text).toMatchObject({ status: 'completed' });
    const proof = (await h.request('GET', `/v1/allocation/assignments/${a.id}/proof`)).body;
    expect(proof.dwell_seconds).toBeGreaterThanOrEqual(300); // the policy's minimum; after arrival alone it is about 120
    expect(proof.geofence_crossings[0]).toMatchObject({ direction: 'entered' });
  });

  it('an accepted offer without its assignment leaves the work order waiting with next_action create_assignment; making the assignment clears it (docs/gaps.md next_action)', async () => {
    const p = kit.centre();
    await kit.worker(p, 400);
    const wo = await kit.open(p);
    const [offer] = await kit.offers(wo.id);
    // a pending offer moves on by itself (an answer or its expiry): nothing to do
    expect((await h.request('GET', `/v1/allocation/work_orders/${wo.id}`)).body.next_action).toBeNull();
    expect((await kit.post(`/v1/allocation/offers/${offer!.id}/accept`)).status).toBe(200);
    expect((await h.request('GET', `/v1/allocation/work_orders/${wo.id}`)).body).toMatchObject({
      status: 'filled',
      next_action: { code: 'create_assignment', call: { method: 'POST', path: '/v1/allocation/assignments' }, details: { offer_ids: [offer!.id] } },
    });
    expect((await kit.post('/v1/allocation/assignments', { offer_id: offer!.id })).status).toBe(201);
    expect((await h.request('GET', `/v1/allocation/work_orders/${wo.id}`)).body.next_action).toBeNull();
  });

  it('an assignment in exception waits for a person: next_action adjudicate_exception names the call; decided, it waits for nothing (spec 3; docs/gaps.md next_action)', async () => {
    const { a } = await assigned();
    expect((await h.request('GET', `/v1/allocation/assignments/${a.id}`)).body.next_action).toBeNull();
    const r = await kit.post(`/v1/allocation/assignments/${a.id}/arrive`, { passcode: a.passcodes.start });
    expect(r.body).toMatchObject({
      status: 'exception',
      next_action: { code: 'adjudicate_exception', call: { method: 'POST', path: `/v1/allocation/exceptions/${r.body.exception_id}/adjudicate` }, details: { conflicting_signals: ['start_passcode_without_geofence_entry'] } },
    });
    await kit.post(`/v1/allocation/exceptions/${r.body.exception_id}/adjudicate`, { outcome: 'dismissed', reason: 'Never reached the site.' });
    expect((await h.request('GET', `/v1/allocation/assignments/${a.id}`)).body).toMatchObject({ status: 'closed', next_action: null });
  });

  it('short dwell and a telemetry gap send completion to an exception; upheld, the proof is sealed', async () => {
    const { p, w, a } = await assigned();
    await h.clock.advance(10_000);
    await kit.at(w.worker, p);
    expect((await kit.post(`/v1/allocation/assignments/${a.id}/arrive`, { passcode: a.passcodes.start })).body.status).toBe('arrived');
    await h.clock.advance(10 * MIN);
    await kit.at(w.worker, p);
    const r = await kit.post(`/v1/allocation/assignments/${a.id}/complete`, { passcode: a.passcodes.completion });
    expect(r.body.status).toBe('exception');
    const exc = (await h.request('GET', `/v1/allocation/exceptions/${r.body.exception_id}`)).body;
    // ten minutes with one reading at its end: no continuity, and a silence longer than the
    // telemetry gap is not counted as dwell
    expect(exc.conflicting_signals.map((s: { name: string }) => s.name).sort()).toEqual(['dwell_too_short', 'telemetry_gap']);
    const up = await kit.post(`/v1/allocation/exceptions/${exc.id}/adjudicate`, { outcome: 'upheld', reason: 'The site has no signal; the supervisor confirms the work.', accepted_signals: ['telemetry_gap'] });
    expect(up.body).toMatchObject({ status: 'upheld', decision: { accepted_signals: ['telemetry_gap'] } });
    expect((await h.request('GET', `/v1/allocation/assignments/${a.id}`)).body).toMatchObject({ status: 'completed', proof_sealed: true });
    const proof = (await h.request('GET', `/v1/allocation/assignments/${a.id}/proof`)).body;
    expect(proof.exception.decision.outcome).toBe('upheld');
  });

  it('arrival is refused with 422 engagement_not_current when standing is not current', async () => {
    const { p, w, a } = await assigned();
    const removal = h.platform.services.require(CASCADE_REMOVAL);
    await removal.stop();
    try {
      await railPost(h, `/v1/rail/engagements/${w.engagementId}/lapse`, { reason: 'suspended' });
      await h.clock.advance(10_000);
      await kit.at(w.worker, p);
      const r = await kit.post(`/v1/allocation/assignments/${a.id}/arrival`, { passcode: a.passcodes.start });
      expect(r.status).toBe(422);
      expect(r.body.error.code).toBe('engagement_not_current');
    } finally {
      removal.start();
    }
    await h.platform.system.settle();
    // not started: cascade removal cancels it
    expect((await h.request('GET', `/v1/allocation/assignments/${a.id}`)).body).toMatchObject({ status: 'cancelled', cancellation: { reason: 'legal_standing_lapsed' } });
  });

  it('a revoked passport cancels the worker\u2019s unstarted assignments (spec 6); an assignment under way stays for a person', async () => {
    const one = await assigned();
    await h.request('POST', '/v1/identity/blocklist_entries', { body: { subject_ref: one.w.worker, reason: 'fraud' }, idempotencyKey: kit.ik('bl') });
    await h.platform.system.settle();
    expect((await h.request('GET', `/v1/allocation/assignments/${one.a.id}`)).body).toMatchObject({ status: 'cancelled', cancellation: { reason: 'identity_revoked' } });
    expect((await kit.post('/v1/allocation/assignments', { offer_id: one.offer.id })).status).toBe(409);
  });
});
