/**
 * A receipt (spec 3 "Remittance instruction set": "a leg is complete when its receipt is vaulted;
 * a receipt whose parsed amount, period or authority disagrees with the leg is quarantined"). The
 * authority's evidence of payment for one leg, recorded once and never edited (spec 1 rule 4): its
 * document's bytes are kept in the vault under their sha256 whether it is vaulted or quarantined
 * (a quarantined receipt is evidence too); only a vaulted one completes its leg.
 *
 * status        command   condition                                         events                 next
 * ------------  --------  ------------------------------------------------  ---------------------  -----------
 * (none)        record    parsed amount, period and authority agree          receipt.vaulted        vaulted
 * (none)        record    any of them disagrees or is missing                receipt.quarantined    quarantined
 * (exists)      record    -                                                  - (the same record)
 */
import { defineActor, type IndexEntry, iso, sortKeyTime } from '../../../runtime/index.ts';
import { recordView } from '../../../kernel/index.ts';
import { RECEIPT_PREFIX } from './ids.ts';

export type ReceiptStatus = 'vaulted' | 'quarantined';
export type ReceiptSource = 'document' | 'fields' | 'authority_sandbox';

/** What was read from the authority's receipt (reference 4, "Suggested Receipt shape"). */
export interface ParsedReceipt {
  authority_id: string | null;
  authority_code: string | null;
  levy: string | null;
  period: string | null;
  amount: number | null;
  currency: string | null;
  payment_reference: string | null;
  authority_receipt_no: string | null;
  paid_at: string | null;
  channel: string | null;
  payer_tax_id: string | null;
}

export interface ReceiptFinding {
  field: 'amount' | 'period' | 'authority' | 'currency';
  code: 'amount_disagrees' | 'period_disagrees' | 'authority_disagrees' | 'currency_disagrees' | 'amount_missing' | 'period_missing' | 'authority_missing';
  detail: string;
}

export interface RecordReceipt {
  leg_id: string;
  remittance_id: string;
  period: string;
  levy: string;
  authority_id: string;
  livemode: boolean;
  source: ReceiptSource;
  parsed: ParsedReceipt;
  findings: ReceiptFinding[];
  document_hash: string;
  document_bytes: number;
}

export interface ReceiptState extends RecordReceipt {
  id: string;
  org: string;
  status: ReceiptStatus;
  created_at: number;
}

type Ev = { type: 'receipt.vaulted' | 'receipt.quarantined' } & RecordReceipt;

export const Receipt = defineActor({
  kind: 'remittance_receipt',
  prefix: RECEIPT_PREFIX,
  creates: ['record'],
  initial: (id: string, org: string): ReceiptState => ({
    id, org, leg_id: '', remittance_id: '', period: '', levy: '', authority_id: '', livemode: false, source: 'document',
    parsed: { authority_id: null, authority_code: null, levy: null, period: null, amount: null, currency: null, payment_reference: null, authority_receipt_no: null, paid_at: null, channel: null, payer_tax_id: null },
    findings: [], document_hash: '', document_bytes: 0, status: 'quarantined', created_at: 0,
  }),
  decide: {
    record(_s: ReceiptState, cmd: RecordReceipt, ctx): Ev[] {
      if (ctx.version > 0) return [];
      return [{ type: cmd.findings.length === 0 ? 'receipt.vaulted' : 'receipt.quarantined', ...cmd }];
    },
  },
  evolve(s: ReceiptState, e: Ev, meta): ReceiptState {
    const { type, ...rest } = e;
    return { ...s, ...rest, status: type === 'receipt.vaulted' ? 'vaulted' : 'quarantined', created_at: meta.at };
  },
  indexes(s: ReceiptState): IndexEntry[] {
    const key = sortKeyTime(s.created_at);
    return [{ list: 'all', sortKey: key }, { list: `leg:${s.leg_id}`, sortKey: key }, { list: `period:${s.period}`, sortKey: key }, { list: `status:${s.status}`, sortKey: key }];
  },
  view: receiptView,
});

export function receiptView(s: ReceiptState) {
  const p = s.parsed;
  return recordView('remittance_receipt', s.id, s.livemode, s.source === 'authority_sandbox', {
    status: s.status,
    leg_id: s.leg_id,
    remittance_id: s.remittance_id,
    authority_id: s.authority_id,
    levy: s.levy,
    period: s.period,
    source: s.source,
    parsed: {
      authority_id: p.authority_id, authority_code: p.authority_code, levy: p.levy, period: p.period,
      amount: p.amount === null ? null : { amount: p.amount, currency: p.currency ?? 'NGN' },
      payment_reference: p.payment_reference, authority_receipt_no: p.authority_receipt_no, paid_at: p.paid_at, channel: p.channel, payer_tax_id: p.payer_tax_id,
    },
    quarantine_findings: s.findings,
    document_hash: s.document_hash,
    document_bytes: s.document_bytes,
    created_at: iso(s.created_at),
  });
}
