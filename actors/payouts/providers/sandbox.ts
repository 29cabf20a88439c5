/**
 * Sandbox rails (docs/gaps.md#payouts): an instant interbank rail (NIP-style), a batch transfer rail
 * (NEFT-style) and a wallet provider, each keeping its own books in the key-value store (shared by
 * every node, so the books outlive a node and a rail never pays one reference twice). Behaviour is
 * chosen by the last two digits of the account's 9-digit serial (the account number's 8th and 9th
 * digits; the 10th is the NUBAN check digit):
 *
 *   serial ends  rail                 behaviour
 *   ----------   ------------------   ------------------------------------------------------------
 *   90           every rail           name enquiry returns another name ("A. N. Other")
 *   91           instant_interbank    refused 91 (beneficiary bank not available); others settle
 *   92           every rail           refused 07 (invalid account): nowhere pays it
 *   93           instant_interbank    times out; status query says 01 until resolve time, then 00 settled
 *   94           instant_interbank    times out; status query says 01 until resolve time, then 91 failed
 *   95           instant_interbank    slow: answers 09 in progress; settles (00) at resolve time
 *   96           batch_transfer       refused 91 (returned item); others settle
 *   97           wallet               refused 61 (transfer limit exceeded); others settle
 *   98           every rail           settles at once (00); the payee's bank returns the credit at resolve
 *                                     time: the statement and the status query then say reversed (RV)
 *   other        every rail           settles at once (00)
 *
 * Resolve time is the booking time plus `resolveAfterMs`. `latencyMs` delays every answer by a
 * real timer after booking (the bench's simulated rail latency), one timer per millisecond shared
 * by the calls ending in it; 0 answers at once.
 */
import type { IndexStore, KeyValueStore } from '../../../stores/index.ts';
import { sortKeyTime } from '../../../runtime/index.ts';
import type { RailKind, RailPolicy } from '../policy.ts';
import type { NameEnquiry, Rail, SendAnswer, StatementEntry, StatusAnswer, TestAccount, Transfer } from './rail.ts';

/** A transfer as the sandbox rail books it (its narration is not kept). */
interface Booked extends Omit<Transfer, 'narration'> {
  booked_at: number;
  /** What the transfer becomes (settled, failed, or reversed after settling) and from when; until then it is pending (settled, for one returned later). */
  becomes: 'settled' | 'failed' | 'reversed';
  code: string;
  resolves_at: number;
  /** How the first answer was given. */
  answered: SendAnswer['outcome'];
}

/** The accounts that behave alike on every rail (the table above: serials 90, 92, 98). */
const EVERY_RAIL: TestAccount[] = [
  { serial_ends_with: '90', behaviour: 'name enquiry returns "A. N. Other" (a line naming another account holder is not paid)' },
  { serial_ends_with: '92', behaviour: 'refused 07 invalid account (every rail)' },
  { serial_ends_with: '98', behaviour: 'settles (00), then the payee\u2019s bank returns the credit (statement: reversed RV)' },
];

/** Each rail's own accounts. */
const RAIL_ONLY: Record<RailKind, TestAccount[]> = {
  instant_interbank: [
    { serial_ends_with: '91', behaviour: 'refused 91 beneficiary bank not available (final for this rail)' },
    { serial_ends_with: '93', behaviour: 'times out; the status query later reports 00 settled' },
    { serial_ends_with: '94', behaviour: 'times out; the status query later reports 91 failed' },
    { serial_ends_with: '95', behaviour: 'slow: 09 in progress, then 00 settled' },
  ],
  batch_transfer: [{ serial_ends_with: '96', behaviour: 'refused 91 returned item' }],
  wallet: [{ serial_ends_with: '97', behaviour: 'refused 61 transfer limit exceeded' }],
};

const bySerial = (a: TestAccount, b: TestAccount) => a.serial_ends_with.localeCompare(b.serial_ends_with);
const testAccountsOf = (kind: RailKind): TestAccount[] => [...EVERY_RAIL, ...RAIL_ONLY[kind]].sort(bySerial);

