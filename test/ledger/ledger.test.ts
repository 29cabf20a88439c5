import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { assertNever } from '../../kernel/index.ts';
import { ActorSystem, ManualClock, defineActor } from '../../runtime/index.ts';
import { area as ledger, balancesByCode, accountViews, checkPosting, postingIdFor, Posting, type PostingRequest } from '../../actors/ledger/index.ts';
import { testStores } from '../../support/stores.ts';

/** A stand-in area kind whose event carries a posting request, as payroll's execute does. */
const Source = defineActor({
  kind: 'ledger_test_source',
  prefix: 'ledger_test_source_',
  creates: ['cause'],
  initial: () => ({ n: 0 }),
  decide: {
    cause: (_s: { n: number }, cmd: { posting: PostingRequest }) => [{ type: 'source.caused' as const, ledger_posting: cmd.posting }],
  },
  evolve(s: { n: number }, e: { type: 'source.caused' }) {
    switch (e.type) {
      case 'source.caused':
        return { n: s.n + 1 };
      default:
        return assertNever(e.type);
    }
  },
  view: (s: { n: number }) => s,
});

const ORG = 'org_ledgertest';
const req = (lines: PostingRequest['lines']): PostingRequest => ({ currency: 'NGN', lines, memo: 'test', livemode: false });

let system: ActorSystem;
beforeEach(async () => {
  const clock = new ManualClock();
  system = new ActorSystem({ stores: await testStores(clock), clock, kinds: [...ledger.kinds, Source] });
  await system.start();
});
afterEach(() => system.stop());

describe('ledger', () => {
  it('a posting exists because an area event caused it, once, with an id derived from the event (spec 1 rule 5, 2.3)', async () => {
    await system.ask(Source, 'ledger_test_source_a', 'cause', { posting: req([
      { account_code: 'expense.salaries', debit: 1000, credit: 0 },
      { account_code: 'liability.net_pay', debit: 0, credit: 1000 },
    ]) }, { org: ORG });
    await system.settle();
    const page = await system.list(Posting, ORG, 'all', { limit: 10, order: 'desc' });
    expect(page.data).toHaveLength(1);
    const p = page.data[0] as { id: string; lines: unknown[]; source: { kind: string; id: string; event_id: string } };
    expect(p.id).toBe(postingIdFor(p.source.event_id));
    expect(p.lines).toEqual([
      { account_code: 'expense.salaries', debit: { amount: 1000, currency: 'NGN' }, credit: { amount: 0, currency: 'NGN' } },
      { account_code: 'liability.net_pay', debit: { amount: 0, currency: 'NGN' }, credit: { amount: 1000, currency: 'NGN' } },
    ]);
    // a redelivered reaction has no second effect
    await system.ask(Posting, p.id, 'record', { request: req([{ account_code: 'asset.bank', debit: 5, credit: 0 }, { account_code: 'liability.net_pay', debit: 0, credit: 5 }]), source: p.source }, { org: ORG });
    expect((await system.get(Posting, p.id, ORG) as { lines: unknown[] }).lines).toEqual(p.lines);
  });

  it('balances are computed from lines, debits positive and credits negative, zero for an account never posted to (spec 2.3)', async () => {
    for (const amount of [1000, 250]) {
      await system.ask(Source, `ledger_test_source_${amount}`, 'cause', { posting: req([
        { account_code: 'expense.salaries', debit: amount, credit: 0 },
        { account_code: 'liability.net_pay', debit: 0, credit: amount },
      ]) }, { org: ORG });
    }
    await system.settle();
    const accounts = await accountViews(system, ORG, false);
    const byCode = Object.fromEntries(accounts.map((a) => [a.code, a.balance.amount]));
    expect(byCode['expense.salaries']).toBe(1250);
    expect(byCode['liability.net_pay']).toBe(-1250);
    expect(byCode['asset.bank']).toBe(0);
    expect(accounts.map((a) => a.code)).toEqual([...accounts.map((a) => a.code)].sort());
    expect(new Set(accounts.map((a) => a.kind))).toEqual(new Set(['asset', 'expense', 'liability']));
    let total = 0;
    for (const v of (await balancesByCode(system, ORG)).values()) total += v;
    expect(total).toBe(0);
  });

  it('a posting whose lines do not sum to zero, name an unknown account or carry both sides is refused (spec 2.3)', () => {
    expect(checkPosting(req([{ account_code: 'expense.salaries', debit: 10, credit: 0 }])).map((e) => e.code)).toEqual(['too_few_lines']);
    expect(checkPosting(req([
      { account_code: 'expense.salaries', debit: 10, credit: 0 },
      { account_code: 'liability.net_pay', debit: 0, credit: 9 },
    ])).map((e) => e.code)).toEqual(['unbalanced']);
    expect(checkPosting(req([
      { account_code: 'revenue.sales', debit: 10, credit: 10 },
      { account_code: 'liability.net_pay', debit: 0, credit: 0.5 },
    ])).map((e) => e.code)).toEqual(['unknown_account', 'one_side', 'invalid_money_amount']);
  });

  it('a refused posting request records nothing (spec 2.3)', async () => {
    await system.ask(Source, 'ledger_test_source_bad', 'cause', { posting: req([
      { account_code: 'expense.salaries', debit: 10, credit: 0 },
      { account_code: 'liability.net_pay', debit: 0, credit: 9 },
    ]) }, { org: ORG });
    await system.settle();
    expect((await system.list(Posting, ORG, 'all', { limit: 10, order: 'desc' })).data).toHaveLength(0);
  });
});
