/**
 * Signed payout instructions (spec 1 rule 10: "payout instructions arrive signed from payroll").
 *
 * Design: Ed25519 with payroll's own key per organisation and realm (kernel/signing.ts, shared with
 * remittance's key); the public key is published under its key id, so the payouts area verifies
 * with nothing secret. The signature covers the canonical bytes of the instruction
 * document (fixed key order, JSON), which names the organisation, realm, run and every net-pay
 * line; the document is rebuilt from the executed run's payslips, so it needs no copy of its own.
 * A receiver accepts an instruction only when the signature verifies under the key id it names,
 * and that key belongs to the submitting organisation and realm (verifyPayoutInstruction).
 */
import { createHash } from 'node:crypto';
import { publicKey as areaPublicKey, realmOf, type PublicKeyRecord, type Realm, type SigningKey, signingKey as areaSigningKey, signWith, verifySigned } from '../../../kernel/index.ts';
import type { KeyValueStore } from '../../../stores/index.ts';
import type { ActorSystem } from '../../../runtime/index.ts';
import { payslipId } from '../payroll-ids.ts';
import type { PayslipRecord } from '../payslips/record.ts';
import { remittanceBasis } from '../payslips/storage.ts';
import { Run, type PayoutSeal, type RunState } from './run.ts';

export { realmOf, type PublicKeyRecord, type Realm };

/** The area whose key signs payroll's instructions (kernel/signing.ts). */
const AREA = 'payroll';

/** The organisation's payroll key for a realm, made on first use (setIfAbsent: one key even under races). */
export async function payrollSigningKey(kv: KeyValueStore, org: string, realm: Realm): Promise<SigningKey> {
  return areaSigningKey(kv, AREA, org, realm);
}

/** A public key of payroll's by id, as a verifier reads it. */
export async function payrollPublicKey(kv: KeyValueStore, keyId: string): Promise<PublicKeyRecord | undefined> {
  return areaPublicKey(kv, AREA, keyId);
}

export interface PayoutDocument {
  bytes: string;
  line_count: number;
  total: number;
  instruction_ref: string;
}

/** The instruction document of an executed (or about to execute) run: net pay, one payee per line. */
/** `payslips` are the run's own, or a correction's deltas (only increases of net pay are paid). */
export function payoutDocument(run: RunState, payslips: readonly PayslipRecord[]): PayoutDocument {
  const lines: string[] = [];
  let total = 0;
  for (const p of payslips) {
    if (p.net <= 0) continue;
    total += p.net;
    // The payee's account is inside the signed bytes (docs/gaps.md#payouts); a line without one is held by payouts.
    const a = p.bank_account;
    const account = a ? { bank_code: a.bank_code, account_number: a.account_number, ...(a.account_name ? { account_name: a.account_name } : {}) } : {};
    lines.push(JSON.stringify({ line: lines.length + 1, payslip_id: payslipId(run.id, p.n), pay_profile_id: p.pay_profile_id, payee_ref: p.payee_ref, amount: p.net, ...account }));
  }
  const instruction_ref = `${run.id}:net_pay`;
  const head = JSON.stringify({
    object: 'payout_instruction_document', version: 1, source: 'run', instruction_ref,
    org: run.org, realm: realmOf(run.livemode), run_id: run.id, period: run.period, pay_date: run.pay_date,
    currency: 'NGN', total, line_count: lines.length,
  });
  return { bytes: `${head.slice(0, -1)},"lines":[${lines.join(',')}]}`, line_count: lines.length, total, instruction_ref };
}

export async function sealPayout(kv: KeyValueStore, run: RunState, payslips: readonly PayslipRecord[]): Promise<PayoutSeal | null> {
  const doc = payoutDocument(run, payslips);
  if (doc.line_count === 0) return null;
  const key = await payrollSigningKey(kv, run.org, realmOf(run.livemode));
  const bytes = Buffer.from(doc.bytes);
  return {
    instruction_ref: doc.instruction_ref,
    algorithm: 'ed25519',
    key_id: key.key_id,
    signature: signWith(key, doc.bytes),
    digest: `sha256:${createHash('sha256').update(bytes).digest('hex')}`,
    line_count: doc.line_count,
    total: doc.total,
  };
}

/** What payroll hands the payouts area (spec 4.10 POST /v1/payouts/instructions carries it). */
export interface SignedPayoutInstruction {
  object: 'signed_payout_instruction';
  algorithm: 'ed25519';
  key_id: string;
  /** The exact signed bytes (UTF-8 JSON). */
  document: string;
  /** Base64 Ed25519 signature over `document`. */
  signature: string;
}

export function signedInstruction(run: RunState, payslips: readonly PayslipRecord[]): SignedPayoutInstruction | undefined {
  if (!run.payout) return undefined;
  return { object: 'signed_payout_instruction', algorithm: 'ed25519', key_id: run.payout.key_id, document: payoutDocument(run, payslips).bytes, signature: run.payout.signature };
}

/** The signed payout instruction of an executed run, as the payouts area receives it. */
export async function payoutInstructionFor(system: ActorSystem, org: string, runId: string): Promise<SignedPayoutInstruction | undefined> {
  const run = await system.state(Run, runId, org);
  return run.payout ? signedInstruction(run, await remittanceBasis(system, run)) : undefined;
}

export type Verification =
  | { valid: true; org: string; realm: Realm; document: { run_id: string; total: number; line_count: number; instruction_ref: string; lines: Array<{ line: number; payslip_id: string; pay_profile_id: string; payee_ref: string; amount: number }> } }
  | { valid: false; reason: 'unknown_key' | 'signature_invalid' | 'organisation_mismatch' | 'integrity_mismatch' };

/**
 * The receiver's check: the key id is known, it belongs to `org` and `realm`, the signature holds
 * over the exact bytes, and the document's own organisation, realm, totals and line count agree.
 */
export async function verifyPayoutInstruction(kv: KeyValueStore, env: SignedPayoutInstruction, org: string, realm: Realm): Promise<Verification> {
  const check = await verifySigned(kv, AREA, env, org, realm);
  if (!check.valid) return check;
  const doc = JSON.parse(env.document) as { org: string; realm: Realm; run_id: string; total: number; line_count: number; instruction_ref: string; lines: Array<{ line: number; payslip_id: string; pay_profile_id: string; payee_ref: string; amount: number }> };
  if (doc.org !== org || doc.realm !== realm) return { valid: false, reason: 'organisation_mismatch' };
  let sum = 0;
  for (const l of doc.lines) sum += l.amount;
  if (sum !== doc.total || doc.lines.length !== doc.line_count || doc.lines.some((l) => !Number.isSafeInteger(l.amount) || l.amount <= 0)) return { valid: false, reason: 'integrity_mismatch' };
  return { valid: true, org, realm, document: doc };
}
