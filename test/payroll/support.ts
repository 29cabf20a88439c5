/** Helpers for payroll HTTP tests: import payees, move a run through its states. */
import { expect } from 'vitest';
import type { Harness } from '../../support/http.ts';

let ik = 0;
export const key = () => `ik-payroll-${process.pid}-${++ik}`;

export const ngn = (amount: number) => ({ amount, currency: 'NGN' });

/** Findings about whether a payee can be paid (no bank_account, no live passport; docs/gaps.md#payroll), which a test of the engine's figures leaves aside. */
export const PAYABILITY = new Set(['bank_account_missing', 'payee_passport_not_live']);
export const computedFindings = <F extends { code: string }>(findings: F[]): F[] => findings.filter((f) => !PAYABILITY.has(f.code));

export interface PayeeRow {
  payee_ref: string;
  monthly_basic: number;
  monthly_housing: number;
  monthly_transport: number;
  monthly_other_allowances: number;
  annual_rent_paid?: number;
  annual_life_assurance_premium?: number;
  annual_mortgage_interest?: number;
  state_of_residence: string;
  nhf_contributing: boolean;
  nhia_enrolled?: boolean;
  pension_administrator?: string | null;
  /** Where pay goes (docs/gaps.md#payroll); none unless given. */
  bank_account?: { bank_code: string; account_number: string; account_name?: string | null } | null;
  starts_on?: string;
  ends_on?: string | null;
}

export function jsonRow(r: PayeeRow) {
  return {
    payee_ref: r.payee_ref,
    monthly_basic: ngn(r.monthly_basic),
    monthly_housing: ngn(r.monthly_housing),
    monthly_transport: ngn(r.monthly_transport),
    monthly_other_allowances: ngn(r.monthly_other_allowances),
    annual_rent_paid: ngn(r.annual_rent_paid ?? 0),
    annual_life_assurance_premium: ngn(r.annual_life_assurance_premium ?? 0),
    annual_mortgage_interest: ngn(r.annual_mortgage_interest ?? 0),
    state_of_residence: r.state_of_residence,
    nhf_contributing: r.nhf_contributing,
    nhia_enrolled: r.nhia_enrolled ?? false,
    pension_administrator: r.pension_administrator === undefined ? 'pfa_stanbic_ibtc' : r.pension_administrator,
    ...(r.bank_account ? { bank_account: r.bank_account } : {}),
    starts_on: r.starts_on ?? '2025-06-01',
    ends_on: r.ends_on ?? null,
  };
}

export async function importPayees(h: Harness, k: string, rows: PayeeRow[], employer: { headcount: number | null; turnover_50m_or_more: boolean; maker_checker_threshold: number }) {
  const r = await h.request('POST', '/v1/payroll/imports', {
    key: k, idempotencyKey: key(),
    body: { format: 'json', rows: rows.map(jsonRow), employer: { ...employer, maker_checker_threshold: ngn(employer.maker_checker_threshold) } },
  });
  expect(r.status, r.text).toBe(201);
  expect(r.body.status, JSON.stringify(r.body.validation)).toBe('completed');
  return r.body as { id: string; rows: Array<{ payee_ref: string; pay_profile_id: string; roster_entry_id: string }> };
}

export async function post(h: Harness, k: string, path: string, body?: unknown) {
  return h.request('POST', path, { key: k, idempotencyKey: key(), body: body ?? {} });
}

/** Create and calculate a run for the period; returns the run view. */
export async function calculatedRun(h: Harness, k: string, period: string, runType = 'regular') {
  const created = await post(h, k, '/v1/payroll/runs', { period, run_type: runType });
  expect(created.status, created.text).toBe(201);
  const calc = await post(h, k, `/v1/payroll/runs/${created.body.id}/calculate`);
  expect(calc.status, calc.text).toBe(200);
  expect(calc.body.status).toBe('simulated');
  return calc.body;
}

/** Calculate, submit, approve and execute a run for the period with one key. */
export async function executedRun(h: Harness, k: string, period: string) {
  const run = await calculatedRun(h, k, period);
  for (const step of ['submit', 'approve', 'execute']) {
    const r = await post(h, k, `/v1/payroll/runs/${run.id}/${step}`);
    expect(r.status, `${step}: ${r.text}`).toBe(200);
  }
  return (await h.request('GET', `/v1/payroll/runs/${run.id}`, { key: k })).body;
}

export async function payslipsOf(h: Harness, k: string, runId: string) {
  const out: any[] = [];
  let after: string | undefined;
  for (;;) {
    const r = await h.request('GET', `/v1/payroll/runs/${runId}/payslips?limit=100${after ? `&starting_after=${after}` : ''}`, { key: k });
    expect(r.status, r.text).toBe(200);
    out.push(...r.body.data);
    if (!r.body.has_more) return out;
    after = r.body.data[r.body.data.length - 1].id;
  }
}
