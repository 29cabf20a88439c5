/**
 * A period's reconciliation and audit export (spec 4.9 "GET audit_exports and reconciliations"):
 * obligations against legs against receipts, per authority and levy; clean only when all three
 * agree with nothing unfinished or quarantined. The audit export's hash follows its content.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorityIdFor } from '../../actors/payroll/index.ts';
import { startHarness, type Harness, type Registered } from '../../support/http.ts';
import { acceptedSet, advanceUntil, executedRemittance, externalSet, fund, get, legsOf, post } from './remit-support.ts';

/** Cluster stores on a shared two-core machine: a flow of many requests and clock steps needs more than the default 30 s. */
const SLOW = 180_000;

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.close());

describe('spec 4.9 Remittance: reconciliation and audit export', () => {
  let o: Registered;
  beforeAll(async () => {
    o = await h.register();
  }, SLOW);

  it('spec 4.9: an accepted set not yet remitted reconciles as unpaid; a failed leg keeps the period unclean until it is retried and receipted', async () => {
    const set = await acceptedSet(h, o, externalSet('2026-05', { kano: 0, pension: 0, nhf: 300_000 }));
    const before = (await get(h, o.key, '/v1/remittance/reconciliations?period=2026-05')).body;
    expect(before).toMatchObject({ clean: false, totals: { obligated: { amount: 1_300_000 }, paid: { amount: 0 }, receipted: { amount: 0 } } });
    expect(before.lines.map((l: any) => l.status)).toEqual(['unpaid', 'unpaid']);
    const rem = await executedRemittance(h, o, set.id, { fund: 1_000_000 });
    await advanceUntil(h, async () => (await legsOf(h, o, rem.id)).some((l) => l.status === 'completed'));
    const legs = await legsOf(h, o, rem.id);
    const failed = legs.find((l) => l.status === 'failed');
    expect(failed, JSON.stringify(legs.map((l) => [l.levy, l.status]))).toBeDefined();
    const mid = (await get(h, o.key, '/v1/remittance/reconciliations?period=2026-05')).body;
    expect(mid.clean).toBe(false);
    expect(mid.unfinished_legs).toEqual([expect.objectContaining({ leg_id: failed.id, status: 'failed' })]);
    const lagos = mid.lines.find((l: any) => l.authority_id === authorityIdFor('NG-LA'));
    expect(lagos.status).toBe(failed.levy === 'paye' ? 'unpaid' : 'matched');
    const exportBefore = (await get(h, o.key, '/v1/remittance/audit_exports?period=2026-05')).body;
    await fund(h, o, failed.amount.amount);
    expect((await post(h, o.key, `/v1/remittance/remittances/${rem.id}/legs/${failed.id}/retry`)).status).toBe(200);
    await advanceUntil(h, async () => (await get(h, o.key, '/v1/remittance/reconciliations?period=2026-05')).body.clean === true);
    const after = (await get(h, o.key, '/v1/remittance/reconciliations?period=2026-05')).body;
    expect(after).toMatchObject({ clean: true, totals: { obligated: { amount: 1_300_000 }, paid: { amount: 1_300_000 }, receipted: { amount: 1_300_000 } } });
    expect(after.lines.every((l: any) => l.status === 'matched' && l.receipt_ids.length === 1)).toBe(true);
    const exportAfter = (await get(h, o.key, '/v1/remittance/audit_exports?period=2026-05')).body;
    expect(exportAfter.content_hash).not.toBe(exportBefore.content_hash);
    expect(exportAfter.counts).toMatchObject({ instruction_sets: 1, obligations: 2, remittances: 1, legs: 2, receipts: 2 });
    expect((await get(h, o.key, '/v1/remittance/reconciliations?period=2026-13')).status).toBe(400);
  }, SLOW);
});
