/**
 * The authorities' sandbox (spec 4.9: receipts "from the authority's sandbox", returns "submitted
 * to the authority's sandbox"). Live authority endpoints are not shown (docs/gaps.md, "Remittance:
 * remittances, legs, receipts, returns"); the sandbox behaves as reference 4 describes the real
 * ones, deterministically:
 * - a receipt for a payment the authority received: its receipt number (derived from the payment
 *   reference), the authority's code, the levy, the period, the amount in kobo, the payment
 *   reference (our payout instruction id), paid_at and the channel (`nip`);
 * - a filed return is acknowledged when its rows add up to its total and that total equals what
 *   the authority receipted for the period; otherwise it is rejected with the reasons.
 */
import { createHash } from 'node:crypto';

export interface AuthorityPayment {
  authority_id: string;
  authority_code: string;
  authority_name: string;
  levy: string;
  period: string;
  amount: number;
  currency: string;
  payment_reference: string;
  paid_at: string;
  payer: string;
}

export interface FiledReturn {
  return_id: string;
  authority_code: string;
  form: string;
  period: string;
  total: number;
  row_total: number;
  receipted_amount: number;
}

export interface FilingAnswer {
  accepted: boolean;
  acknowledgement_no: string | null;
  reasons: string[];
}

export interface AuthorityGateway {
  readonly mocked: boolean;
  receiptFor(p: AuthorityPayment): string;
  file(r: FiledReturn): FilingAnswer;
}

const serial = (prefix: string, text: string) => `${prefix}-${createHash('sha256').update(text).digest('hex').slice(0, 12).toUpperCase()}`;

export const sandboxAuthority: AuthorityGateway = {
  mocked: true,
  receiptFor(p) {
    return JSON.stringify({
      object: 'authority_receipt',
      authority_code: p.authority_code,
      authority_name: p.authority_name,
      receipt_no: serial('RCT', `${p.authority_code}\u0000${p.payment_reference}`),
      levy: p.levy,
      period: p.period,
      amount_kobo: p.amount,
      currency: p.currency,
      payment_reference: p.payment_reference,
      paid_at: p.paid_at,
      channel: 'nip',
      payer: p.payer,
    });
  },
  file(r) {
    const reasons: string[] = [];
    if (r.row_total !== r.total) reasons.push(`The rows add up to ${r.row_total} kobo; the return states ${r.total}.`);
    if (r.total !== r.receipted_amount) reasons.push(`The return states ${r.total} kobo; the authority receipted ${r.receipted_amount} for ${r.period}.`);
    return reasons.length
      ? { accepted: false, acknowledgement_no: null, reasons }
      : { accepted: true, acknowledgement_no: serial('ACK', `${r.authority_code}\u0000${r.return_id}`), reasons };
  },
};
