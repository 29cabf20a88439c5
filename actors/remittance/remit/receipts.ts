/**
 * Recording a receipt (spec 3 "Remittance instruction set", 4.9 POST /v1/remittance/receipts): the
 * authority's receipt document (the text its sandbox issues) or its fields, for one paid leg. The
 * parsed amount, period and authority are compared with the leg; any disagreement (or a field the
 * receipt does not carry) quarantines it, otherwise it is vaulted and completes the leg, and the
 * obligation it discharges is marked remitted. The bytes are kept in the vault under the receipt's
 * id either way, with their sha256 on the record.
 */
import { ApiError, type Caller, derivedId, fieldError, isApiError, keyValue, type Platform, sha256 } from '../../../kernel/index.ts';
import { RECEIPT_PREFIX } from './ids.ts';
import { Leg, type LegState } from './leg.ts';
import { type ParsedReceipt, Receipt, type ReceiptFinding, type ReceiptSource, type ReceiptState } from './receipt.ts';
import type { AuthorityGateway } from './providers/sandbox-authority.ts';
import { type Levy, remitted } from './sources.ts';

export interface ReceiptFields {
  authority_id?: string;
  authority_code?: string;
  levy?: string;
  period?: string;
  amount?: { amount: number; currency: string };
  payment_reference?: string;
  authority_receipt_no?: string;
  paid_at?: string;
  channel?: string;
  payer_tax_id?: string;
}

export interface ReceiptBody {
  leg_id: string;
  /** The authority's receipt as issued (its sandbox's JSON text). */
  document?: string;
  fields?: ReceiptFields;
}

export const vaultKey = (receiptId: string) => `remittance:vault:receipt:${receiptId}`;
/** The receipt the authority's sandbox issues for a leg's n-th payment attempt. */
export const sandboxReceiptId = (legId: string, attempt: number) => derivedId(RECEIPT_PREFIX, [legId, 'authority_sandbox', String(attempt)]);

const str = (v: unknown): string | null => (typeof v === 'string' && v.length > 0 && v.length <= 256 ? v : null);

/** The authority sandbox's receipt text (ng-payouts-remittance.md 4, suggested receipt shape). */
export function parseDocument(text: string): ParsedReceipt {
  let d: Record<string, unknown>;
  try {
    const v = JSON.parse(text) as unknown;
    if (!v || typeof v !== 'object' || Array.isArray(v)) throw new Error('not an object');
    d = v as Record<string, unknown>;
  } catch {
    throw fieldError('/document', 'receipt_unreadable', 'document is not a receipt the authority\u2019s sandbox issues (a JSON object).');
  }
  const kobo = d.amount_kobo;
  return {
    authority_id: str(d.authority_id), authority_code: str(d.authority_code), levy: str(d.levy), period: str(d.period),
    amount: Number.isSafeInteger(kobo) ? (kobo as number) : null, currency: str(d.currency) ?? 'NGN',
    payment_reference: str(d.payment_reference), authority_receipt_no: str(d.receipt_no) ?? str(d.authority_receipt_no), paid_at: str(d.paid_at), channel: str(d.channel), payer_tax_id: str(d.payer_tax_id),
  };
}

function parseFields(f: ReceiptFields): ParsedReceipt {
  return {
    authority_id: f.authority_id ?? null, authority_code: f.authority_code ?? null, levy: f.levy ?? null, period: f.period ?? null,
    amount: f.amount ? f.amount.amount : null, currency: f.amount ? f.amount.currency : null,
    payment_reference: f.payment_reference ?? null, authority_receipt_no: f.authority_receipt_no ?? null, paid_at: f.paid_at ?? null, channel: f.channel ?? null, payer_tax_id: f.payer_tax_id ?? null,
  };
}

/** What disagrees with the leg (spec 3: amount, period or authority). */
export function compareWithLeg(leg: LegState, r: ParsedReceipt): ReceiptFinding[] {
  const out: ReceiptFinding[] = [];
  if (r.amount === null) out.push({ field: 'amount', code: 'amount_missing', detail: 'The receipt shows no amount.' });
  else if (r.amount !== leg.amount) out.push({ field: 'amount', code: 'amount_disagrees', detail: `The receipt shows ${r.amount} kobo; leg ${leg.id} paid ${leg.amount}.` });
  if (r.amount !== null && r.currency !== null && r.currency !== leg.currency) out.push({ field: 'currency', code: 'currency_disagrees', detail: `The receipt is in ${r.currency}; the leg in ${leg.currency}.` });
  if (r.period === null) out.push({ field: 'period', code: 'period_missing', detail: 'The receipt shows no period.' });
  else if (r.period !== leg.period) out.push({ field: 'period', code: 'period_disagrees', detail: `The receipt is for ${r.period}; leg ${leg.id} is for ${leg.period}.` });
  if (r.authority_id === null && r.authority_code === null) out.push({ field: 'authority', code: 'authority_missing', detail: 'The receipt names no authority.' });
  else if ((r.authority_id !== null && r.authority_id !== leg.authority_id) || (r.authority_code !== null && r.authority_code !== leg.authority_code)) {
    out.push({ field: 'authority', code: 'authority_disagrees', detail: `The receipt names ${r.authority_id ?? r.authority_code}; leg ${leg.id} paid ${leg.authority_name} (${leg.authority_code}).` });
  }
  return out;
}

