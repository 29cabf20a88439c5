/**
 * A period's reconciliation and audit export (spec 4.9 "GET audit_exports and reconciliations";
 * shapes not shown: docs/gaps.md, "Remittance: remittances, legs, receipts, returns"). Both are
 * read from the records as they stand, never stored, so they cannot disagree with them.
 * - reconciliation: per authority and levy, what was owed (obligations) against what the legs paid
 *   against what vaulted receipts show; a line is matched when the three agree. Clean when every
 *   line is matched, no leg is unfinished and no receipt is quarantined.
 * - audit export: the period's instruction sets, remittances, legs, receipts (with the sha256 of
 *   each vaulted document), returns and obligations in one JSON file, with the sha256 of its
 *   canonical content.
 */
import { type Caller, canonicalJson, type Platform, sha256 } from '../../../kernel/index.ts';
import { iso } from '../../../runtime/index.ts';
import { Leg, type LegState } from './leg.ts';
import { Receipt, type ReceiptState } from './receipt.ts';
import { Remittance, type RemittanceState } from './remittance.ts';
import { Return, type ReturnState } from './return.ts';
import { obligationsOfPeriod, setsOfPeriod } from './sources.ts';

async function all<S extends { livemode: boolean }>(p: Platform, c: Caller, def: Parameters<Platform['system']['state']>[0], list: string): Promise<S[]> {
  const out: S[] = [];
  for await (const ids of p.system.eachIds(def, c.org, list, 'asc')) {
    const states = await Promise.all(ids.map((id) => p.system.state<S>(def, id, c.org)));
    for (const s of states) if (s.livemode === c.livemode) out.push(s);
  }
  return out;
}

export type ReconciliationStatus = 'matched' | 'unpaid' | 'overpaid' | 'unreceipted' | 'not_obligated';

export async function reconciliation(p: Platform, c: Caller, period: string) {
  const [obligations, legs, receipts] = await Promise.all([
    obligationsOfPeriod(p, c, period),
    all<LegState>(p, c, Leg, `period:${period}`),
    all<ReceiptState>(p, c, Receipt, `period:${period}`),
  ]);
  type Line = { authority_id: string; levy: string; obligated: number; paid: number; receipted: number; leg_ids: string[]; receipt_ids: string[] };
  const lines = new Map<string, Line>();
  const line = (authority_id: string, levy: string) => {
    const k = `${authority_id}\u0000${levy}`;
    let l = lines.get(k);
    if (!l) lines.set(k, (l = { authority_id, levy, obligated: 0, paid: 0, receipted: 0, leg_ids: [], receipt_ids: [] }));
    return l;
  };
  for (const o of obligations) line(o.authority_id, o.levy).obligated += o.amount.amount;
  const vaulted = new Map(receipts.filter((r) => r.status === 'vaulted').map((r) => [r.id, r]));
  for (const g of legs) {
    const paid = g.status === 'paid' || g.status === 'completed';
    const receipt = g.receipt_id ? vaulted.get(g.receipt_id) : undefined;
    // A PFC leg's one receipt covers each PFA line in proportion to what the leg paid it (the amounts agree, or it was quarantined).
    for (const l of g.lines) {
      const x = line(l.authority_id, g.levy);
      x.leg_ids.push(g.id);
      if (paid) x.paid += l.amount;
      if (receipt && receipt.parsed.amount === g.amount) {
        x.receipted += l.amount;
        x.receipt_ids.push(receipt.id);
      }
    }
  }
  const out = [...lines.values()].sort((a, b) => (a.levy === b.levy ? (a.authority_id < b.authority_id ? -1 : 1) : a.levy < b.levy ? -1 : 1)).map((l) => {
    const status: ReconciliationStatus = l.obligated === 0 && l.paid > 0 ? 'not_obligated' : l.paid < l.obligated ? 'unpaid' : l.paid > l.obligated ? 'overpaid' : l.receipted < l.paid ? 'unreceipted' : 'matched';
    return { authority_id: l.authority_id, levy: l.levy, obligated: money(l.obligated), paid: money(l.paid), receipted: money(l.receipted), status, leg_ids: [...new Set(l.leg_ids)], receipt_ids: [...new Set(l.receipt_ids)] };
  });
  const quarantined = receipts.filter((r) => r.status === 'quarantined').map((r) => ({ receipt_id: r.id, leg_id: r.leg_id, findings: r.findings }));
  const unfinished = legs.filter((g) => g.status !== 'completed').map((g) => ({ leg_id: g.id, status: g.status, failure_reason: g.failure_reason }));
  const sum = (f: (l: (typeof out)[number]) => number) => money(out.reduce((a, l) => a + f(l), 0));
  return {
    object: 'remittance_reconciliation' as const,
    livemode: c.livemode,
    mocked: false,
    period,
    clean: out.length > 0 && out.every((l) => l.status === 'matched') && unfinished.length === 0 && quarantined.length === 0,
    totals: { obligated: sum((l) => l.obligated.amount), paid: sum((l) => l.paid.amount), receipted: sum((l) => l.receipted.amount) },
    lines: out,
    unfinished_legs: unfinished,
    quarantined_receipts: quarantined,
    generated_at: iso(p.clock.now()),
  };
}

const money = (amount: number) => ({ amount, currency: 'NGN' });

export async function auditExport(p: Platform, c: Caller, period: string) {
  const [sets, obligations, remittances, legs, receipts, returns] = await Promise.all([
    setsOfPeriod(p, c, period),
    obligationsOfPeriod(p, c, period),
    all<RemittanceState>(p, c, Remittance, `period:${period}`),
    all<LegState>(p, c, Leg, `period:${period}`),
    all<ReceiptState>(p, c, Receipt, `period:${period}`),
    all<ReturnState>(p, c, Return, `period:${period}`),
  ]);
  const content = {
    period,
    livemode: c.livemode,
    instruction_sets: sets,
    obligations,
    remittances: remittances.map((s) => Remittance.view(s)),
    legs: legs.map((s) => Leg.view(s)),
    receipts: receipts.map((s) => ({ ...(Receipt.view(s) as object), document_sha256: s.document_hash })),
    returns: returns.map((s) => ({ id: s.id, form: s.form, authority_id: s.authority_id, status: s.status, total: money(s.total), content_hash: s.content_hash, acknowledgement_no: s.acknowledgement_no })),
  };
  return {
    object: 'remittance_audit_export' as const,
    mocked: false,
    counts: { instruction_sets: sets.length, obligations: obligations.length, remittances: remittances.length, legs: legs.length, receipts: receipts.length, returns: returns.length },
    content_hash: sha256(canonicalJson(content)),
    generated_at: iso(p.clock.now()),
    ...content,
  };
}
