/**
 * A payout rail behind one interface (spec 2.11 rails; reference 3.1, 3.4): name enquiry before
 * paying, a transfer under our reference (one reference per attempt: sending the same reference
 * again never pays twice, the rail answers the original), the transaction status query, and the
 * rail's own statement for reconciliation. Answers are the rail's words mapped to four outcomes;
 * the mapping of codes follows the reference's table (a time-out or code 01/96/97 is unknown,
 * never failed).
 */
export interface Transfer {
  reference: string;
  org: string;
  payout_id: string;
  amount: number;
  currency: string;
  bank_code: string;
  account_number: string;
  narration: string;
}

export type SendAnswer =
  /** Credited (code 00). */
  | { outcome: 'settled'; code: string; detail: string }
  /** A definite refusal: nothing was debited; another rail may be tried at once. */
  | { outcome: 'refused'; code: string; detail: string }
  /** In progress (09): the result comes by status query. */
  | { outcome: 'pending'; code: string; detail: string }
  /** No answer in time, or an answer meaning "status unknown": never failed, never resent elsewhere. */
  | { outcome: 'timeout'; code: string; detail: string };

export interface StatusAnswer {
  /** reversed: it settled and the payee's bank returned the credit (reference 3.4: success -> reversed). */
  status: 'settled' | 'failed' | 'pending' | 'not_found' | 'reversed';
  code: string;
  detail: string;
}

export interface NameEnquiry {
  status: 'found' | 'not_found';
  account_name: string | null;
  code: string;
}

export interface StatementEntry {
  reference: string;
  payout_id: string;
  amount: number;
  currency: string;
  bank_code: string;
  account_number: string;
  /** reversed: it settled and the payee's bank returned the credit afterwards. */
  status: 'settled' | 'failed' | 'pending' | 'reversed';
  code: string;
  booked_at: number;
}

export interface TestAccount {
  serial_ends_with: string;
  behaviour: string;
}

export interface Rail {
  readonly id: string;
  readonly mocked: boolean;
  readonly testAccounts: readonly TestAccount[];
  /** `nameOnLine` only lets a sandbox answer as if the account were held by that name; a live rail ignores it. */
  nameEnquiry(bankCode: string, accountNumber: string, now: number, nameOnLine: string | null): Promise<NameEnquiry>;
  send(t: Transfer, now: number): Promise<SendAnswer>;
  status(reference: string, now: number): Promise<StatusAnswer>;
  /** The rail's own record of transfers for an organisation, in booking order. */
  statement(org: string, opts: { after?: string; limit: number }, now: number): Promise<{ entries: StatementEntry[]; hasMore: boolean }>;
}
