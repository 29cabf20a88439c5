/** Helpers of the remit tests: an accepted instruction set, a second person to approve, a remittance executed. */
import { expect } from 'vitest';
import { issueClient } from '../../actors/accounts/index.ts';
import type { Harness, Registered } from '../../support/http.ts';

let n = 0;
export const ik = (what = 'remit') => `ik-${what}-${process.pid}-${++n}`;
export const ngn = (amount: number) => ({ amount, currency: 'NGN' });

export const post = (h: Harness, k: string, path: string, body: unknown = {}) => h.request<any>('POST', path, { key: k, idempotencyKey: ik(), body });
export const get = (h: Harness, k: string, path: string) => h.request<any>('GET', path, { key: k });

/** An external set that adds up: Lagos and Kano PAYE, one PFA, NHF (amounts in kobo). */
export function externalSet(period = '2026-01', over: Partial<{ lagos: number; kano: number; pension: number; nhf: number }> = {}) {
  const lagos = over.lagos ?? 1_000_000, kano = over.kano ?? 500_000, pension = over.pension ?? 1_800_000, nhf = over.nhf ?? 250_000;
  return {
    period, pay_date: `${period}-28`,
    instructions: {
      paye: [
        { jurisdiction: 'NG-LA', amount: ngn(lagos), payee_count: 2, reconciliation_reference: `ext:${period}:paye:NG-LA` },
        { jurisdiction: 'NG-KN', amount: ngn(kano), payee_count: 1, reconciliation_reference: `ext:${period}:paye:NG-KN` },
      ],
      pension: [{ administrator_id: 'pfa_leadway_pensure', employee_amount: ngn(Math.floor(pension * 4 / 9)), employer_amount: ngn(pension - Math.floor(pension * 4 / 9)), amount: ngn(pension), reconciliation_reference: `ext:${period}:pension` }],
      levies: [{ code: 'nhf', amount: ngn(nhf), reconciliation_reference: `ext:${period}:nhf` }],
      totals: { total: ngn(lagos + kano + pension + nhf) },
    },
  };
}

export async function acceptedSet(h: Harness, o: Registered, set: unknown): Promise<any> {
  const r = await post(h, o.key, '/v1/remittance/instruction_sets', set);
  expect(r.status, r.text).toBe(201);
  expect(r.body.validation_report.error_count, JSON.stringify(r.body.validation_report)).toBe(0);
  const a = await post(h, o.key, `/v1/remittance/instruction_sets/${r.body.id}/accept`);
  expect(a.status, a.text).toBe(200);
  expect(a.body.status).toBe('accepted');
  // the obligations are recorded before accept answers (a reconciliation read next counts them)
  expect(a.body.obligations_recorded).toBe(true);
  return a.body;
}

/** An access token of a second person (an operator-issued client) who may approve remittances. */
export async function checker(h: Harness, o: Registered): Promise<string> {
  const client = await issueClient(h.platform, { org: o.org, name: 'remittance checker', scopes: ['remit:read', 'remit:approve'] });
  const token = await h.request<any>('POST', '/v1/oauth/token', { body: { grant_type: 'client_credentials', client_id: client.id, client_secret: client.client_secret } });
  expect(token.status, token.text).toBe(200);
  return token.body.access_token as string;
}

export async function fund(h: Harness, o: Registered, amount: number) {
  const r = await post(h, o.key, '/v1/payouts/funding_account/deposits', { amount: ngn(amount) });
  expect(r.status, r.text).toBe(200);
}

/** Made from the set, approved by a second person, executed; returns the remittance after execute. */
export async function executedRemittance(h: Harness, o: Registered, setId: string, opts: { fund?: number | 'total' } = {}): Promise<any> {
  const created = await post(h, o.key, '/v1/remittance/remittances', { instruction_set_id: setId });
  expect(created.status, created.text).toBe(201);
  const approved = await post(h, await checker(h, o), `/v1/remittance/remittances/${created.body.id}/approve`);
  expect(approved.status, approved.text).toBe(200);
  const amount = opts.fund === 'total' || opts.fund === undefined ? created.body.total.amount : opts.fund;
  if (amount > 0) await fund(h, o, amount);
  const ex = await post(h, o.key, `/v1/remittance/remittances/${created.body.id}/execute`);
  expect(ex.status, ex.text).toBe(200);
  expect(ex.body.status).toBe('executing');
  await h.platform.system.settle();
  return ex.body;
}

export async function legsOf(h: Harness, o: Registered, remittanceId: string): Promise<any[]> {
  const r = await get(h, o.key, `/v1/remittance/remittances/${remittanceId}/legs?limit=100`);
  expect(r.status, r.text).toBe(200);
  return r.body.data;
}

/** Advances the manual clock in steps, settling after each, until `done` (payouts' rails answer on the platform clock). */
export async function advanceUntil(h: Harness, done: () => Promise<boolean>, stepMs = 5_000, maxSteps = 100) {
  for (let i = 0; i < maxSteps; i++) {
    await h.platform.system.settle();
    if (await done()) return;
    await h.clock.advance(stepMs);
  }
  await h.platform.system.settle();
}
