/**
 * Pay profiles as a list and where pay goes (spec 4.8 names GET and PATCH /v1/pay_profiles/{id};
 * the list and the one payee field are ours, docs/gaps.md#payroll): GET /v1/pay_profiles pages
 * like every list, in payee_ref order, and only the organisation's own; bank_account is the one
 * field for where pay goes, in imports and pay profiles alike.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/http.ts';
import { importPayees, type PayeeRow } from './support.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const row = (ref: string): PayeeRow => ({ payee_ref: ref, monthly_basic: 30_000_000, monthly_housing: 0, monthly_transport: 0, monthly_other_allowances: 0, state_of_residence: 'NG-LA', nhf_contributing: false });
const EMPLOYER = { headcount: 10, turnover_50m_or_more: false, maker_checker_threshold: 0 };

describe('GET /v1/pay_profiles (docs/gaps.md#payroll)', () => {
  it('lists and pages: payee_ref order, limit and starting_after, has_more, the organisation\u2019s own only', async () => {
    const o = await h.register();
    const refs = ['p-05', 'p-01', 'p-04', 'p-02', 'p-03'];
    const imported = await importPayees(h, o.key, refs.map(row), EMPLOYER);
    const other = await h.register();
    await importPayees(h, other.key, [row('p-00')], EMPLOYER);
    const seen: string[] = [];
    let after: string | undefined;
    for (let page = 0; page < 5; page++) {
      const r = await h.request('GET', `/v1/pay_profiles?limit=2${after ? `&starting_after=${after}` : ''}`, { key: o.key });
      expect(r.status, r.text).toBe(200);
      expect(r.body.object).toBe('list');
      for (const p of r.body.data) expect(p.object).toBe('pay_profile');
      seen.push(...r.body.data.map((p: { payee_ref: string }) => p.payee_ref));
      if (!r.body.has_more) break;
      expect(r.body.data).toHaveLength(2);
      after = r.body.data[1].id;
    }
    expect(seen).toEqual(['p-01', 'p-02', 'p-03', 'p-04', 'p-05']);
    const ids = new Set(imported.rows.map((x) => x.pay_profile_id));
    const all = (await h.request('GET', '/v1/pay_profiles?limit=100', { key: o.key })).body.data;
    expect(all.every((p: { id: string }) => ids.has(p.id))).toBe(true);
    // a starting_after of another organisation's profile answers an empty page (spec 7)
    const theirs = (await h.request('GET', '/v1/pay_profiles', { key: other.key })).body.data[0].id;
    expect((await h.request('GET', `/v1/pay_profiles?starting_after=${theirs}`, { key: o.key })).body.data).toEqual([]);
  });

  it('bank_account is where pay goes; bank_identifier is ignored with a warning in the import and refused by PATCH', async () => {
    const o = await h.register();
    const r = await h.request('POST', '/v1/payroll/imports', {
      key: o.key, idempotencyKey: `pp-${process.pid}-1`,
      body: { format: 'json', rows: [{ payee_ref: 'w1', monthly_basic: { amount: 30_000_000, currency: 'NGN' }, state_of_residence: 'NG-LA', starts_on: '2026-01-01', bank_identifier: '0123456789' }] },
    });
    expect(r.status, r.text).toBe(201);
    expect(r.body.status).toBe('completed');
    expect(r.body.validation.entries).toEqual([expect.objectContaining({ severity: 'warning', code: 'field_ignored', field: '/rows/0/bank_identifier' })]);
    expect(r.body.validation.entries[0].detail).toContain('bank_account');
    const id = r.body.rows[0].pay_profile_id;
    const profile = (await h.request('GET', `/v1/pay_profiles/${id}`, { key: o.key })).body;
    expect(profile.bank_account).toBeNull();
    expect(profile).not.toHaveProperty('bank_identifier_on_file');
    const patched = await h.request('PATCH', `/v1/pay_profiles/${id}`, { key: o.key, body: { bank_identifier: '0123456789' } });
    expect(patched.status).toBe(400);
    expect(patched.body.error.code).toBe('validation_failed');
  });
});

describe('a pay profile and a roster entry are read and changed by their path id (spec 4.8, 7; kernel/path-ids.ts)', () => {
  it('GET and PATCH answer the record; an id of another form and an unknown one are not_found alike, another organisation\u2019s is organisation_mismatch', async () => {
    const o = await h.register();
    const other = await h.register();
    const [mine] = (await importPayees(h, o.key, [row('r-01')], EMPLOYER)).rows;
    const [theirs] = (await importPayees(h, other.key, [row('r-02')], EMPLOYER)).rows;
    const records = [
      { path: '/v1/pay_profiles', id: mine!.pay_profile_id, their: theirs!.pay_profile_id, object: 'pay_profile', patch: { nhf_contributing: true } },
      { path: '/v1/payroll/roster_entries', id: mine!.roster_entry_id, their: theirs!.roster_entry_id, object: 'roster_entry', patch: { starts_on: '2026-02-01' } },
    ];
    for (const r of records) {
      const got = await h.request('GET', `${r.path}/${r.id}`, { key: o.key });
      expect(got.status, got.text).toBe(200);
      expect(got.body).toMatchObject({ id: r.id, object: r.object });
      const changed = await h.request('PATCH', `${r.path}/${r.id}`, { key: o.key, body: r.patch });
      expect(changed.status, changed.text).toBe(200);
      expect(changed.body).toMatchObject({ id: r.id, object: r.object, ...r.patch });
      const unknown = `${r.id.slice(0, -4)}zzzz`;
      const refusals = [{ id: 'run_enterprise_abc', code: 'not_found' }, { id: unknown, code: 'not_found' }, { id: r.their, code: 'organisation_mismatch' }];
      for (const { id, code } of refusals) {
        for (const method of ['GET', 'PATCH'] as const) {
          const answer = await h.request(method, `${r.path}/${id}`, { key: o.key, body: method === 'PATCH' ? r.patch : undefined });
          expect(answer.body.error?.code, `${method} ${r.path}/${id}`).toBe(code);
        }
      }
    }
  });
});
