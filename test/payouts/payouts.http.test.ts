/**
 * One actor per payout (spec 2.11, 3 "Individual payout", 8): failover on a definite refusal, the
 * unknown state resolved only by the rail's status query, and the payroll run's outcome
 * (spec 2.9: completed / partially_settled with payroll.run.completed).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/http.ts';
import { PAYOUT_KIND, payoutIdOf, payouts as payoutsService } from '../../actors/payouts/index.ts';
import { advanceUntil, fund, ik, livePassports, post, runWithAccounts } from './support.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

type Org = { key: string; org: string };

/** A run for payees tagged with sandbox behaviours, its instruction submitted, funded, planned and executed. */
async function executed(o: Org, payees: Array<{ ref: string; tag: string | null }>, opts: { passports?: string[] } = {}) {
  const x = await runWithAccounts(h, o, payees);
  await livePassports(h, o.org, opts.passports ?? payees.map((p) => p.ref));
  const r = await h.request('POST', '/v1/payouts/instructions', { key: o.key, idempotencyKey: ik('instr'), body: x.signed });
  expect(r.body.status, r.text).toBe('received');
  await fund(h, o.key, x.doc.total);
  expect((await post(h, o.key, `/v1/payouts/instructions/${r.body.id}/plan`)).status).toBe(201);
  const ex = await post(h, o.key, `/v1/payouts/instructions/${r.body.id}/execute`);
  expect(ex.status, ex.text).toBe(200);
  expect(ex.body.status).toBe('executing');
  await h.platform.system.settle();
  return { ...x, id: r.body.id as string };
}

const payouts = async (o: Org, id: string) => (await h.request('GET', `/v1/payouts/payouts?instruction_id=${id}&limit=100`, { key: o.key })).body.data as any[];
const byRef = async (o: Org, id: string, ref: string) => (await payouts(o, id)).find((p) => p.payee_ref === ref);
const attempts = async (o: Org, pid: string) => (await h.request('GET', `/v1/payouts/payouts/${pid}/attempts`, { key: o.key })).body.data as any[];
const instruction = async (o: Org, id: string) => (await h.request('GET', `/v1/payouts/instructions/${id}`, { key: o.key })).body;
const run = async (o: Org, id: string) => (await h.request('GET', `/v1/payroll/runs/${id}`, { key: o.key })).body;

describe('failover on a definite refusal (spec 2.11, 8)', () => {
  it('a refusal on the primary rail moves the payout to the next rail of the plan at once, and it settles there', async () => {
    const o = await h.register();
    const x = await executed(o, [{ ref: 'r1', tag: '91' }]);
    const p = await byRef(o, x.id, 'r1');
    expect(p).toMatchObject({ object: 'payout', status: 'settled', attempt_count: 2, current_rail_id: 'route_multi_rail_rail_batch' });
    const a = await attempts(o, p.id);
    expect(a.map((t) => [t.rail_id, t.status, t.code])).toEqual([['route_multi_rail_rail_nip', 'refused', '91'], ['route_multi_rail_rail_batch', 'settled', '00']]);
    expect((await h.request('GET', `/v1/payouts/payouts/${p.id}/attempts/${a[0].id}`, { key: o.key })).body).toMatchObject({ object: 'payout_attempt', reference: a[0].id });
  });

  it('a payee every rail refuses fails after the last rail; the instruction and the run end partially_settled', async () => {
    const o = await h.register();
    const x = await executed(o, [{ ref: 'ok', tag: '10' }, { ref: 'bad', tag: '92' }]);
    const bad = await byRef(o, x.id, 'bad');
    expect(bad).toMatchObject({ status: 'failed', attempt_count: 3 });
    expect(bad.failure_reason).toMatch(/every rail/);
    await h.platform.system.settle();
    expect((await instruction(o, x.id)).status).toBe('partially_settled');
    expect((await run(o, x.run.id)).status).toBe('partially_settled');
  });
});

