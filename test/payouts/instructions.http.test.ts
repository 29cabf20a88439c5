/** Payout instructions (spec 1 rule 10, 2.11, 3 "Payout instruction", 4.10, 7): intake, quarantine, funding, plan, execute. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/http.ts';
import { fund, ik, post, resign, runWithAccounts } from './support.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const submit = (k: string, body: unknown) => h.request('POST', '/v1/payouts/instructions', { key: k, idempotencyKey: ik('instr'), body });

describe('intake and quarantine (spec 3 Payout instruction)', () => {
  it('a signed run instruction with valid accounts is received; no amount comes from the caller (spec 1 rule 10)', async () => {
    const o = await h.register();
    const { run, signed, doc } = await runWithAccounts(h, o, [{ ref: 'a1', tag: '10' }, { ref: 'a2', tag: '11' }]);
    const r = await submit(o.key, signed);
    expect(r.status, r.text).toBe(201);
    expect(r.body).toMatchObject({ object: 'payout_instruction', status: 'received', source: 'run', run_id: run.id, line_count: 2, signature_verified: true, quarantine_reason: null, route_plan_id: null, livemode: false, total: { amount: doc.total, currency: 'NGN' } });
    expect(r.body.id).toMatch(/^route_multi_rail_payout_/);
    const listed = await h.request('GET', `/v1/payouts/instructions?run_id=${run.id}&status=received`, { key: o.key });
    expect(listed.body.data.map((x: { id: string }) => x.id)).toContain(r.body.id);
    // A body with an amount is refused by the schema: amounts are never supplied.
    expect((await submit(o.key, { ...signed, total: { amount: 1, currency: 'NGN' } })).status).toBe(400);
  });

  it('signature_invalid: a document changed after signing is quarantined, kept as evidence, never executed', async () => {
    const o = await h.register();
    const { signed } = await runWithAccounts(h, o, [{ ref: 'b1', tag: '10' }]);
    const tampered = { ...signed, document: signed.document.replace(/"amount":(\d+)/, (_m: string, a: string) => `"amount":${Number(a) + 100}`).replace(/"total":(\d+)/, (_m: string, a: string) => `"total":${Number(a) + 100}`) };
    const r = await submit(o.key, tampered);
    expect(r.status, r.text).toBe(201);
    expect(r.body).toMatchObject({ status: 'quarantined', quarantine_reason: 'signature_invalid', signature_verified: false });
    for (const op of ['plan', 'execute', 'funding_check']) expect((await post(h, o.key, `/v1/payouts/instructions/${r.body.id}/${op}`)).status, op).toBe(409);
    expect((await h.request('GET', `/v1/payouts/instructions/${r.body.id}`, { key: o.key })).body.status).toBe('quarantined');
    // Another organisation's key is not this organisation's signature either.
    const other = await h.register();
    const foreign = await runWithAccounts(h, other, [{ ref: 'b2', tag: '10' }]);
    expect((await submit(o.key, foreign.signed)).body.quarantine_reason).toBe('signature_invalid');
  });

  it('duplicate_instruction: the same instruction submitted again is quarantined and names the first', async () => {
    const o = await h.register();
    const { signed } = await runWithAccounts(h, o, [{ ref: 'c1', tag: '10' }]);
    const first = await submit(o.key, signed);
    expect(first.body.status).toBe('received');
    const again = await submit(o.key, signed);
    expect(again.body).toMatchObject({ status: 'quarantined', quarantine_reason: 'duplicate_instruction', idempotency_key: first.body.idempotency_key });
    expect(JSON.stringify(again.body.quarantine_findings)).toContain(first.body.id);
    expect((await post(h, o.key, `/v1/payouts/instructions/${again.body.id}/execute`)).status).toBe(409);
  });

  it('integrity_mismatch: an account failing its NUBAN check, or a line disagreeing with its run, is quarantined', async () => {
    const o = await h.register();
    const { doc } = await runWithAccounts(h, o, [{ ref: 'd1', tag: '10' }, { ref: 'd2', tag: '10' }]);
    const badNuban = structuredClone(doc);
    const n = badNuban.lines[0].account_number as string;
    badNuban.lines[0].account_number = `${n.slice(0, 9)}${(Number(n[9]) + 1) % 10}`;
    const r1 = await submit(o.key, await resign(h, o.org, JSON.stringify(badNuban)));
    expect(r1.body).toMatchObject({ status: 'quarantined', quarantine_reason: 'integrity_mismatch', signature_verified: true });
    expect(r1.body.quarantine_findings).toEqual(expect.arrayContaining([expect.objectContaining({ line: 1, code: 'nuban_check_failed' })]));
    // Amounts moved between lines: totals still agree, but the lines no longer match the run's payslips.
    const moved = structuredClone(doc);
    moved.lines[0].amount += 100;
    moved.lines[1].amount -= 100;
    const r2 = await submit(o.key, await resign(h, o.org, JSON.stringify(moved)));
    expect(r2.body).toMatchObject({ status: 'quarantined', quarantine_reason: 'integrity_mismatch' });
    expect(r2.body.quarantine_findings.map((f: { code: string }) => f.code)).toContain('line_disagrees_with_run');
    // Totals that disagree with the lines.
    const total = structuredClone(doc);
    total.total += 1;
    expect((await submit(o.key, await resign(h, o.org, JSON.stringify(total)))).body.quarantine_reason).toBe('integrity_mismatch');
    // A quarantined instruction never claims the key: the genuine one is still received.
    const genuine = await submit(o.key, await resign(h, o.org, JSON.stringify(doc)));
    expect(genuine.body.status).toBe('received');
  });
});

describe('funding, plans and execute (spec 2.11, 4.10, 7)', () => {
  it('execute is refused with 409 while route_plan_id is null (spec 7)', async () => {
    const o = await h.register();
    const { signed } = await runWithAccounts(h, o, [{ ref: 'e1', tag: '10' }]);
    const r = await submit(o.key, signed);
    const ex = await post(h, o.key, `/v1/payouts/instructions/${r.body.id}/execute`);
    expect(ex.status).toBe(409);
    expect(ex.body.error?.message ?? ex.text).toMatch(/route_plan_id is null/);
    expect((await h.request('GET', `/v1/payouts/instructions/${r.body.id}/route_plan`, { key: o.key })).status).toBe(404);
  });

  it('a funding shortfall holds the instruction in funding_pending; funding it and checking again releases it', async () => {
    const o = await h.register();
    const { signed, doc } = await runWithAccounts(h, o, [{ ref: 'f1', tag: '10' }]);
    const r = await submit(o.key, signed);
    const id = r.body.id;
    await fund(h, o.key, doc.total - 1);
    const check = await post(h, o.key, `/v1/payouts/instructions/${id}/funding_check`);
    expect(check.status, check.text).toBe(200);
    expect(check.body).toMatchObject({ object: 'funding_check', instruction_id: id, sufficient: false, required_amount: { amount: doc.total }, available_amount: { amount: doc.total - 1 }, shortfall: { amount: 1 } });
    expect((await h.request('GET', `/v1/payouts/instructions/${id}`, { key: o.key })).body.status).toBe('funding_pending');
    const plan = await post(h, o.key, `/v1/payouts/instructions/${id}/plan`);
    expect(plan.status, plan.text).toBe(201);
    expect((await h.request('GET', `/v1/payouts/instructions/${id}`, { key: o.key })).body.status).toBe('funding_pending');
    expect((await post(h, o.key, `/v1/payouts/instructions/${id}/execute`)).status).toBe(409);
    await fund(h, o.key, 1);
    const ok = await post(h, o.key, `/v1/payouts/instructions/${id}/funding_check`);
    expect(ok.body).toMatchObject({ sufficient: true, shortfall: { amount: 0 } });
    expect((await h.request('GET', `/v1/payouts/instructions/${id}/funding_check`, { key: o.key })).body.sufficient).toBe(true);
    expect((await h.request('GET', `/v1/payouts/instructions/${id}`, { key: o.key })).body.status).toBe('planned');
  });

  it('a route plan fixes a primary rail, at least one ordered fallback, reasoning and max_attempts (spec 2.11 RoutePlan)', async () => {
    const o = await h.register();
    const { signed } = await runWithAccounts(h, o, [{ ref: 'g1', tag: '10' }]);
    const r = await submit(o.key, signed);
    const p = await h.request('POST', '/v1/payouts/route_plans', { key: o.key, idempotencyKey: ik('plan'), body: { instruction_id: r.body.id } });
    expect(p.status, p.text).toBe(201);
    expect(p.body).toMatchObject({ object: 'route_plan', instruction_id: r.body.id, primary_rail_id: 'route_multi_rail_rail_nip', fallback_rail_ids: ['route_multi_rail_rail_batch', 'route_multi_rail_rail_wallet'], max_attempts: 3 });
    expect(p.body.id).toMatch(/^route_multi_rail_route_plan_/);
    expect(p.body.reasoning.join(' ')).toMatch(/per-transfer limit/);
    expect((await h.request('GET', `/v1/payouts/instructions/${r.body.id}/route_plan`, { key: o.key })).body.id).toBe(p.body.id);
    expect((await h.request('GET', `/v1/payouts/route_plans?instruction_id=${r.body.id}`, { key: o.key })).body.data).toHaveLength(1);
    // A plan is fixed when made.
    expect((await post(h, o.key, `/v1/payouts/instructions/${r.body.id}/plan`)).status).toBe(409);
    // An unknown rail is a 400 with a validation report.
    const o2 = await h.register();
    const x = await runWithAccounts(h, o2, [{ ref: 'g2', tag: '10' }]);
    const r2 = await submit(o2.key, x.signed);
    const bad = await post(h, o2.key, `/v1/payouts/instructions/${r2.body.id}/plan`, { primary_rail_id: 'route_multi_rail_rail_carrier_pigeon' });
    expect(bad.status).toBe(400);
  });

  it('fail is refused once executing; a planned instruction can be failed', async () => {
    const o = await h.register();
    const { signed } = await runWithAccounts(h, o, [{ ref: 'h1', tag: '10' }]);
    const r = await submit(o.key, signed);
    await post(h, o.key, `/v1/payouts/instructions/${r.body.id}/plan`);
    const f = await post(h, o.key, `/v1/payouts/instructions/${r.body.id}/fail`, { reason: 'Wrong period' });
    expect(f.status, f.text).toBe(200);
    expect(f.body.status).toBe('failed');
    expect((await post(h, o.key, `/v1/payouts/instructions/${r.body.id}/execute`)).status).toBe(409);
  });
});
