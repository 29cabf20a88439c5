/**
 * A leg's signed payout instruction (spec 1 rule 10: "payout instructions arrive signed from
 * payroll or remittance"; spec 2.11 source `remit`, remittance_id). Remittance signs with its own
 * Ed25519 key (kernel/signing.ts, area `remittance`), never payroll's. One line: the authority's
 * collection account and the leg's amount. Each payment attempt has its own instruction_ref, so
 * the payouts module's derived idempotency key pays an attempt once and a retry can never pay an
 * attempt twice. The document is rebuilt from the leg whenever it is needed (no copy is kept).
 *
 * REMIT_INSTRUCTION_CHECK (registered in the part's start) is the check the payouts module asks
 * of a remit document: the remittance and leg it names exist in the organisation, the leg is the
 * remittance's, the instruction_ref is one of the leg's attempts, and the line pays the leg's
 * authority account exactly the leg's amount for its period.
 */
import { isApiError, keyValue, type Platform, realmOf, type SignedEnvelope, signingKey, signWith } from '../../../kernel/index.ts';
import type { RemitInstructionCheck, SignedLineFinding } from '../../payouts/index.ts';
import { legOfInstruction } from './ids.ts';
import { Leg, type LegState } from './leg.ts';

export const SIGNING_AREA = 'remittance';

export function legDocument(leg: LegState, attempt: number): string {
  const a = leg.attempts.find((x) => x.n === attempt);
  if (!a) throw new Error(`leg ${leg.id} has no attempt ${attempt}`);
  const acc = leg.collection_account;
  const head = JSON.stringify({
    object: 'payout_instruction_document', version: 1, source: 'remit', instruction_ref: a.instruction_ref,
    org: leg.org, realm: realmOf(leg.livemode), run_id: null, remittance_id: leg.remittance_id, leg_id: leg.id, authority_id: leg.authority_id,
    levy: leg.levy, period: leg.period, currency: leg.currency, total: leg.amount, line_count: 1,
  });
  const line = JSON.stringify({ line: 1, payee_ref: leg.authority_id, amount: leg.amount, bank_code: acc.bank_code, account_number: acc.account_number, account_name: acc.account_name });
  return `${head.slice(0, -1)},"lines":[${line}]}`;
}

export async function signedLegInstruction(p: Platform, leg: LegState, attempt: number): Promise<SignedEnvelope & { object: 'signed_payout_instruction' }> {
  const key = await signingKey(keyValue(p), SIGNING_AREA, leg.org, realmOf(leg.livemode));
  const document = legDocument(leg, attempt);
  return { object: 'signed_payout_instruction', algorithm: 'ed25519', key_id: key.key_id, document, signature: signWith(key, document) };
}

export function remitInstructionCheck(p: Platform): RemitInstructionCheck {
  return {
    async check(org, doc): Promise<SignedLineFinding[]> {
      const f = (code: string, detail: string, line: number | null = null): SignedLineFinding[] => [{ line, code, detail }];
      const legId = typeof doc.leg_id === 'string' ? doc.leg_id : '';
      let leg: LegState;
      try {
        leg = await p.system.state(Leg, legId, org);
      } catch (e) {
        if (isApiError(e)) return f('leg_unknown', `The remittance leg ${legId || '(none)'} the instruction names does not exist in this organisation.`);
        throw e;
      }
      if (leg.remittance_id !== doc.remittance_id) return f('remittance_disagrees', `Leg ${leg.id} belongs to remittance ${leg.remittance_id}, not ${String(doc.remittance_id)}.`);
      const attempt = leg.attempts.find((a) => a.instruction_ref === doc.instruction_ref);
      if (!attempt) return f('attempt_unknown', `Leg ${leg.id} has no payment attempt ${String(doc.instruction_ref)}.`);
      const out: SignedLineFinding[] = [];
      if (doc.period !== leg.period || doc.currency !== leg.currency || doc.authority_id !== leg.authority_id) out.push(...f('leg_disagrees', `The document's period, currency or authority disagrees with leg ${leg.id}.`));
      const lines = Array.isArray(doc.lines) ? (doc.lines as Array<Record<string, unknown>>) : [];
      if (lines.length !== 1) out.push(...f('line_count_disagrees', `A leg is paid by one line; the document has ${lines.length}.`));
      const l = lines[0];
      const acc = leg.collection_account;
      if (l && (l.amount !== leg.amount || l.bank_code !== acc.bank_code || l.account_number !== acc.account_number)) out.push(...f('line_disagrees_with_leg', `Line 1 does not pay leg ${leg.id}'s amount (${leg.amount}) to its authority's collection account.`, 1));
      return out;
    },
  };
}

export { legOfInstruction };
