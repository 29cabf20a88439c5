/**
 * Remittances and their legs (spec 3 "Remittance instruction set", 4.9, 8): made from an accepted
 * set only, approved under maker-checker by person, executed into one leg per authority, each paid
 * through the payouts module on its own by an instruction signed with remittance's key; retried
 * without ever paying twice.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorityIdFor } from '../../actors/payroll/index.ts';
import { levyAuthority, pensionAdministrator } from '../../actors/remittance/index.ts';
import { startHarness, type Harness, type Registered } from '../../support/http.ts';
import { acceptedSet, advanceUntil, checker, executedRemittance, externalSet, fund, get, legsOf, post } from './remit-support.ts';

/** Cluster stores on a shared two-core machine: a flow of many requests and clock steps needs more than the default 30 s. */
const SLOW = 180_000;

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.close());

describe('spec 3 Remittance: remittances', () => {
  let o: Registered;
  beforeAll(async () => {
    o = await h.register();
  }, SLOW);

  it('spec 3: nothing is committed until accepted: a remittance of a set pending acceptance is refused', async () => {
    const r = await post(h, o.key, '/v1/remittance/instruction_sets', externalSet('2026-02'));
    expect(r.body.status).toBe('pending_acceptance');
    const refused = await post(h, o.key, '/v1/remittance/remittances', { instruction_set_id: r.body.id });
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body.error.code).toBe('conflict');
  }, SLOW);

  it('spec 3: one leg per authority: PAYE per State IRS, pension to the PFA\u2019s custodian, each levy to its collector; a set is remitted once', async () => {
    const set = await acceptedSet(h, o, externalSet('2026-03'));
    const r = await post(h, o.key, '/v1/remittance/remittances', { instruction_set_id: set.id });
    expect(r.status, r.text).toBe(201);
    expect(r.body).toMatchObject({ object: 'remittance', status: 'pending_approval', instruction_set_id: set.id, period: '2026-03', total: { amount: 3_550_000, currency: 'NGN' }, leg_count: 4 });
    expect(r.body.id).toMatch(/^remit_authority_rail_remittance_/);
    const pfa = pensionAdministrator('pfa_leadway_pensure')!;
    const byAuthority = Object.fromEntries(r.body.legs.map((l: any) => [l.authority_id, l]));
    expect(byAuthority[authorityIdFor('NG-LA')]).toMatchObject({ levy: 'paye', amount: { amount: 1_000_000 } });
    expect(byAuthority[authorityIdFor('NG-KN')]).toMatchObject({ levy: 'paye', amount: { amount: 500_000 } });
    expect(byAuthority[pfa.custodian_id!]).toMatchObject({ levy: 'pension', amount: { amount: 1_800_000 } });
    expect(byAuthority[levyAuthority('nhf').id]).toMatchObject({ levy: 'nhf', amount: { amount: 250_000 } });
    const again = await post(h, o.key, '/v1/remittance/remittances', { instruction_set_id: set.id });
    expect(again.status, again.text).toBe(409);
    const other = await h.register();
    const foreign = await get(h, other.key, `/v1/remittance/remittances/${r.body.id}`);
    expect(foreign.status).toBe(403);
    expect(foreign.body.error.code).toBe('organisation_mismatch');
  }, SLOW);

  it('spec 8: the preparer cannot approve above the threshold with any credential of theirs; another person can; execute needs approval', async () => {
    const set = await acceptedSet(h, o, externalSet('2026-04'));
    const r = await post(h, o.key, '/v1/remittance/remittances', { instruction_set_id: set.id });
    const early = await post(h, o.key, `/v1/remittance/remittances/${r.body.id}/execute`);
    expect(early.status).toBe(409);
    // A second key made by the same person is the same person.
    const k2 = await h.request<any>('POST', '/v1/account/api_keys', { session: o.session, idempotencyKey: `k2-${process.pid}-${Date.now()}`, body: { name: 'second key' } });
    expect(k2.status, k2.text).toBe(200);
    for (const k of [o.key, k2.body.key]) {
      const self = await post(h, k, `/v1/remittance/remittances/${r.body.id}/approve`);
      expect(self.status, self.text).toBe(409);
      expect(self.body.error.details?.reason ?? self.body.error.reason ?? 'maker_checker').toBe('maker_checker');
    }
    const ok = await post(h, await checker(h, o), `/v1/remittance/remittances/${r.body.id}/approve`);
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.status).toBe('approved');
    expect(ok.body.approved_by).not.toBe(ok.body.prepared_by);
  }, SLOW);
});

