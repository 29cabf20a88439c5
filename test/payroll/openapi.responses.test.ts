/**
 * The OpenAPI document says what the code does: every response schema the payroll and accounts
 * routes declare is compared with real responses, through a real socket, over a flow that reaches
 * each of those routes (spec 2.1: every record carries object, livemode and mocked; spec 4.1, 4.8).
 */
import { Value } from '@sinclair/typebox/value';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { area as accounts, issueClient } from '../../actors/accounts/index.ts';
import { area as payroll } from '../../actors/payroll/index.ts';
import { recordSupportAccess } from '../../actors/accounts/index.ts';
import type { RouteDef } from '../../kernel/index.ts';
import { startHarness, type Harness } from '../../support/http.ts';
import { jsonRow, key, ngn } from './support.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const declared = [...payroll.routes, ...accounts.routes].filter((r) => r.response);
const pattern = (r: RouteDef) => new RegExp('^' + r.path.replace(/\{[^}]+\}/g, '[^/?]+') + '(\\?.*)?$');
const checked = new Set<RouteDef>();
const problems: string[] = [];

/** A request whose 2xx JSON answer must match the route's declared response schema. */
async function call(method: string, path: string, opts: { key?: string; session?: string; body?: unknown; idempotencyKey?: string } = {}) {
  const r = await h.request(method as never, path, { ...opts, ...(method === 'POST' && !opts.idempotencyKey ? { idempotencyKey: key() } : {}) });
  expect(r.status, `${method} ${path}: ${r.text}`).toBeLessThan(300);
  const route = declared.find((d) => d.method === method && pattern(d).test(path));
  if (route) {
    checked.add(route);
    if (!Value.Check(route.response!, r.body)) {
      for (const e of Value.Errors(route.response!, r.body)) problems.push(`${method} ${route.path}${e.path}: ${e.message} (got ${JSON.stringify(e.value)?.slice(0, 80)})`);
    }
  }
  return r.body;
}