/** Each rail's test accounts in serial order, as GET /v1/payouts/rails shows them. */
export const SANDBOX_TEST_ACCOUNTS: Record<RailKind, TestAccount[]> = {
  instant_interbank: testAccountsOf('instant_interbank'),
  batch_transfer: testAccountsOf('batch_transfer'),
  wallet: testAccountsOf('wallet'),
};

const ALL_SETTLE: TestAccount = { serial_ends_with: 'any other', behaviour: 'settles at once (00)' };
/** Simulated latency waits, by the millisecond they end: calls ending in the same millisecond share one timer. */
const waits = new Map<number, Promise<void>>();
function sleep(ms: number): Promise<void> {
  const end = Math.ceil(performance.now() + ms);
  let w = waits.get(end);
  if (!w) {
    w = new Promise<void>((r) => setTimeout(() => (waits.delete(end), r()), end - performance.now()));
    waits.set(end, w);
  }
  return w;
}

export interface SandboxRailOptions {
  resolveAfterMs: number;
  latencyMs: number;
}

export class SandboxRail implements Rail {
  readonly mocked = true;
  readonly id: string;
  readonly testAccounts: readonly TestAccount[];

  constructor(
    private readonly policy: RailPolicy,
    private readonly kv: KeyValueStore,
    private readonly indexes: IndexStore,
    private readonly opts: SandboxRailOptions,
  ) {
    this.id = policy.id;
    this.testAccounts = [...SANDBOX_TEST_ACCOUNTS[policy.kind], ALL_SETTLE];
  }

  private key(reference: string) {
    return `payouts:sandbox:${this.id}:tx:${reference}`;
  }

  private list(org: string) {
    return `payouts:sandbox:${this.id}:${org}`;
  }

  /** The sandbox bank knows every account as held by the name on the line (or "Sandbox Payee" and its last four digits), except serial 90. */
  async nameEnquiry(_bankCode: string, accountNumber: string, _now: number, nameOnLine: string | null): Promise<NameEnquiry> {
    if (this.opts.latencyMs > 0) await sleep(this.opts.latencyMs);
    const tag = accountNumber.slice(7, 9);
    return { status: 'found', account_name: tag === '90' ? 'A. N. Other' : (nameOnLine ?? `Sandbox Payee ${accountNumber.slice(-4)}`), code: '00' };
  }

  /** What this rail does with an account (the table above). */
  private behaviour(accountNumber: string): { answer: SendAnswer; becomes: 'settled' | 'failed' | 'reversed'; code: string; delayed: boolean } {
    const tag = accountNumber.slice(7, 9);
    const kind = this.policy.kind;
    const refuse = (code: string, detail: string) => ({ answer: { outcome: 'refused' as const, code, detail }, becomes: 'failed' as const, code, delayed: false });
    if (tag === '92') return refuse('07', 'Invalid account.');
    if (tag === '98') return { answer: { outcome: 'settled', code: '00', detail: 'Approved or completed successfully.' }, becomes: 'reversed', code: 'RV', delayed: true };
    if (kind === 'instant_interbank') {
      if (tag === '91') return refuse('91', 'Beneficiary bank not available.');
      if (tag === '93') return { answer: { outcome: 'timeout', code: '97', detail: 'Timeout waiting for response from destination.' }, becomes: 'settled', code: '00', delayed: true };
      if (tag === '94') return { answer: { outcome: 'timeout', code: '97', detail: 'Timeout waiting for response from destination.' }, becomes: 'failed', code: '91', delayed: true };
      if (tag === '95') return { answer: { outcome: 'pending', code: '09', detail: 'Request processing in progress.' }, becomes: 'settled', code: '00', delayed: true };
    }
    if (kind === 'batch_transfer' && tag === '96') return refuse('91', 'Returned item: beneficiary bank not available.');
    if (kind === 'wallet' && tag === '97') return refuse('61', 'Transfer limit exceeded.');
    return { answer: { outcome: 'settled', code: '00', detail: 'Approved or completed successfully.' }, becomes: 'settled', code: '00', delayed: false };
  }