describe('a time-out is unknown, never failed (spec 3 Individual payout)', () => {
  it('a time-out makes the payout unknown; the status query reminder resolves it settled and it is never sent again', async () => {
    const o = await h.register();
    const x = await executed(o, [{ ref: 't1', tag: '93' }]);
    const p = await byRef(o, x.id, 't1');
    expect(p).toMatchObject({ status: 'unknown', attempt_count: 1, current_rail_id: 'route_multi_rail_rail_nip' });
    expect((await instruction(o, x.id)).status).toBe('executing');
    // Asking now, before the rail knows, leaves it unknown (01): no assumption, no other rail.
    const early = await post(h, o.key, `/v1/payouts/payouts/${p.id}/resolve`);
    expect(early.status, early.text).toBe(200);
    expect(early.body).toMatchObject({ status: 'unknown', attempt_count: 1 });
    await advanceUntil(h, async () => (await byRef(o, x.id, 't1')).status !== 'unknown', 60_000);
    const after = await byRef(o, x.id, 't1');
    expect(after).toMatchObject({ status: 'settled', attempt_count: 1 });
    const a = await attempts(o, p.id);
    expect(a).toHaveLength(1);
    expect(a[0].status_queries).toBeGreaterThanOrEqual(1);
    // Settled is final: later reminders and resolves send nothing again.
    expect((await post(h, o.key, `/v1/payouts/payouts/${p.id}/resolve`)).status).toBe(409);
    await h.clock.advance(3_600_000);
    await h.platform.system.settle();
    expect(await attempts(o, p.id)).toHaveLength(1);
    expect((await instruction(o, x.id)).status).toBe('settled');
  });

  it('a time-out the status query later reports failed moves to the next rail only then', async () => {
    const o = await h.register();
    const x = await executed(o, [{ ref: 't2', tag: '94' }]);
    const p = await byRef(o, x.id, 't2');
    expect(p.status).toBe('unknown');
    await h.clock.advance(60_000);
    await h.platform.system.settle();
    // Still unknown while the rail says 01: no second attempt was made.
    if ((await byRef(o, x.id, 't2')).status === 'unknown') expect(await attempts(o, p.id)).toHaveLength(1);
    await advanceUntil(h, async () => (await byRef(o, x.id, 't2')).status === 'settled', 60_000);
    const a = await attempts(o, p.id);
    expect(a.map((t) => [t.rail_id, t.status])).toEqual([['route_multi_rail_rail_nip', 'failed'], ['route_multi_rail_rail_batch', 'settled']]);
  });

  it('spec 3 Individual payout: a send lost with its node (attempt recorded, rail never called) becomes unknown at the rail\u2019s answer time-out through the instruction\u2019s tally, and only the status query moves it on', async () => {
    const o = await h.register();
    const x = await runWithAccounts(h, o, [{ ref: 'lost', tag: '10' }]);
    await livePassports(h, o.org, ['lost']);
    const r = await h.request('POST', '/v1/payouts/instructions', { key: o.key, idempotencyKey: ik('instr'), body: x.signed });
    await fund(h, o.key, x.doc.total);
    expect((await post(h, o.key, `/v1/payouts/instructions/${r.body.id}/plan`, { primary_rail_id: 'route_multi_rail_rail_nip', fallback_rail_ids: ['route_multi_rail_rail_batch'] })).status).toBe(201);
    // The node that would send dies: its sender is gone while the instruction executes and the
    // first attempt of line 1 is recorded (what dispatch records), and nothing calls the rail.
    const svc = payoutsService(h.platform);
    await svc.stop();
    expect((await post(h, o.key, `/v1/payouts/instructions/${r.body.id}/execute`)).status).toBe(200);
    const line = x.doc.lines[0];
    const pid = payoutIdOf(r.body.id, 1);
    await h.platform.system.ask(PAYOUT_KIND, pid, 'create', {
      instruction_id: r.body.id, line: 1, payslip_id: line.payslip_id, payee_ref: 'lost', amount: line.amount, currency: 'NGN',
      account: { bank_code: line.bank_code, account_number: line.account_number, account_name: null }, validation: null, passport_live: true,
      rails: ['route_multi_rail_rail_nip', 'route_multi_rail_rail_batch'], max_attempts: 2,
      timing: { answer_timeout_ms: { route_multi_rail_rail_nip: 60_000, route_multi_rail_rail_batch: 60_000 }, query_delays_ms: { first: 60_000, fast: 60_000, fast_tries: 3, slow: 3_600_000 }, not_found_is_failed_after_ms: 1_800_000 },
      livemode: false, mocked: true,
    }, { org: o.org, principal: 'system', dedupeId: 'create' });
    await h.platform.system.flushed(); // committed, and its commit listeners told, while the sender is gone
    svc.start(); // a survivor: dispatch resumes (line 1 is already made) and the tally watches
    await h.platform.system.settle();
    expect((await h.request('GET', `/v1/payouts/payouts/${pid}`, { key: o.key })).body.status).toBe('sending');
    // Before the rail's 60 s answer time-out nothing is assumed.
    await h.clock.advance(45_000);
    await h.platform.system.settle();
    expect((await h.request('GET', `/v1/payouts/payouts/${pid}`, { key: o.key })).body.status).toBe('sending');
    await advanceUntil(h, async () => (await h.request('GET', `/v1/payouts/payouts/${pid}`, { key: o.key })).body.status !== 'sending', 15_000, 20);
    const a1 = (await attempts(o, pid))[0];
    expect(a1).toMatchObject({ rail_id: 'route_multi_rail_rail_nip', status: 'unknown', code: 'no_answer' });
    // The rail never booked it: not located, and only after the policy window it counts as not received.
    await advanceUntil(h, async () => (await h.request('GET', `/v1/payouts/payouts/${pid}`, { key: o.key })).body.status === 'settled', 600_000);
    const all = await attempts(o, pid);
    expect(all.map((t) => [t.rail_id, t.status])).toEqual([['route_multi_rail_rail_nip', 'failed'], ['route_multi_rail_rail_batch', 'settled']]);
    await h.platform.system.settle();
    expect((await instruction(o, r.body.id)).status).toBe('settled');
  }, 180_000);

  it('mark_unknown then resolve on an instruction asks the rail for every waiting payout', async () => {
    const o = await h.register();
    const x = await executed(o, [{ ref: 'm1', tag: '95' }]);
    expect((await byRef(o, x.id, 'm1')).status).toBe('pending');
    const mu = await post(h, o.key, `/v1/payouts/instructions/${x.id}/mark_unknown`, { reason: 'Rail outage reported by the bank.' });
    expect(mu.status, mu.text).toBe(200);
    expect(mu.body.marked_unknown).toBe(1);
    expect((await byRef(o, x.id, 'm1')).status).toBe('unknown');
    const r = await post(h, o.key, `/v1/payouts/instructions/${x.id}/resolve`);
    expect(r.status, r.text).toBe(200);
    expect(r.body.status_queries_asked).toBe(1);
    // The rail has no final answer yet: still unknown, still one attempt.
    expect((await byRef(o, x.id, 'm1'))).toMatchObject({ status: 'unknown', attempt_count: 1 });
    await advanceUntil(h, async () => (await byRef(o, x.id, 'm1')).status === 'settled', 60_000);
    expect((await byRef(o, x.id, 'm1'))).toMatchObject({ status: 'settled', attempt_count: 1 });
  });
});

