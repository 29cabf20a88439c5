/**
 * Employer settings as a resource (spec 8 "configured per organisation"; the shape is ours,
 * docs/gaps.md#payroll): every employer fact the engine reads, readable and changeable through the
 * API and the import; each run shows the settings it computed with; a run on settings nobody gave
 * raises a finding naming the values assumed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/http.ts';
import { calculatedRun, computedFindings, importPayees, jsonRow, key, ngn, payslipsOf, type PayeeRow } from './support.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const payee = (n: number): PayeeRow => ({ payee_ref: `s-${n}`, monthly_basic: 20_000_000, monthly_housing: 10_000_000, monthly_transport: 5_000_000, monthly_other_allowances: 0, state_of_residence: 'NG-LA', nhf_contributing: true });

describe('employer settings (spec 8; docs/gaps.md#payroll)', () => {
  it('unset settings read as configured false with the defaults; a run on them raises a p1 finding naming every value assumed and shows them', async () => {
    const o = await h.register();
    const before = await h.request('GET', '/v1/payroll/employer_settings', { key: o.key });
    expect(before.status, before.text).toBe(200);
    expect(before.body).toEqual({ object: 'payroll_employer_settings', livemode: false, mocked: false, configured: false, headcount: null, turnover_50m_or_more: false, state: null, maker_checker_threshold: ngn(0), updated_at: null });
    const r = await h.request('POST', '/v1/payroll/imports', { key: o.key, idempotencyKey: key(), body: { format: 'json', rows: [jsonRow(payee(1)), jsonRow(payee(2))] } });
    expect(r.body.status).toBe('completed');
    const run = await calculatedRun(h, o.key, '2026-01');
    expect(run.employer_settings).toEqual({ headcount: null, headcount_used: 2, turnover_50m_or_more: false, state: null, maker_checker_threshold: ngn(0), assumed: true });
    const findings = (await h.request('GET', `/v1/payroll/runs/${run.id}/findings`, { key: o.key })).body.data;
    const assumed = findings.find((f: any) => f.code === 'employer_settings_assumed');
    expect(assumed.severity).toBe('p1');
    expect(assumed.detail).toMatch(/headcount 2/);
    expect(assumed.detail).toMatch(/turnover_50m_or_more false/);
    expect(assumed.detail).toMatch(/threshold of 0 kobo/);
  });

  it('PATCH changes the settings the engine reads: headcount under the pension threshold drops pension, turnover brings ITF back; the run shows them; no finding', async () => {
    const o = await h.register();
    await importPayees(h, o.key, [payee(1), payee(2)], { headcount: 40, turnover_50m_or_more: false, maker_checker_threshold: 1e15 });
    const patched = await h.request('PATCH', '/v1/payroll/employer_settings', { key: o.key, body: { headcount: 2, turnover_50m_or_more: true, state: 'NG-OG' } });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body).toMatchObject({ object: 'payroll_employer_settings', configured: true, headcount: 2, turnover_50m_or_more: true, state: 'NG-OG', maker_checker_threshold: ngn(1e15) });
    expect(patched.body.updated_at).toMatch(/^\d{4}-/);
    expect((await h.request('GET', '/v1/payroll/employer_settings', { key: o.key })).body).toEqual(patched.body);
    const run = await calculatedRun(h, o.key, '2026-01');
    expect(run.employer_settings).toEqual({ headcount: 2, headcount_used: 2, turnover_50m_or_more: true, state: 'NG-OG', maker_checker_threshold: ngn(1e15), assumed: false });
    const [slip] = await payslipsOf(h, o.key, run.id);
    const codes = slip.lines.map((l: any) => l.code);
    expect(codes).not.toContain('pension_employee'); // headcount 2 < pension.min_headcount 3
    expect(codes).toContain('itf'); // turnover of NGN 50m or more
    expect(computedFindings((await h.request('GET', `/v1/payroll/runs/${run.id}/findings`, { key: o.key })).body.data)).toEqual([]);
  });

  it('bad values are a 400 naming the field; the threshold needs run:approve (403) (spec 5.6, 7, 8)', async () => {
    const o = await h.register();
    const bad = await h.request('PATCH', '/v1/payroll/employer_settings', { key: o.key, body: { state: 'NG-ZZ' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.validation.entries[0]).toMatchObject({ code: 'invalid_state', field: '/state' });
    expect((await h.request('PATCH', '/v1/payroll/employer_settings', { key: o.key, body: { headcount: -1 } })).status).toBe(400);
    expect((await h.request('PATCH', '/v1/payroll/employer_settings', { key: o.key, body: {} })).status).toBe(400);
    const frac = await h.request('PATCH', '/v1/payroll/employer_settings', { key: o.key, body: { maker_checker_threshold: { amount: 1.5, currency: 'NGN' } } });
    expect(frac.status).toBe(400);
    expect(frac.body.error.code).toBe('invalid_money_amount');
    const writer = await h.request('POST', '/v1/api_keys', { key: o.key, idempotencyKey: key(), body: { name: 'writer', scopes: ['run:read', 'run:write'] } });
    const refused = await h.request('PATCH', '/v1/payroll/employer_settings', { key: writer.body.key, body: { maker_checker_threshold: ngn(5) } });
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toMatch(/run:approve/);
    expect((await h.request('PATCH', '/v1/payroll/employer_settings', { key: writer.body.key, body: { headcount: 7 } })).body.headcount).toBe(7);
  });
});