export async function recordReceipt(p: Platform, c: Caller, body: ReceiptBody, id: string, source?: ReceiptSource): Promise<unknown> {
  const { system } = p;
  let existing: ReceiptState | undefined;
  try {
    existing = await system.state(Receipt, id, c.org); // the same create again (Idempotency-Key, or the sandbox's receipt asked twice)
  } catch (e) {
    if (!isApiError(e) || e.code !== 'not_found') throw e;
  }
  if (existing) {
    // Finish what a node that died after recording it may have left undone.
    const leg = await system.state(Leg, existing.leg_id, c.org);
    if (existing.status === 'quarantined' || leg.status === 'paid' || leg.receipt_id === existing.id) await applyToLeg(p, c, leg, existing);
    return Receipt.view(existing);
  }
  if ((body.document === undefined) === (body.fields === undefined)) {
    throw fieldError('/document', 'document_or_fields', 'Send exactly one of document (the authority\u2019s receipt) or fields.');
  }
  const text = body.document ?? JSON.stringify(body.fields);
  const parsed = body.document !== undefined ? parseDocument(body.document) : parseFields(body.fields!);
  const leg = await system.state(Leg, body.leg_id, c.org);
  // A node that stopped after the leg took this receipt left the record unwritten: finish it.
  const resumes = leg.status === 'completed' && leg.receipt_id === id;
  if (leg.status === 'completed' && !resumes) throw new ApiError('conflict', `Remittance leg ${leg.id} is completed: receipt ${leg.receipt_id} is vaulted for it.`, { status: leg.status });
  if (leg.status !== 'paid' && !resumes) throw new ApiError('conflict', `Remittance leg ${leg.id} is ${leg.status}: a receipt is recorded for a paid leg.`, { status: leg.status });
  const findings = compareWithLeg(leg, parsed);
  // The leg, one writer, takes an agreeing receipt before it is recorded: of two agreeing receipts
  // raced in for one leg, one completes it and the other is refused as above, never both vaulted.
  if (findings.length === 0) await system.ask(Leg, leg.id, 'receipt_vaulted', { receipt_id: id }, c);
  const document_hash = sha256(text);
  await keyValue(p).set(vaultKey(id), { receipt_id: id, leg_id: leg.id, hash: document_hash, text });
  const view = (await system.ask(Receipt, id, 'record', {
    leg_id: leg.id, remittance_id: leg.remittance_id, period: leg.period, levy: leg.levy, authority_id: leg.authority_id, livemode: leg.livemode,
    source: source ?? (body.document !== undefined ? 'document' : 'fields'), parsed, findings, document_hash, document_bytes: Buffer.byteLength(text),
  }, c));
  await applyToLeg(p, c, leg, await system.state(Receipt, id, c.org));
  return view;
}

/** A quarantined receipt is noted on its leg; a vaulted one completes it and remits its obligations. */
async function applyToLeg(p: Platform, c: Caller, leg: LegState, r: ReceiptState): Promise<void> {
  if (r.status === 'quarantined') {
    await p.system.ask(Leg, leg.id, 'receipt_quarantined', { receipt_id: r.id }, c);
    return;
  }
  await p.system.ask(Leg, leg.id, 'receipt_vaulted', { receipt_id: r.id }, c);
  // Each obligation the leg discharges (a PFC leg: one per PFA) is now remitted.
  for (const l of leg.lines) {
    try {
      await remitted(p, c, { authority_id: l.authority_id, levy: leg.levy as Levy, period: leg.period, leg_id: leg.id, receipt_id: r.id });
    } catch (e) {
      if (!isApiError(e) || e.code !== 'not_found') throw e; // a set imported without obligations has none to mark
    }
  }
}

/** The authority's receipt of a paid leg, asked of its gateway (the sandbox) and recorded as any receipt is. */
export async function fetchAuthorityReceipt(p: Platform, org: string, legId: string, authority: AuthorityGateway): Promise<void> {
  const leg = await p.system.state(Leg, legId, org);
  const paid = leg.attempts.find((a) => a.status === 'settled');
  if (leg.status !== 'paid' || !paid || leg.paid_at === null || !leg.ask_receipt) return;
  const document = authority.receiptFor({
    authority_id: leg.authority_id, authority_code: leg.authority_code, authority_name: leg.authority_name, levy: leg.levy, period: leg.period,
    amount: leg.amount, currency: leg.currency, payment_reference: paid.instruction_id, paid_at: new Date(leg.paid_at).toISOString(), payer: org,
  });
  await recordReceipt(p, { org, livemode: leg.livemode, principal: 'system' }, { leg_id: leg.id, document }, sandboxReceiptId(leg.id, paid.n), 'authority_sandbox');
}