  async send(t: Transfer, now: number): Promise<SendAnswer> {
    const b = this.behaviour(t.account_number);
    const booked: Booked = {
      reference: t.reference, org: t.org, payout_id: t.payout_id, amount: t.amount, currency: t.currency, bank_code: t.bank_code, account_number: t.account_number,
      booked_at: now, becomes: b.becomes, code: b.code, resolves_at: b.delayed ? now + this.opts.resolveAfterMs : now, answered: b.answer.outcome,
    };
    // The statement lists a transfer before its booking is written, so a node killed between the two
    // writes can leave a listed reference with no booking (the statement skips it), never a booking
    // the statement does not show (which a kill -9 test found: payouts settled by a later status
    // query with no line on the rail's statement).
    await this.indexes.apply([{ op: 'put', list: this.list(t.org), id: t.reference, sortKey: sortKeyTime(now) }]);
    const first = await this.kv.setIfAbsent(this.key(t.reference), booked);
    if (this.opts.latencyMs > 0) await sleep(this.opts.latencyMs);
    if (first) return b.answer;
    // The same reference again (reference 3.1 code 26/94: do not pay again): the original's state,
    // listed again at its own booking time.
    const original = (await this.kv.get<Booked>(this.key(t.reference)))!;
    await this.indexes.apply([{ op: 'put', list: this.list(t.org), id: t.reference, sortKey: sortKeyTime(original.booked_at) }]);
    const s = this.state(original, now);
    if (s.status === 'settled') return { outcome: 'settled', code: '00', detail: 'Duplicate reference: the original transfer settled.' };
    if (s.status === 'failed') return { outcome: 'refused', code: original.code, detail: 'Duplicate reference: the original transfer failed.' };
    if (s.status === 'reversed') return { outcome: 'refused', code: original.code, detail: 'Duplicate reference: the original transfer was returned by the payee\u2019s bank.' };
    return { outcome: 'pending', code: '26', detail: 'Duplicate reference: the original transfer is in progress.' };
  }

  private state(b: Booked, now: number): { status: StatementEntry['status']; code: string } {
    if (now < b.resolves_at) return b.answered === 'settled' ? { status: 'settled', code: '00' } : { status: 'pending', code: b.answered === 'pending' ? '09' : '01' };
    return { status: b.becomes, code: b.code };
  }

  async status(reference: string, now: number): Promise<StatusAnswer> {
    if (this.opts.latencyMs > 0) await sleep(this.opts.latencyMs);
    const b = await this.kv.get<Booked>(this.key(reference));
    if (!b) return { status: 'not_found', code: '25', detail: 'Unable to locate record.' };
    const s = this.state(b, now);
    const detail = s.status === 'settled' ? 'Approved or completed successfully.' : s.status === 'failed' ? 'The transfer failed; nothing was debited.' : s.status === 'reversed' ? 'Credited, then returned by the payee\u2019s bank: the amount is back with the sender.' : 'Status unknown, please wait for settlement report.';
    return { ...s, detail };
  }

  async statement(org: string, opts: { after?: string; limit: number }, now: number): Promise<{ entries: StatementEntry[]; hasMore: boolean }> {
    const page = await this.indexes.page(this.list(org), { after: opts.after, limit: opts.limit, order: 'asc' });
    const entries: StatementEntry[] = [];
    for (const ref of page.ids) {
      const b = await this.kv.get<Booked>(this.key(ref));
      if (!b) continue;
      entries.push({ reference: b.reference, payout_id: b.payout_id, amount: b.amount, currency: b.currency, bank_code: b.bank_code, account_number: b.account_number, booked_at: b.booked_at, ...this.state(b, now) });
    }
    return { entries, hasMore: page.hasMore };
  }

}

export function sandboxRails(rails: readonly RailPolicy[], kv: KeyValueStore, indexes: IndexStore, opts: SandboxRailOptions): SandboxRail[] {
  return rails.map((p) => new SandboxRail(p, kv, indexes, opts));
}
