/** Helpers of the payouts tests: an executed payroll run, its signed instruction with accounts, live passports. */
import { createPrivateKey, sign } from 'node:crypto';
import { expect } from 'vitest';
import { passportIdOf } from '../../actors/identity/index.ts';
import { payrollSigningKey } from '../../actors/payroll/index.ts';
import { nuban } from '../../actors/payouts/nuban.ts';
import type { Harness } from '../../support/http.ts';
import { executedRun, importPayees, key, type PayeeRow } from '../payroll/support.ts';

let n = 0;
export const ik = (what: string) => `${what}-${process.pid}-${++n}`;

/** A NUBAN at GTBank (058) whose serial ends with `tag` (the sandbox behaviour, actors/payouts/providers/sandbox.ts). */
export const account = (tag: string, i = 0) => ({ bank_code: '058', account_number: nuban('058', `${String(1000 + i).padStart(7, '0')}${tag}`) });

export function row(payeeRef: string, basic = 40_000_000): PayeeRow {
  return { payee_ref: payeeRef, monthly_basic: basic, monthly_housing: 10_000_000, monthly_transport: 5_000_000, monthly_other_allowances: 0, state_of_residence: 'NG-LA', nhf_contributing: false };
}

/** Issues a live passport for a payee directly on its actor (the identity tests cover how one is earned). */
export async function livePassports(h: Harness, org: string, payees: string[]) {
  for (const p of payees) {
    await h.platform.system.ask('identity_passport', passportIdOf(org, p), 'issue', { subject_ref: p, verification_id: `anchor_pro_verification_t${n++}`, assurance: 'dal_2', consent_token_id: null, livemode: false, mocked: true }, { org, principal: 'system' });
  }
}

/** Re-signs a document with the organisation's payroll key (what payroll signs once it carries accounts). */
export async function resign(h: Harness, org: string, document: string) {
  const k = await payrollSigningKey(h.platform.stores.kv, org, 'test');
  return { object: 'signed_payout_instruction', algorithm: 'ed25519', key_id: k.key_id, document, signature: sign(null, Buffer.from(document), createPrivateKey(k.private_pem)).toString('base64') };
}

/**
 * Executes a payroll run for payees tagged with their sandbox account behaviour, and returns the
 * run and its signed instruction with each line's account added and signed by payroll's key.
 */
export async function runWithAccounts(h: Harness, org: { key: string; org: string }, payees: Array<{ ref: string; tag: string | null }>, period = '2026-01') {
  await importPayees(h, org.key, payees.map((p) => row(p.ref)), { headcount: 10, turnover_50m_or_more: false, maker_checker_threshold: 1_000_000_000_000 });
  const run = await executedRun(h, org.key, period);
  const signed = (await h.request('GET', `/v1/payroll/runs/${run.id}/payout_instruction`, { key: org.key })).body;
  expect(signed.document, JSON.stringify(signed)).toBeTypeOf('string');
  const doc = JSON.parse(signed.document);
  doc.lines = doc.lines.map((l: { payee_ref: string }, i: number) => {
    const tag = payees.find((p) => p.ref === l.payee_ref)!.tag;
    return tag === null ? l : { ...l, ...account(tag, i) };
  });
  return { run, original: signed, signed: await resign(h, org.org, JSON.stringify(doc)), doc };
}

export const post = (h: Harness, k: string, path: string, body: unknown = {}) => h.request('POST', path, { key: k, idempotencyKey: key(), body });

export async function fund(h: Harness, k: string, amount: number) {
  const r = await post(h, k, '/v1/payouts/funding_account/deposits', { amount: { amount, currency: 'NGN' } });
  expect(r.status, r.text).toBe(200);
}

/** Advance the clock in steps, settling after each, until `done` or the budget is spent. */
export async function advanceUntil(h: Harness, done: () => Promise<boolean>, stepMs = 30_000, maxSteps = 200) {
  for (let i = 0; i < maxSteps; i++) {
    await h.platform.system.settle();
    if (await done()) return;
    await h.clock.advance(stepMs);
  }
  await h.platform.system.settle();
}