describe('declared response schemas match real responses (OpenAPI; spec 2.1, 4.1, 4.8)', () => {
  it('every payroll and accounts route with a response schema answers a body its schema accepts', async () => {
    const reg = await call('POST', '/v1/registrations', { body: { organisation_name: 'Schema Ltd', name: 'Ada Obi', email: `schema-${process.pid}@example.com`, password: 'a long passphrase 2026' } });
    const k = reg.api_key.key;
    const session = reg.session.token;
    await call('POST', '/v1/sessions', { body: { email: `schema-${process.pid}@example.com`, password: 'a long passphrase 2026' } });
    await call('GET', '/v1/me', { session });
    const made = await call('POST', '/v1/api_keys', { key: k, body: { name: 'second' } });
    await call('GET', '/v1/api_keys?limit=5', { key: k });
    const fromSession = await call('POST', '/v1/account/api_keys', { session, body: { name: 'third' } });
    await call('GET', `/v1/people/${fromSession.id}`, { key: k }); // the person behind a key made from their session
    await call('POST', `/v1/account/api_keys/${fromSession.id}/revoke`, { session });
    await call('POST', `/v1/api_keys/${made.id}/revoke`, { key: k });
    const invited = await call('POST', '/v1/invitations', { key: k, body: { email: `schema-2-${process.pid}@example.com`, name: 'Bola Ade' } });
    await call('GET', '/v1/invitations?limit=5', { key: k });
    await call('POST', '/v1/invitations/accept', { body: { token: invited.token, password: 'another long passphrase 2026' } });
    await call('POST', '/v1/account/socket_tickets', { session });
    const client = await issueClient(h.platform, { org: reg.organisation.id, name: 'c', scopes: ['run:read', 'run:approve'] });
    const token = await call('POST', '/v1/oauth/token', { body: { grant_type: 'client_credentials', client_id: client.id, client_secret: client.client_secret } });
    await recordSupportAccess(h.platform, { org: reg.organisation.id, action: 'GET /v1/payroll/runs', purpose: 'schema test', staff: 'staff_1' });
    await call('GET', '/v1/support_access', { key: k });
    await call('GET', '/v1/currencies');

    const rows = [1, 2].map((n) => jsonRow({ payee_ref: `sc-${n}`, monthly_basic: 30_000_000, monthly_housing: 10_000_000, monthly_transport: 5_000_000, monthly_other_allowances: 0, state_of_residence: 'NG-LA', nhf_contributing: true }));
    const imp = await call('POST', '/v1/payroll/imports', { key: k, body: { format: 'json', rows, employer: { headcount: 30, turnover_50m_or_more: false, maker_checker_threshold: ngn(0) } } });
    await call('GET', `/v1/payroll/imports/${imp.id}`, { key: k });
    await call('GET', '/v1/payroll/employer_settings', { key: k });
    await call('PATCH', '/v1/payroll/employer_settings', { key: k, body: { state: 'NG-LA' } });
    await call('GET', '/v1/pay_profiles?limit=1', { key: k });
    await call('GET', `/v1/pay_profiles/${imp.rows[0].pay_profile_id}`, { key: k });
    await call('PATCH', `/v1/pay_profiles/${imp.rows[0].pay_profile_id}`, { key: k, body: { name: 'Sade' } });
    await call('GET', `/v1/payroll/roster_entries/${imp.rows[0].roster_entry_id}`, { key: k });
    await call('PATCH', `/v1/payroll/roster_entries/${imp.rows[0].roster_entry_id}`, { key: k, body: { ends_on: null } });

    const run = await call('POST', '/v1/payroll/runs', { key: k, body: { period: '2026-03', run_type: 'regular' } });
    await call('PATCH', `/v1/payroll/runs/${run.id}`, { key: k, body: { items: [{ payee_ref: 'sc-1', code: 'bonus', amount: ngn(5_000_000) }, { payee_ref: 'sc-2', code: 'arrears', amount: ngn(100), components: { basic: ngn(100), housing: ngn(0), transport: ngn(0), other_allowances: ngn(0) } }] } });
    await call('POST', `/v1/payroll/runs/${run.id}/simulate`, { key: k, body: {} });
    await call('POST', `/v1/payroll/runs/${run.id}/calculate`, { key: k });
    await call('POST', `/v1/payroll/runs/${run.id}/simulate`, { key: k, body: { draft_rule_pack_version: '2026.09.1' } });
    await call('GET', '/v1/payroll/runs?limit=10', { key: k });
    await call('GET', `/v1/payroll/runs/${run.id}/totals`, { key: k });
    const findings = await call('GET', `/v1/payroll/runs/${run.id}/findings`, { key: k });
    expect(findings.data.map((f: any) => f.code)).toEqual(['bank_account_missing', 'bank_account_missing', 'payee_passport_not_live', 'payee_passport_not_live']);
    await call('GET', `/v1/payroll/runs/${run.id}/findings/${findings.data[0].id}`, { key: k });
    await call('POST', `/v1/payroll/runs/${run.id}/findings/${findings.data[0].id}/resolve`, { key: k, body: { reason: 'seen' } });
    await call('POST', `/v1/payroll/runs/${run.id}/submit`, { key: k });
    await call('POST', `/v1/payroll/runs/${run.id}/approve`, { key: token.access_token });
    await call('POST', `/v1/payroll/runs/${run.id}/execute`, { key: k });
    await call('GET', `/v1/payroll/runs/${run.id}`, { key: k });
    await call('GET', `/v1/payroll/runs/${run.id}/instruction_set`, { key: k });
    await call('POST', `/v1/payroll/runs/${run.id}/gl_export`, { key: k });
    const slips = await call('GET', `/v1/payroll/runs/${run.id}/payslips`, { key: k });
    await call('GET', `/v1/payroll/payslips/${slips.data[0].id}`, { key: k });
    await call('POST', `/v1/payroll/payslips/${slips.data[0].id}/replay`, { key: k });
    await call('GET', `/v1/payroll/payslips/${slips.data[0].id}/explanation`, { key: k });
    await call('POST', `/v1/payroll/payslips/${slips.data[0].id}/issue`, { key: k });
    const other = await call('POST', '/v1/payroll/runs', { key: k, body: { period: '2026-04', run_type: 'bonus' } });
    await call('POST', `/v1/payroll/runs/${other.id}/cancel`, { key: k, body: { reason: 'not this month' } });

    expect(problems).toEqual([]);
    expect(declared.filter((r) => !checked.has(r)).map((r) => `${r.method} ${r.path}`)).toEqual([]);
  });

  it('every payroll and accounts record declares object, livemode and mocked; every filled payroll operation is marked x-spec-gap (spec 2.1)', () => {
    const records = declared.map((r) => r.response!).flatMap((s: any) => (s.properties?.object?.const === 'list' ? [s.properties.data.items] : [s]));
    for (const s of records as any[]) {
      // ISO 4217 reference data (GET /v1/currencies, no credential) is not a record of a realm.
      if (!s.properties?.object || s.properties.object.const === 'list' || s.properties.object.const === 'currency') continue;
      expect(Object.keys(s.properties), s.properties.object.const).toEqual(expect.arrayContaining(['object', 'livemode', 'mocked']));
    }
    const gap = (m: string, p: string) => payroll.routes.find((r) => r.method === m && r.path === p)?.specGap;
    for (const [m, p] of [
      ['POST', '/v1/payroll/runs/{run_id}/simulate'], ['POST', '/v1/payroll/payslips/{payslip_id}/replay'], ['GET', '/v1/payroll/payslips/{payslip_id}/explanation'],
      ['POST', '/v1/payroll/payslips/{payslip_id}/issue'], ['GET', '/v1/payroll/payslips/{payslip_id}/document'], ['POST', '/v1/payroll/runs/{run_id}/cancel'],
      ['POST', '/v1/payroll/runs/{run_id}/execute'], ['GET', '/v1/payroll/runs/{run_id}'], ['GET', '/v1/payroll/runs/{run_id}/instruction_set'],
      ['GET', '/v1/payroll/employer_settings'], ['PATCH', '/v1/payroll/employer_settings'],
    ]) expect(gap(m, p), `${m} ${p}`).toBeTruthy();
  });
});