describe('spec 3 Remittance: legs', () => {
  let o: Registered;
  beforeAll(async () => {
    o = await h.register();
  }, SLOW);

  it('spec 3: each leg pays through the payouts module with an instruction signed by remittance (source remit, remittance_id), to its authority\u2019s collection account', async () => {
    const set = await acceptedSet(h, o, externalSet('2026-05'));
    const rem = await executedRemittance(h, o, set.id);
    await advanceUntil(h, async () => (await legsOf(h, o, rem.id)).every((l) => l.status === 'completed'));
    const legs = await legsOf(h, o, rem.id);
    expect(legs.map((l) => l.status), JSON.stringify(legs.map((l) => l.failure_reason))).toEqual(['completed', 'completed', 'completed', 'completed']);
    for (const l of legs) {
      const instr = await get(h, o.key, `/v1/payouts/instructions/${l.payout_instruction_id}`);
      expect(instr.body).toMatchObject({ source: 'remit', remittance_id: rem.id, run_id: null, signature_verified: true, status: 'settled', total: l.amount, line_count: 1 });
    }
    const done = await get(h, o.key, `/v1/remittance/remittances/${rem.id}`);
    expect(done.body).toMatchObject({ status: 'completed', legs_completed: 4 });
  }, SLOW);

  it('spec 3: legs run independently: one leg\u2019s failure does not hold the others', async () => {
    // Funds for all but the smallest leg: whichever leg comes last finds the account short; the rest pay.
    const set = await acceptedSet(h, o, externalSet('2026-06'));
    const rem = await executedRemittance(h, o, set.id, { fund: 3_550_000 - 250_000 });
    await advanceUntil(h, async () => (await legsOf(h, o, rem.id)).filter((l) => l.status === 'completed').length === 3);
    const legs = await legsOf(h, o, rem.id);
    const failed = legs.filter((l) => l.status === 'failed');
    expect(failed).toHaveLength(1);
    expect(legs.filter((l) => l.status === 'completed')).toHaveLength(3);
    expect(failed[0].failure_reason).toMatch(/short/);
    expect(failed[0].attempts[0]).toMatchObject({ n: 1, final: false });
    // docs/gaps.md "next_action": a leg failed for a shortfall says to fund the account and retry it.
    expect(failed[0].next_action).toMatchObject({ code: 'fund_account', call: { method: 'POST', path: `/v1/remittance/remittances/${rem.id}/legs/${failed[0].id}/retry` } });
    expect(legs.filter((l) => l.status === 'completed').every((l) => l.next_action === null)).toBe(true);
    // Retried after funding: the same instruction resumes (it never executed); no second attempt.
    await fund(h, o, failed[0].amount.amount);
    const retried = await post(h, o.key, `/v1/remittance/remittances/${rem.id}/legs/${failed[0].id}/retry`);
    expect(retried.status, retried.text).toBe(200);
    await advanceUntil(h, async () => (await get(h, o.key, `/v1/remittance/remittances/${rem.id}/legs/${failed[0].id}`)).body.status === 'completed');
    const leg = (await get(h, o.key, `/v1/remittance/remittances/${rem.id}/legs/${failed[0].id}`)).body;
    expect(leg, JSON.stringify(leg)).toMatchObject({ status: 'completed', attempt_count: 1 });
  }, SLOW);

  it('spec 3: a leg retried after its instruction failed for good gets a new instruction_ref and is never paid twice', async () => {
    const o = await h.register(); // an empty funding account
    const set = await acceptedSet(h, o, externalSet('2026-07', { lagos: 700_000, kano: 0, pension: 0, nhf: 0 }));
    const rem = await executedRemittance(h, o, set.id, { fund: 0 });
    const [leg] = await legsOf(h, o, rem.id);
    expect(leg, JSON.stringify(leg)).toMatchObject({ status: 'failed', attempt_count: 1 });
    const first = leg.payout_instruction_id;
    const refused = await post(h, o.key, `/v1/remittance/remittances/${rem.id}/legs/${leg.id}/retry`);
    expect(refused.status).toBe(200); // not final: resumed, and short again
    await h.platform.system.settle();
    // The payouts operator fails the instruction that never executed: now it is final.
    const failed = await post(h, o.key, `/v1/payouts/instructions/${first}/fail`, { reason: 'cancelled by treasury' });
    expect(failed.status, failed.text).toBe(200);
    await advanceUntil(h, async () => (await get(h, o.key, `/v1/remittance/remittances/${rem.id}/legs/${leg.id}`)).body.attempts[0].final === true);
    await fund(h, o, 700_000);
    const again = await post(h, o.key, `/v1/remittance/remittances/${rem.id}/legs/${leg.id}/retry`);
    expect(again.status, again.text).toBe(200);
    expect(again.body.attempt_count).toBe(2);
    await advanceUntil(h, async () => (await get(h, o.key, `/v1/remittance/remittances/${rem.id}/legs/${leg.id}`)).body.status === 'completed');
    const after = (await get(h, o.key, `/v1/remittance/remittances/${rem.id}/legs/${leg.id}`)).body;
    expect(after.attempts.map((a: any) => a.instruction_ref)).toEqual([`${leg.id}:attempt:1`, `${leg.id}:attempt:2`]);
    expect(after.attempts.map((a: any) => a.status)).toEqual(['failed', 'settled']);
    const instrs = await Promise.all(after.attempts.map((a: any) => get(h, o.key, `/v1/payouts/instructions/${a.payout_instruction_id}`)));
    expect(instrs.map((r) => r.body.status)).toEqual(['failed', 'settled']);
    expect(instrs[0].body.idempotency_key).not.toBe(instrs[1].body.idempotency_key);
    expect(instrs.reduce((a, r) => a + r.body.progress.settled_amount.amount, 0)).toBe(700_000);
    // A completed leg is not retried.
    const done = await post(h, o.key, `/v1/remittance/remittances/${rem.id}/legs/${leg.id}/retry`);
    expect(done.status).toBe(409);
  }, SLOW);

  it('spec 4.9: a leg is read only under its own remittance', async () => {
    const set = await acceptedSet(h, o, externalSet('2026-08'));
    const rem = await executedRemittance(h, o, set.id);
    const [leg] = await legsOf(h, o, rem.id);
    const set2 = await acceptedSet(h, o, externalSet('2026-09'));
    const rem2 = (await post(h, o.key, '/v1/remittance/remittances', { instruction_set_id: set2.id })).body;
    expect((await get(h, o.key, `/v1/remittance/remittances/${rem2.id}/legs/${leg.id}`)).status).toBe(404);
    expect((await get(h, o.key, `/v1/remittance/remittances/${rem.id}/legs/${leg.id}`)).status).toBe(200);
  }, SLOW);
});
