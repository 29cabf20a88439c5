/**
 * Intake of a signed instruction (spec 1 rule 10, 2.11, 3 "Payout instruction"): the checks that
 * decide received or quarantined, in the order signature, lines, duplicate. Only an instruction
 * that passes the first two claims its derived idempotency_key, so a forged or broken copy can
 * never block the genuine one.
 * - signature_invalid: the key id is unknown, belongs to another organisation or realm, or the
 *   Ed25519 signature does not hold over the exact bytes; a `run` document is checked against
 *   payroll's key (verifyPayoutInstruction), a `remit` document against remittance's own key
 *   (kernel/signing.ts), so neither area's key can stand in for the other's;
 * - integrity_mismatch: totals or line count disagree with the lines; a line's amount is not a
 *   positive whole number; an account fails its NUBAN check digit; a line disagrees with the run it
 *   names (the run's own signed seal, else its payslips line by line); a remit line disagrees with
 *   the remittance and leg it names (the check the remittance area registers, REMIT_INSTRUCTION_CHECK);
 * - duplicate_instruction: the idempotency_key (sha256 of organisation, realm and the document's
 *   instruction_ref: one net-pay instruction per run) was claimed by another instruction.
 */
import { keyValue, sha256, type Platform, verifySigned } from '../../kernel/index.ts';
import { REMIT_INSTRUCTION_CHECK } from './remit-check.ts';
import { parsePayslipId, payoutInstructionFor, realmOf, Run, type RunState, type SignedPayoutInstruction, verifyPayoutInstruction } from '../payroll/index.ts';
import type { Submission, QuarantineReason } from './instruction.ts';
import { isValidNuban, nubanInstitution } from './nuban.ts';
import type { BankAccount } from './payout.ts';

export interface DocumentLine {
  line: number;
  payslip_id?: string;
  pay_profile_id?: string;
  payee_ref: string;
  amount: number;
  bank_code?: string;
  account_number?: string;
  account_name?: string | null;
}

export interface InstructionDocument {
  source?: string;
  instruction_ref?: string;
  org?: string;
  realm?: string;
  run_id?: string | null;
  remittance_id?: string | null;
  currency?: string;
  total: number;
  line_count: number;
  lines: DocumentLine[];
}

type Finding = Submission['findings'][number];

export const documentKey = (instructionId: string) => `payouts:document:${instructionId}`;
const claimKey = (org: string, realm: string, key: string) => `payouts:instruction_key:${org}:${realm}:${key}`;

export function parseDocument(text: string): InstructionDocument | undefined {
  try {
    const d = JSON.parse(text) as InstructionDocument;
    return d && typeof d === 'object' && Array.isArray(d.lines) ? d : undefined;
  } catch {
    return undefined;
  }
}

export const accountOf = (l: DocumentLine): BankAccount | null =>
  typeof l.bank_code === 'string' && typeof l.account_number === 'string' ? { bank_code: l.bank_code, account_number: l.account_number, account_name: l.account_name ?? null } : null;

/** Each line's own checks: amount, and the account's NUBAN check digit when an account is given. */
export function lineFindings(doc: InstructionDocument): Finding[] {
  const out: Finding[] = [];
  for (const [i, l] of doc.lines.entries()) {
    const n = i + 1;
    if (l.line !== n) out.push({ line: n, code: 'line_out_of_order', detail: `Line ${n} is numbered ${String(l.line)}.` });
    if (!Number.isSafeInteger(l.amount) || l.amount <= 0) out.push({ line: n, code: 'amount_invalid', detail: `Line ${n}'s amount is not a positive whole number of minor units.` });
    if (l.bank_code === undefined && l.account_number === undefined) continue;
    if (typeof l.bank_code !== 'string' || !nubanInstitution(l.bank_code)) out.push({ line: n, code: 'bank_code_invalid', detail: `Line ${n}'s bank_code is not a 3-digit (bank) or 5-digit (other institution) CBN code.` });
    else if (typeof l.account_number !== 'string' || !isValidNuban(l.bank_code, l.account_number)) out.push({ line: n, code: 'nuban_check_failed', detail: `Line ${n}'s account number fails the NUBAN check digit for bank code ${l.bank_code}.` });
  }
  return out;
}

/** A run document's lines against the run it names: its seal, else its payslips line by line. */
async function runFindings(platform: Platform, org: string, doc: InstructionDocument, digest: string): Promise<Finding[]> {
  const runId = doc.run_id;
  if (!runId) return [{ line: null, code: 'run_missing', detail: 'A run instruction names no run_id.' }];
  let run: RunState;
  try {
    run = await platform.system.state(Run, runId, org);
  } catch {
    return [{ line: null, code: 'run_unknown', detail: `The run ${runId} the instruction names does not exist in this organisation.` }];
  }
  if (!run.payout) return [{ line: null, code: 'run_not_executed', detail: `Run ${runId} has no signed payout instruction (it has not executed).` }];
  if (run.payout.line_count !== doc.line_count || run.payout.total !== doc.total) {
    return [{ line: null, code: 'run_totals_disagree', detail: `Run ${runId} sealed ${run.payout.line_count} lines totalling ${run.payout.total}; the instruction has ${doc.line_count} totalling ${doc.total}.` }];
  }
  if (run.payout.digest === digest) return [];
  // Bytes differ from the seal (accounts added after sealing): each line must name the run's payslip, payee and amount.
  const own = await payoutInstructionFor(platform.system, org, runId);
  const ref = own ? parseDocument(own.document) : undefined;
  if (!ref) return [{ line: null, code: 'run_not_executed', detail: `Run ${runId}'s own instruction could not be rebuilt.` }];
  const out: Finding[] = [];
  for (const [i, l] of doc.lines.entries()) {
    const r = ref.lines[i];
    const p = l.payslip_id ? parsePayslipId(l.payslip_id) : undefined;
    if (!r || !p || p.runId !== runId || r.payslip_id !== l.payslip_id || r.payee_ref !== l.payee_ref || r.amount !== l.amount) {
      out.push({ line: i + 1, code: 'line_disagrees_with_run', detail: `Line ${i + 1} does not match payslip, payee and net pay of run ${runId}.` });
      if (out.length >= 100) break;
    }
  }
  return out;
}