describe('the payroll run reaches its outcome (spec 2.9, 6)', () => {
  it('a payroll run executed end to end reaches completed, with payroll.run.completed, a settlement and a clean reconciliation', async () => {
    const o = await h.register();
    const x = await executed(o, [{ ref: 'w1', tag: '10' }, { ref: 'w2', tag: '91' }, { ref: 'w3', tag: '11' }]);
    await h.platform.system.settle();
    const i = await instruction(o, x.id);
    expect(i).toMatchObject({ status: 'settled', progress: { settled: 3 } });
    expect((await run(o, x.run.id)).status).toBe('completed');
    const evs = (await h.request('GET', '/v1/payroll/events?limit=100', { key: o.key })).body.data.map((e: { type: string }) => e.type);
    expect(evs).toContain('payroll.run.completed');
    const fa = (await h.request('GET', '/v1/payouts/funding_account', { key: o.key })).body;
    expect(fa).toMatchObject({ balance: { amount: 0 }, reserved: { amount: 0 } });
    const s = await h.request('POST', '/v1/payouts/settlements', { key: o.key, idempotencyKey: ik('settle'), body: { instruction_id: x.id } });
    expect(s.status, s.text).toBe(201);
    expect(s.body).toMatchObject({ object: 'payout_settlement', settled_count: 3, exception_count: 0, status: 'reconciled' });
    const receipt = (await h.request('GET', `/v1/payouts/settlements/${s.body.id}/receipt`, { key: o.key })).body;
    expect(receipt.digest).toMatch(/^sha256:/);
    const recs = (await h.request('GET', `/v1/payouts/reconciliations?instruction_id=${x.id}`, { key: o.key })).body.data;
    expect(recs.reduce((n: number, r: { matched: number }) => n + r.matched, 0)).toBe(4); // 3 settled + the refused attempt, each matched
    const validations = (await h.request('GET', '/v1/payouts/account_validations', { key: o.key })).body.data;
    expect(validations.length).toBe(3);
  });

  it('a payee without a live passport is held, never sent, and not final: the instruction waits with next_action verify_payee_identity until the passport is live, then pays it (docs/gaps.md#payouts "Held payouts")', async () => {
    const o = await h.register();
    const x = await executed(o, [{ ref: 'v1', tag: '10' }, { ref: 'v2', tag: '10' }], { passports: ['v1'] });
    const held = await byRef(o, x.id, 'v2');
    expect(held).toMatchObject({ status: 'held', held_reason: 'passport_not_live', attempt_count: 0 });
    await h.platform.system.settle();
    const waiting = (await h.request('GET', `/v1/payouts/instructions/${x.id}`, { key: o.key })).body;
    expect(waiting).toMatchObject({ status: 'executing', progress: { settled: 1, held: 1 }, next_action: { code: 'verify_payee_identity', details: { held_for_passport: 1 } } });
    expect((await run(o, x.run.id)).status).toBe('executing');
    await livePassports(h, o.org, ['v2']);
    await h.platform.system.settle();
    expect(await byRef(o, x.id, 'v2')).toMatchObject({ status: 'settled', attempt_count: 1 });
    expect((await h.request('GET', `/v1/payouts/instructions/${x.id}`, { key: o.key })).body).toMatchObject({ status: 'settled', progress: { settled: 2, held: 0 }, next_action: null });
  });
});
