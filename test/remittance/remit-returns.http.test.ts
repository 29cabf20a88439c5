/**
 * Returns (spec 4.9 GET /v1/remittance/returns/{return_id}, POST .../approve, .../submit; reference
 * ng-payouts-remittance.md 4): each leg's monthly schedule and the annual employer return (Form H1),
 * approved under maker-checker, submitted to the authority's sandbox once what they cover is
 * receipted; remit events (spec 6, source remit).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorityIdFor } from '../../actors/payroll/index.ts';
import { annualReturnIdOf } from '../../actors/remittance/remit/ids.ts';
import { sandboxAuthority } from '../../actors/remittance/remit/providers/sandbox-authority.ts';
import { startHarness, type Harness, type Registered } from '../../support/http.ts';
import { acceptedSet, advanceUntil, checker, executedRemittance, externalSet, get, legsOf, post } from './remit-support.ts';

/** Cluster stores on a shared two-core machine: a flow of many requests and clock steps needs more than the default 30 s. */
const SLOW = 180_000;

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.close());

const lagosOnly = (period: string, lagos: number) => externalSet(period, { lagos, kano: 0, pension: 0, nhf: 0 });

describe('spec 4.9 Remittance: returns', () => {
  let o: Registered;
  let token: string;
  beforeAll(async () => {
    o = await h.register();
    token = await checker(h, o);
  }, SLOW);

  it('spec 4.9: a leg\u2019s schedule is approved by another person, refused while its payment is not receipted, then acknowledged by the authority\u2019s sandbox', async () => {
    const set = await acceptedSet(h, o, lagosOnly('2026-02', 900_000));
    const rem = await executedRemittance(h, o, set.id, { fund: 0 });
    const [leg] = await legsOf(h, o, rem.id);
    expect(leg.status).toBe('failed');
    const ret = (await get(h, o.key, `/v1/remittance/returns/${leg.return_id}`)).body;
    expect(ret).toMatchObject({ object: 'remittance_return', form: 'paye_monthly_schedule', status: 'pending_approval', levy: 'paye', authority_id: authorityIdFor('NG-LA'), period: '2026-02', rows_available: false, total: { amount: 900_000 }, leg_ids: [leg.id] });
    expect(ret.content_hash).toMatch(/^sha256:/);
    expect(ret.sections).toEqual([expect.objectContaining({ reconciliation_reference: 'ext:2026-02:paye:NG-LA', total: { amount: 900_000, currency: 'NGN' }, rows: [] })]);
    expect((await post(h, o.key, `/v1/remittance/returns/${ret.id}/submit`)).status).toBe(409); // not approved
    expect((await post(h, o.key, `/v1/remittance/returns/${ret.id}/approve`)).status).toBe(409); // the preparer
    const approved = await post(h, token, `/v1/remittance/returns/${ret.id}/approve`);
    expect(approved.status, approved.text).toBe(200);
    const early = await post(h, o.key, `/v1/remittance/returns/${ret.id}/submit`);
    expect(early.status).toBe(409);
    expect(early.body.error.message).toMatch(/receipted/);
    await h.request('POST', '/v1/payouts/funding_account/deposits', { key: o.key, idempotencyKey: `dep-${process.pid}-${Date.now()}`, body: { amount: { amount: 900_000, currency: 'NGN' } } });
    expect((await post(h, o.key, `/v1/remittance/remittances/${rem.id}/legs/${leg.id}/retry`)).status).toBe(200);
    await advanceUntil(h, async () => (await get(h, o.key, `/v1/remittance/remittances/${rem.id}/legs/${leg.id}`)).body.status === 'completed');
    const filed = await post(h, o.key, `/v1/remittance/returns/${ret.id}/submit`);
    expect(filed.status, filed.text).toBe(200);
    expect(filed.body).toMatchObject({ status: 'submitted', rejection_reasons: [] });
    expect(filed.body.acknowledgement_no).toMatch(/^ACK-[0-9A-F]{12}$/);
    expect((await post(h, o.key, `/v1/remittance/returns/${ret.id}/submit`)).status).toBe(409);
  }, SLOW);

  it('reference 4: the annual employer return (Form H1) to a State IRS is prepared once its December PAYE is receipted, from the year\u2019s receipted schedules', async () => {
    const o = await h.register();
    const token = await checker(h, o);
    // A schedule not receipted (its leg failed) is left out of the annual return.
    const unpaid = await acceptedSet(h, o, lagosOnly('2026-10', 300_000));
    await executedRemittance(h, o, unpaid.id, { fund: 0 });
    for (const [period, amount] of [['2026-11', 400_000], ['2026-12', 600_000]] as const) {
      const set = await acceptedSet(h, o, lagosOnly(period, amount));
      const rem = await executedRemittance(h, o, set.id);
      await advanceUntil(h, async () => (await get(h, o.key, `/v1/remittance/remittances/${rem.id}`)).body.status === 'completed');
    }
    const id = annualReturnIdOf(o.org, false, authorityIdFor('NG-LA'), '2026');
    let annual: any;
    await advanceUntil(h, async () => (annual = await get(h, o.key, `/v1/remittance/returns/${id}`)).status === 200, 1_000, 20);
    expect(annual.status, annual.text).toBe(200);
    expect(annual.body).toMatchObject({ form: 'annual_employer_return', period: '2026', authority_id: authorityIdFor('NG-LA'), total: { amount: 1_000_000 }, status: 'pending_approval' });
    expect(annual.body.leg_ids).toHaveLength(2);
    expect((await post(h, token, `/v1/remittance/returns/${id}/approve`)).status).toBe(200);
    const filed = await post(h, o.key, `/v1/remittance/returns/${id}/submit`);
    expect(filed.body.status, filed.text).toBe('submitted');
    const listed = await get(h, o.key, '/v1/remittance/returns?period=2026');
    expect(listed.body.data.map((r: any) => r.id)).toEqual([id]);
  }, SLOW);

  it('reference 4: the authority\u2019s sandbox rejects a return whose rows do not add up to its total, or whose total is not what it receipted', () => {
    const base = { return_id: 'r', authority_code: 'NG-LA', form: 'paye_monthly_schedule', period: '2026-01', total: 100, row_total: 100, receipted_amount: 100 };
    expect(sandboxAuthority.file(base)).toMatchObject({ accepted: true });
    expect(sandboxAuthority.file({ ...base, row_total: 99 })).toMatchObject({ accepted: false, acknowledgement_no: null, reasons: [expect.stringMatching(/rows add up to 99/)] });
    expect(sandboxAuthority.file({ ...base, receipted_amount: 50 })).toMatchObject({ accepted: false, reasons: [expect.stringMatching(/receipted 50/)] });
  }, SLOW);

  it('spec 6: remittance, leg, receipt and return transitions are public events of source remit, and audit entries', async () => {
    const set = await acceptedSet(h, o, lagosOnly('2026-10', 100_000));
    const rem = await executedRemittance(h, o, set.id);
    await advanceUntil(h, async () => (await get(h, o.key, `/v1/remittance/remittances/${rem.id}`)).body.status === 'completed');
    const [leg] = await legsOf(h, o, rem.id);
    expect((await post(h, token, `/v1/remittance/returns/${leg.return_id}/approve`)).status).toBe(200);
    expect((await post(h, o.key, `/v1/remittance/returns/${leg.return_id}/submit`)).body.status).toBe('submitted');
    const ours = new Set([rem.id, leg.id, leg.receipt_id, leg.return_id]);
    const want = ['remit.remittance.created', 'remit.remittance.approved', 'remit.remittance.executing', 'remit.remittance.completed', 'remit.leg.created', 'remit.leg.retried', 'remit.leg.paying', 'remit.leg.paid', 'remit.leg.completed', 'remit.receipt.vaulted', 'remit.return.prepared', 'remit.return.approved', 'remit.return.submitted'];
    let types: string[] = [];
    await advanceUntil(h, async () => {
      const seen: string[] = [];
      let after = '';
      for (let i = 0; i < 20; i++) {
        const page = await get(h, o.key, `/v1/remittance/events?limit=100${after}`);
        expect(page.status, page.text).toBe(200);
        for (const e of page.body.data) if (ours.has(e.data?.id)) seen.push(e.type);
        if (!page.body.has_more) break;
        after = `&starting_after=${page.body.data[page.body.data.length - 1].id}`;
      }
      types = seen;
      return want.every((t) => types.includes(t));
    }, 1_000, 20);
    expect(types).toEqual(expect.arrayContaining(want));
    // Every transition of a remittance is an audit entry of the module (spec 4.9 "audit_entries reads").
    let entries: any[] = [];
    await advanceUntil(h, async () => (entries = (await get(h, o.key, `/v1/remittance/audit_entries?record_id=${rem.id}`)).body.data ?? []).length >= 5, 1_000, 20);
    expect(entries.map((e) => e.action)).toEqual(expect.arrayContaining(['remittance.created', 'remittance.approved', 'remittance.executing', 'remittance.leg_completed', 'remittance.completed']));
    const one = await get(h, o.key, `/v1/remittance/audit_entries/${entries[0].id}`);
    expect(one.status, one.text).toBe(200);
    expect(one.body.record_id).toBe(rem.id);
  }, SLOW);
});