/** A remit document's lines against the remittance and leg it names (the remittance area's own check). */
async function remitFindings(platform: Platform, org: string, doc: InstructionDocument): Promise<Finding[]> {
  if (typeof doc.remittance_id !== 'string' || !doc.remittance_id) return [{ line: null, code: 'remittance_missing', detail: 'A remit instruction names no remittance_id.' }];
  const checker = platform.services.get(REMIT_INSTRUCTION_CHECK);
  if (!checker) return [{ line: null, code: 'remittance_unknown', detail: `The remittance ${doc.remittance_id} cannot be checked: the remittance area is not mounted.` }];
  return checker.check(org, doc as unknown as Record<string, unknown>);
}

/** The signature of a document under the key of the area its source names. */
async function verifyFor(platform: Platform, env: SignedPayoutInstruction, doc: InstructionDocument | undefined, org: string, realm: 'test' | 'live') {
  if (doc?.source !== 'remit') return verifyPayoutInstruction(keyValue(platform), env, org, realm);
  const sig = await verifySigned(keyValue(platform), 'remittance', env, org, realm);
  if (!sig.valid) return sig;
  if (doc.org !== org || doc.realm !== realm) return { valid: false as const, reason: 'organisation_mismatch' as const };
  let sum = 0;
  for (const l of doc.lines) sum += l.amount;
  if (sum !== doc.total || doc.lines.length !== doc.line_count || doc.lines.some((l) => !Number.isSafeInteger(l.amount) || l.amount <= 0)) return { valid: false as const, reason: 'integrity_mismatch' as const };
  return { valid: true as const };
}

export interface IntakeVerdict {
  submission: Omit<Submission, 'tally_interval_ms'>;
  document: InstructionDocument | undefined;
}

export async function judge(platform: Platform, org: string, livemode: boolean, env: SignedPayoutInstruction, instructionId: string): Promise<IntakeVerdict> {
  const realm = realmOf(livemode);
  const doc = parseDocument(env.document);
  const digest = sha256(env.document);
  const findings: Finding[] = [];
  let reason: QuarantineReason | null = null;
  let verified = false;
  const v = await verifyFor(platform, env, doc, org, realm).catch(() => ({ valid: false as const, reason: 'integrity_mismatch' as const }));
  if (!v.valid && v.reason !== 'integrity_mismatch') {
    reason = 'signature_invalid';
    findings.push({ line: null, code: v.reason, detail: v.reason === 'unknown_key' ? `Key ${env.key_id} is not a signing key of the ${doc?.source === 'remit' ? 'remittance' : 'payroll'} area, which a ${doc?.source === 'remit' ? 'remit' : 'run'} instruction must be signed with.` : v.reason === 'organisation_mismatch' ? `Key ${env.key_id} does not belong to this organisation and realm.` : 'The signature does not hold over the document bytes.' });
  } else {
    verified = true;
    if (!v.valid || !doc) {
      reason = 'integrity_mismatch';
      findings.push({ line: null, code: 'totals_disagree', detail: 'The document\u2019s total or line count disagrees with its lines, or an amount is not a positive whole number.' });
    } else {
      findings.push(...lineFindings(doc));
      if (doc.source === 'run' || doc.source === undefined) findings.push(...(await runFindings(platform, org, doc, digest)));
      else if (doc.source === 'remit') findings.push(...(await remitFindings(platform, org, doc)));
      else findings.push({ line: null, code: 'source_unknown', detail: `The document's source ${String(doc.source)} is neither run nor remit.` });
      if (findings.length) reason = 'integrity_mismatch';
    }
  }
  const instructionRef = doc?.instruction_ref ?? null;
  const idempotency_key = sha256(`${org}\u0000${realm}\u0000${instructionRef ?? digest}`).slice('sha256:'.length);
  if (reason === null) {
    const k = claimKey(org, realm, idempotency_key);
    if (!(await keyValue(platform).setIfAbsent(k, instructionId))) {
      const first = await keyValue(platform).get<string>(k);
      if (first !== instructionId) {
        reason = 'duplicate_instruction';
        findings.push({ line: null, code: 'duplicate_instruction', detail: `The same instruction (idempotency_key ${idempotency_key}) was submitted before as ${first}.` });
      }
    }
  }
  const source = doc?.source === 'remit' ? 'remit' : 'run';
  return {
    document: doc,
    submission: {
      source,
      run_id: source === 'run' && typeof doc?.run_id === 'string' ? doc.run_id : null,
      remittance_id: source === 'remit' && typeof doc?.remittance_id === 'string' ? doc.remittance_id : null,
      total: Number.isSafeInteger(doc?.total) ? doc!.total : 0,
      currency: typeof doc?.currency === 'string' ? doc.currency : 'NGN',
      line_count: Number.isSafeInteger(doc?.line_count) && doc!.line_count >= 0 ? doc!.line_count : 0,
      idempotency_key,
      signature_verified: verified,
      quarantine_reason: reason,
      findings: findings.slice(0, 100),
      key_id: env.key_id,
      document_digest: digest,
      instruction_ref: instructionRef,
      livemode,
    },
  };
}
