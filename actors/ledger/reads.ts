/**
 * Ledger reads (spec 4.2). Balances are computed from posting lines when asked, never stored
 * (spec 2.3): debits positive, credits negative, zero for an account never posted to.
 */
import { type ActorSystem, iso } from '../../runtime/index.ts';
import { recordView } from '../../kernel/index.ts';
import { Chart, chartIdFor, type ChartState } from './chart.ts';
import { Posting, type PostingState } from './posting.ts';

const PAGE = 100;

/** The organisation's chart, opened with the starting accounts on first touch. */
export async function chartOf(system: ActorSystem, org: string, livemode: boolean): Promise<ChartState> {
  await system.ask(Chart, chartIdFor(org), 'open', { livemode }, { org, dedupeId: 'open', lane: 'system' });
  return system.state(Chart, chartIdFor(org), org);
}

/** Every posting of the organisation, newest first (raw states). */
export async function* allPostings(system: ActorSystem, org: string): AsyncGenerator<PostingState> {
  for await (const ids of system.eachIds(Posting, org, 'all', 'desc', PAGE)) {
    for (const id of ids) yield await system.state(Posting, id, org);
  }
}

/** Balance per account code, from every line of every posting. */
export async function balancesByCode(system: ActorSystem, org: string): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for await (const p of allPostings(system, org)) {
    for (const l of p.lines) out.set(l.account_code, (out.get(l.account_code) ?? 0) + l.debit - l.credit);
  }
  return out;
}

export async function accountViews(system: ActorSystem, org: string, livemode: boolean) {
  const chart = await chartOf(system, org, livemode);
  const balances = await balancesByCode(system, org);
  return chart.accounts.map((a) => (recordView('ledger_account', a.id, chart.livemode, false, {
    code: a.code,
    kind: a.kind,
    currency: a.currency,
    balance: { amount: balances.get(a.code) ?? 0, currency: a.currency },
    created_at: iso(a.created_at),
  })));
}
