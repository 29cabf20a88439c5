/**
 * Ledger posting. Spec 1 (rules 4, 5), 2.3, 4.2.
 *
 * A posting exists only because another area's committed event asked for one: any journal event
 * that carries a `ledger_posting` field (a PostingRequest) is posted by the reaction below, with an
 * id derived from the causing event's id, so the at-least-once reaction posts it exactly once.
 * Nothing is edited: a correction is a new posting whose reverses_id names the one it corrects.
 *
 * status     command  condition                                                event                    next
 * ---------  -------  -------------------------------------------------------  -----------------------  --------
 * (none)     record   >= 2 lines; each names a chart account of the currency;   ledger.posting.recorded  recorded
 *                     debit and credit >= 0 integers, exactly one positive;
 *                     debits == credits
 * recorded   record   -                                                        (none: already posted)   recorded
 */
import { defineActor, iso, type Reaction, sortKeyTime } from '../../runtime/index.ts';
import { ApiError, assertNever, derivedId, errorEntry, recordView, type ValidationEntry, validationError } from '../../kernel/index.ts';
import { chartEntry } from './starting-chart.ts';

export const POSTING_PREFIX = 'ledger_posting_';

/** What an area puts in an event's `ledger_posting` field to cause a posting. */
export interface PostingRequest {
  currency: string;
  /** Two or more lines; debit and credit are non-negative kobo, exactly one of them positive. */
  lines: Array<{ account_code: string; debit: number; credit: number }>;
  /** Plain words: what caused it. */
  memo: string;
  livemode: boolean;
  /** The posting this one reverses (spec 1 rule 4). */
  reverses_id?: string | null;
}

export interface PostingLine {
  account_code: string;
  debit: number;
  credit: number;
}

export interface PostingState {
  id: string;
  org: string;
  livemode: boolean;
  currency: string;
  lines: PostingLine[];
  memo: string;
  reverses_id: string | null;
  source: { kind: string; id: string; event_id: string } | null;
  created_at: number;
}

interface RecordCommand {
  request: PostingRequest;
  source: { kind: string; id: string; event_id: string };
}

type PostingEvent = {
  type: 'ledger.posting.recorded';
  livemode: boolean;
  currency: string;
  lines: PostingLine[];
  memo: string;
  reverses_id: string | null;
  source: { kind: string; id: string; event_id: string };
};

/** The posting id an event causes: stable, so a redelivered reaction finds the same posting. */
export function postingIdFor(eventId: string): string {
  return derivedId(POSTING_PREFIX, ['ledger_posting:', eventId], 'modulo');
}

/** Every rule of a posting, each failure named (STYLE: validation names every failing field). */
export function checkPosting(req: PostingRequest): ValidationEntry[] {
  const out: ValidationEntry[] = [];
  const bad = (field: string, code: string, detail: string) => out.push(errorEntry(field, code, detail, out.length + 1));
  if (!Array.isArray(req.lines) || req.lines.length < 2) {
    bad('/lines', 'too_few_lines', 'A posting has two or more lines.');
    return out;
  }
  let debits = 0;
  let credits = 0;
  req.lines.forEach((l, i) => {
    const acct = chartEntry(l.account_code);
    if (!acct) bad(`/lines/${i}/account_code`, 'unknown_account', `No ledger account with code ${l.account_code}.`);
    else if (acct.currency !== req.currency) bad(`/lines/${i}/account_code`, 'currency_mismatch', `Account ${l.account_code} is in ${acct.currency}, the posting in ${req.currency}.`);
    for (const side of ['debit', 'credit'] as const) {
      if (!Number.isSafeInteger(l[side]) || l[side] < 0) bad(`/lines/${i}/${side}`, Number.isInteger(l[side]) ? 'out_of_range' : 'invalid_money_amount', `${side} must be a non-negative whole number of minor units.`);
    }
    if ((l.debit > 0) === (l.credit > 0)) bad(`/lines/${i}`, 'one_side', 'Exactly one of debit and credit is positive; the direction carries the sign.');
    debits += l.debit;
    credits += l.credit;
  });
  if (out.length === 0 && debits !== credits) bad('/lines', 'unbalanced', `Lines sum to ${debits - credits}, not zero (debits ${debits}, credits ${credits}).`);
  return out;
}

export const Posting = defineActor({
  kind: 'ledger_posting',
  prefix: POSTING_PREFIX,
  creates: ['record'],
  initial: (id: string, org: string): PostingState => ({
    id, org, livemode: false, currency: 'NGN', lines: [], memo: '', reverses_id: null, source: null, created_at: 0,
  }),
  decide: {
    record(state: PostingState, cmd: RecordCommand, ctx): PostingEvent[] {
      if (ctx.version > 0) return []; // already posted: a redelivered reaction has no second effect
      const problems = checkPosting(cmd.request);
      if (problems.length) throw validationError(problems, cmd.request.lines?.length ?? 0);
      if (cmd.request.reverses_id != null && !cmd.request.reverses_id.startsWith(POSTING_PREFIX)) {
        throw new ApiError('validation_failed', 'reverses_id must name a ledger posting.');
      }
      return [{
        type: 'ledger.posting.recorded',
        livemode: cmd.request.livemode,
        currency: cmd.request.currency,
        lines: cmd.request.lines.map((l) => ({ account_code: l.account_code, debit: l.debit, credit: l.credit })),
        memo: cmd.request.memo,
        reverses_id: cmd.request.reverses_id ?? null,
        source: cmd.source,
      }];
    },
  },
  evolve(state: PostingState, e: PostingEvent, meta): PostingState {
    switch (e.type) {
      case 'ledger.posting.recorded':
        return { ...state, livemode: e.livemode, currency: e.currency, lines: e.lines, memo: e.memo, reverses_id: e.reverses_id, source: e.source, created_at: meta.at };
      default:
        return assertNever(e.type);
    }
  },
  view: (s: PostingState) => postingView(s),
  indexes: (s: PostingState) => [{ list: 'all', sortKey: sortKeyTime(s.created_at) }],
  reactions: [postingReaction()],
});

function postingReaction(): Reaction {
  return {
    from: '*',
    events: '*',
    command: 'record',
    target(event, source) {
      const data = event.data as { ledger_posting?: PostingRequest } | null;
      if (!data || typeof data !== 'object' || !data.ledger_posting) return undefined;
      const payload: RecordCommand = { request: data.ledger_posting, source: { kind: source.kind, id: source.id, event_id: event.id } };
      return { id: postingIdFor(event.id), payload };
    },
  };
}

export function postingView(s: PostingState) {
  return recordView('ledger_posting', s.id, s.livemode, false, {
    lines: s.lines.map((l) => ({
      account_code: l.account_code,
      debit: { amount: l.debit, currency: s.currency },
      credit: { amount: l.credit, currency: s.currency },
    })),
    reverses_id: s.reverses_id,
    memo: s.memo,
    source: s.source,
    created_at: iso(s.created_at),
  });
}
