/**
 * One rule for caller references (spec 2.4 subject_ref "opaque caller reference, not a name";
 * kernel/caller-ref.ts; docs/gaps.md#identity "Caller references"): identity's subject_ref,
 * engagements' party refs, credentials' subject_ref and allocation's worker_id refuse alike what
 * could hide or confuse a reference: NUL and other controls, lone surrogates, bidirectional
 * controls, spaces, look-alike letters.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isCallerRef } from '../../kernel/index.ts';
import { startHarness, type Harness } from '../../support/http.ts';
import { ik } from './support.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const REFUSED: [string, string][] = [
  ['NUL', 'worker\u0000a'],
  ['a lone high surrogate', 'worker\ud800'],
  ['a lone low surrogate', '\udc00worker'],
  ['a right-to-left override', 'worker\u202Egpj'],
  ['a right-to-left isolate', 'worker\u2067x\u2069'],
  ['a left-to-right mark', '\u200Eworker'],
  ['a line separator', 'worker\u2028a'],
  ['a space', 'worker a'],
  ['a Cyrillic look-alike', 'w\u043erker'],
  ['a leading punctuation mark', '-worker'],
  ['256 characters', 'w'.repeat(256)],
  ['nothing', ''],
];
const ACCEPTED = ['worker_1', 'org_01JX:emp.42-a', '7', 'w'.repeat(255)];

describe('caller references: one kernel rule (spec 2.4 subject_ref; kernel/caller-ref.ts)', () => {
  it('isCallerRef refuses controls, lone surrogates, bidirectional controls and look-alikes, and accepts URL-safe references', () => {
    for (const [why, ref] of REFUSED) expect({ why, ok: isCallerRef(ref) }).toEqual({ why, ok: false });
    for (const ref of ACCEPTED) expect({ ref, ok: isCallerRef(ref) }).toEqual({ ref, ok: true });
  });

  const CASES: [string, string, (ref: string) => Record<string, unknown>, string][] = [
    ['identity consent token subject_ref', '/v1/identity/consent_tokens', (ref) => ({ subject_ref: ref, purpose: 'employment_verification', checks: ['contactability'], wording_version: 'w1' }), '/subject_ref'],
    ['identity verification subject_ref', '/v1/identity/verifications', (ref) => ({ subject_ref: ref, consent_token_id: 'anchor_pro_consent_x', claims: { phone: '+2348012345678' } }), '/subject_ref'],
    ['engagement engaging_party_ref', '/v1/rail/engagements', (ref) => ({ engaging_party_ref: ref, worker_ref: 'worker_1', starts_on: '2026-12-01' }), '/engaging_party_ref'],
    ['credential verification subject_ref', '/v1/credentials/verifications', (ref) => ({ subject_ref: ref, issuer_id: 'proof_issuer_waec', credential_kind: 'waec_ssce' }), '/subject_ref'],
    ['allocation device credential worker_id', '/v1/allocation/device_credentials', (ref) => ({ worker_id: ref, name: 'phone' }), '/worker_id'],
  ];

  it.each(CASES)('%s refuses every one of them with 400 naming the field (same rule as allocation worker_id)', async (_what, path, body, field) => {
    for (const [why, ref] of REFUSED) {
      const r = await h.request('POST', path, { body: body(ref), idempotencyKey: ik('ref') });
      const entry = r.body.error?.validation?.entries?.find((e: { field: string }) => e.field === field);
      expect({ why, status: r.status, code: r.body.error?.code, field: entry?.field }).toEqual({ why, status: 400, code: 'validation_failed', field });
    }
  });
  it('a payroll import row\'s payee_ref follows the same rule: each refused reference names its row (docs/gaps.md#payroll)', async () => {
    const row = (ref: string) => ({ payee_ref: ref, monthly_basic: { amount: 10_000_000, currency: 'NGN' }, state_of_residence: 'NG-LA', starts_on: '2026-01-01' });
    const r = await h.request('POST', '/v1/payroll/imports', { body: { format: 'json', rows: REFUSED.map(([, ref]) => row(ref)) }, idempotencyKey: ik('ref') });
    const entries = (r.body.validation?.entries ?? r.body.error?.validation?.entries ?? []) as { field: string; code: string }[];
    for (let i = 0; i < REFUSED.length; i++) {
      expect({ why: REFUSED[i][0], refused: entries.some((e) => e.field === `/rows/${i}/payee_ref` && e.code === 'invalid_payee_ref') }).toEqual({ why: REFUSED[i][0], refused: true });
    }
    const ok = await h.request('POST', '/v1/payroll/imports', { body: { format: 'json', rows: [row('emp.42-a')] }, idempotencyKey: ik('ref') });
    expect(ok.body.status, ok.text).toBe('completed');
  });
});
