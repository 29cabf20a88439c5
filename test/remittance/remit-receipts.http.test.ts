/**
 * Receipts (spec 3 "Remittance instruction set": "a leg is complete when its receipt is vaulted; a
 * receipt whose parsed amount, period or authority disagrees with the leg is quarantined"; 4.9
 * POST /v1/remittance/receipts). Here the authority's sandbox issues no receipt by itself
 * (REMIT_SANDBOX_RECEIPTS=manual): each receipt arrives by POST, as a document or as fields.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness, type Registered } from '../../support/http.ts';
import { acceptedSet, advanceUntil, executedRemittance, externalSet, get, legsOf, ngn, post } from './remit-support.ts';

/** Cluster stores on a shared two-core machine: a flow of many requests and clock steps needs more than the default 30 s. */
const SLOW = 180_000;

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ config: { REMIT_SANDBOX_RECEIPTS: 'manual' } });
});
afterAll(() => h?.close());

/** What the authority's sandbox issues for a payment (actors/remittance/remit/providers/sandbox-authority.ts). */
function receiptDocument(leg: any, over: Record<string, unknown> = {}) {
  return JSON.stringify({
    object: 'authority_receipt', authority_code: leg.jurisdiction, authority_name: leg.authority_name, receipt_no: 'RCT-TEST0001', levy: leg.levy,
    period: leg.period, amount_kobo: leg.amount.amount, currency: 'NGN', payment_reference: leg.payout_instruction_id, paid_at: leg.paid_at, channel: 'nip', ...over,
  });
}

