/**
 * The ledger accounts of one organisation (spec 2.3). One actor per organisation holds its chart:
 * codes are unique within the organisation because one actor owns them all. The chart is opened
 * with the starting accounts (starting-chart.ts) the first time the organisation's ledger is
 * touched: by its first posting (reaction below) or its first read. Balances are never stored:
 * reads.ts computes them from posting lines when asked.
 *
 * status   command  condition  event                 next
 * -------  -------  ---------  --------------------  ------
 * (none)   open     -          ledger.chart.opened   open
 * open     open     -          (none)                open
 */
import { createHash } from 'node:crypto';
import { defineActor } from '../../runtime/index.ts';
import { assertNever } from '../../kernel/index.ts';
import { STARTING_CHART, type LedgerAccountKind } from './starting-chart.ts';

export const ACCOUNT_PREFIX = 'ledger_account_';

export interface AccountRecord {
  id: string;
  code: string;
  kind: LedgerAccountKind;
  currency: string;
  created_at: number;
}

export interface ChartState {
  org: string;
  livemode: boolean;
  accounts: AccountRecord[];
}

type ChartEvent = { type: 'ledger.chart.opened'; livemode: boolean; accounts: Array<Omit<AccountRecord, 'created_at'>> };

/** The chart actor of an organisation (internal; never shown by the API). */
export const chartIdFor = (org: string): string => `ledger_chart_${createHash('sha256').update(org).digest('hex').slice(0, 32)}`;

export const Chart = defineActor({
  kind: 'ledger_chart',
  prefix: 'ledger_chart_',
  creates: ['open'],
  initial: (_id: string, org: string): ChartState => ({ org, livemode: false, accounts: [] }),
  decide: {
    open(_state: ChartState, cmd: { livemode: boolean }, ctx): ChartEvent[] {
      if (ctx.version > 0) return [];
      return [{
        type: 'ledger.chart.opened',
        livemode: cmd.livemode,
        accounts: STARTING_CHART.map((e) => ({ id: ctx.newId(ACCOUNT_PREFIX), code: e.code, kind: e.kind, currency: e.currency })),
      }];
    },
  },
  evolve(state: ChartState, e: ChartEvent, meta): ChartState {
    switch (e.type) {
      case 'ledger.chart.opened':
        return { ...state, livemode: e.livemode, accounts: e.accounts.map((a) => ({ ...a, created_at: meta.at })).sort((a, b) => (a.code < b.code ? -1 : a.code > b.code ? 1 : 0)) };
      default:
        return assertNever(e.type);
    }
  },
  view: (s: ChartState) => ({ object: 'ledger_chart', accounts: s.accounts }),
  reactions: [
    {
      // A posting opens its organisation's chart, so every account it names exists with an id.
      from: 'ledger_posting',
      events: ['ledger.posting.recorded'],
      command: 'open',
      target: (event) => ({ id: chartIdFor(event.org), payload: { livemode: (event.data as { livemode: boolean }).livemode } }),
    },
  ],
});