describe('spec 3 Remittance: receipts', () => {
  let o: Registered;
  let rem: any;
  let legs: any[];
  beforeAll(async () => {
    o = await h.register();
    const set = await acceptedSet(h, o, externalSet('2026-01', { kano: 600_000 }));
    rem = await executedRemittance(h, o, set.id);
    await advanceUntil(h, async () => (await legsOf(h, o, rem.id)).every((l) => l.status === 'paid'));
    legs = (await legsOf(h, o, rem.id)).filter((l) => l.levy === 'paye');
    expect(legs.map((l) => l.status)).toEqual(['paid', 'paid']);
  }, SLOW);

  it('spec 3: a leg completes only with a vaulted receipt: paid is not complete', async () => {
    const leg = legs[0];
    await h.clock.advance(600_000);
    await h.platform.system.settle();
    expect((await get(h, o.key, `/v1/remittance/remittances/${rem.id}/legs/${leg.id}`)).body).toMatchObject({ status: 'paid', receipt_id: null });
    expect((await get(h, o.key, `/v1/remittance/remittances/${rem.id}`)).body).toMatchObject({ status: 'executing', legs_completed: 0 });
    const r = await post(h, o.key, '/v1/remittance/receipts', { leg_id: leg.id, document: receiptDocument(leg) });
    expect(r.status, r.text).toBe(201);
    expect(r.body).toMatchObject({ object: 'remittance_receipt', status: 'vaulted', leg_id: leg.id, source: 'document', quarantine_findings: [], parsed: { amount: { amount: leg.amount.amount }, period: leg.period, authority_code: leg.jurisdiction } });
    expect(r.body.document_hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    const after = (await get(h, o.key, `/v1/remittance/remittances/${rem.id}/legs/${leg.id}`)).body;
    expect(after).toMatchObject({ status: 'completed', receipt_id: r.body.id });
    expect((await get(h, o.key, `/v1/remittance/receipts/${r.body.id}`)).body.status).toBe('vaulted');
    // A second receipt for a completed leg is refused.
    const again = await post(h, o.key, '/v1/remittance/receipts', { leg_id: leg.id, document: receiptDocument(leg) });
    expect(again.status).toBe(409);
  }, SLOW);

  it('spec 3: a receipt whose amount, period or authority disagrees with its leg is quarantined, not vaulted; the leg stays paid', async () => {
    const leg = legs[1];
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ amount_kobo: leg.amount.amount - 1 }, 'amount_disagrees'],
      [{ period: '2025-12' }, 'period_disagrees'],
      [{ authority_code: 'NG-LA' }, 'authority_disagrees'],
    ];
    for (const [over, code] of cases) {
      const r = await post(h, o.key, '/v1/remittance/receipts', { leg_id: leg.id, document: receiptDocument(leg, over) });
      expect(r.status, r.text).toBe(201);
      expect(r.body.status).toBe('quarantined');
      expect(r.body.quarantine_findings.map((f: any) => f.code)).toEqual([code]);
    }
    const fields = await post(h, o.key, '/v1/remittance/receipts', { leg_id: leg.id, fields: { authority_code: leg.jurisdiction, period: leg.period } });
    expect(fields.body).toMatchObject({ status: 'quarantined', source: 'fields' });
    expect(fields.body.quarantine_findings.map((f: any) => f.code)).toEqual(['amount_missing']);
    const still = (await get(h, o.key, `/v1/remittance/remittances/${rem.id}/legs/${leg.id}`)).body;
    expect(still).toMatchObject({ status: 'paid', receipt_id: null });
    expect(still.quarantined_receipt_ids).toHaveLength(4);
    // The agreeing receipt, as fields, is vaulted and completes it.
    const ok = await post(h, o.key, '/v1/remittance/receipts', { leg_id: leg.id, fields: { authority_id: leg.authority_id, period: leg.period, amount: ngn(leg.amount.amount), payment_reference: leg.payout_instruction_id } });
    expect(ok.body).toMatchObject({ status: 'vaulted', source: 'fields' });
    expect((await get(h, o.key, `/v1/remittance/remittances/${rem.id}/legs/${leg.id}`)).body.status).toBe('completed');
  }, SLOW);

  it('spec 4.9: a receipt for a leg not yet paid is refused; an unreadable document is a validation error; another organisation\u2019s leg is refused', async () => {
    const other = await h.register();
    const set = await acceptedSet(h, other, externalSet('2026-02'));
    const unpaid = await executedRemittance(h, other, set.id, { fund: 0 });
    const [leg] = await legsOf(h, other, unpaid.id);
    expect(leg.status).toBe('failed');
    const early = await post(h, other.key, '/v1/remittance/receipts', { leg_id: leg.id, document: receiptDocument(leg) });
    expect(early.status, early.text).toBe(409);
    expect(early.body.error.code).toBe('conflict');
    const bad = await post(h, o.key, '/v1/remittance/receipts', { leg_id: legs[0].id, document: 'not a receipt' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('validation_failed');
    const both = await post(h, o.key, '/v1/remittance/receipts', { leg_id: legs[0].id });
    expect(both.status).toBe(400);
    const foreign = await post(h, other.key, '/v1/remittance/receipts', { leg_id: legs[0].id, fields: { period: '2026-01' } });
    expect(foreign.status).toBe(403);
    expect(foreign.body.error.code).toBe('organisation_mismatch');
  }, SLOW);
  it('spec 3: of two agreeing receipts sent at once for one leg, exactly one is vaulted and completes it; the other is refused', async () => {
    const other = await h.register();
    const set = await acceptedSet(h, other, externalSet('2026-03'));
    const r2 = await executedRemittance(h, other, set.id);
    await advanceUntil(h, async () => (await legsOf(h, other, r2.id)).every((l) => l.status === 'paid'));
    const [leg] = await legsOf(h, other, r2.id);
    const sent = await Promise.all(['RCT-RACE0001', 'RCT-RACE0002'].map((no) => post(h, other.key, '/v1/remittance/receipts', { leg_id: leg.id, document: receiptDocument(leg, { receipt_no: no }) })));
    expect(sent.map((r) => r.status).sort()).toEqual([201, 409]);
    const won = sent.find((r) => r.status === 201)!;
    expect(won.body.status).toBe('vaulted');
    expect((await get(h, other.key, `/v1/remittance/remittances/${r2.id}/legs/${leg.id}`)).body).toMatchObject({ status: 'completed', receipt_id: won.body.id });
    // The refused one left no record: the period's audit export holds the one vaulted receipt.
    const exp = (await get(h, other.key, `/v1/remittance/audit_exports?period=2026-03`)).body;
    expect(exp.receipts.filter((x: any) => x.leg_id === leg.id).map((x: any) => [x.id, x.status])).toEqual([[won.body.id, 'vaulted']]);
  }, SLOW);
});
