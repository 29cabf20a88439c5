/**
 * The run actor's transitions (actors/payroll/runs/run.ts table) and its rebuild from snapshot and
 * journal (STYLE: snapshots are a versioned codec), through the actor system.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ActorSystem, ManualClock, roundTrip } from '../../runtime/index.ts';
import { Services, type Platform } from '../../kernel/index.ts';
import { area as accounts } from '../../actors/accounts/index.ts';
import { area as ledger } from '../../actors/ledger/index.ts';
import { approveRun, area as payroll, calculateRun, createRun, executeRun, loadPayslips, Run, runImport, type RunState } from '../../actors/payroll/index.ts';
import { PAYSLIPS_PER_BATCH } from '../../actors/payroll/payslips/batch.ts';
import type { Stores } from '../../stores/index.ts';
import { testStores } from '../../support/stores.ts';

const ORG = 'org_run_actor';
const maker = { org: ORG, livemode: false, principal: 'api_key_maker' };
const checker = { org: ORG, livemode: false, principal: 'api_key_checker' };
// The accounts kinds answer who is behind a credential (maker-checker compares people).
const kinds = [...accounts.kinds, ...ledger.kinds, ...payroll.kinds];

let clock: ManualClock;
let stores: Stores;
let system: ActorSystem;
let platform: Platform;

beforeEach(async () => {
  clock = new ManualClock('2026-01-20T09:00:00Z');
  stores = await testStores(clock);
  system = new ActorSystem({ stores, clock, kinds, log: () => {} });
  await system.start();
  platform = { system, clock, stores, services: new Services(), config: {}, areas: [accounts, ledger, payroll] };
});
afterEach(() => system.stop());

const m = (amount: number) => ({ amount, currency: 'NGN' });
async function importN(n: number) {
  const rows = Array.from({ length: n }, (_, i) => ({
    payee_ref: `p-${String(i).padStart(5, '0')}`, monthly_basic: m(20_000_000 + i), monthly_housing: m(5_000_000), monthly_transport: m(2_000_000), monthly_other_allowances: m(0),
    state_of_residence: i % 2 ? 'NG-LA' : 'NG-FC', nhf_contributing: true, pension_administrator: 'pfa_a', starts_on: '2025-01-01',
  }));
  const r = (await runImport(platform, maker, { format: 'json', rows, employer: { headcount: n, turnover_50m_or_more: false, maker_checker_threshold: 0 } })) as { status: string };
  expect(r.status).toBe('completed');
}

const ask = (id: string, cmd: string, payload: unknown = {}) => system.ask(Run, id, cmd as never, payload as never, { org: ORG, principal: maker.principal });
const status = async (id: string) => (await system.state<RunState>(Run, id, ORG)).status;

describe('payroll run transitions (spec 3 Payroll run)', () => {
  it('each command is refused (409) outside the statuses of the table', async () => {
    await importN(3);
    const { id } = (await createRun(platform, maker, { period: '2026-01', run_type: 'regular' })) as { id: string };
    await expect(ask(id, 'submit')).rejects.toMatchObject({ code: 'conflict' });
    await expect(ask(id, 'approve', { threshold: 1e15 })).rejects.toMatchObject({ code: 'conflict' });
    await expect(ask(id, 'execute', {})).rejects.toMatchObject({ code: 'conflict' });
    await expect(ask(id, 'record_payout_outcome', { outcome: 'settled' })).rejects.toMatchObject({ code: 'conflict' });
    await calculateRun(platform, maker, id);
    expect(await status(id)).toBe('simulated');
    await ask(id, 'update', { description: 'January' });
    expect(await status(id)).toBe('draft');
    expect((await system.state<RunState>(Run, id, ORG)).batches).toEqual([]);
    await calculateRun(platform, maker, id);
    await ask(id, 'submit');
    await expect(ask(id, 'update', { description: 'late' })).rejects.toMatchObject({ code: 'conflict' });
    await expect(calculateRun(platform, maker, id)).rejects.toMatchObject({ code: 'conflict' });
    await approveRun(platform, checker, id);
    expect(await status(id)).toBe('approved');
    await executeRun(platform, maker, id);
    expect(await status(id)).toBe('executing');
    await expect(ask(id, 'cancel')).rejects.toMatchObject({ code: 'conflict' });
    await expect(executeRun(platform, maker, id)).rejects.toMatchObject({ code: 'conflict' });
    await ask(id, 'record_payout_outcome', { outcome: 'settled' });
    expect(await status(id)).toBe('completed');
    await expect(ask(id, 'record_payout_outcome', { outcome: 'failed' })).rejects.toMatchObject({ code: 'conflict' });
  });

  it('a run of more payees than one batch holds is calculated in batches, and rebuilt equal from snapshot or journal', async () => {
    const n = 2 * PAYSLIPS_PER_BATCH + 7;
    await importN(n);
    const { id } = (await createRun(platform, maker, { period: '2026-01', run_type: 'regular' })) as { id: string };
    await calculateRun(platform, maker, id);
    const calculated = await system.state<RunState>(Run, id, ORG);
    expect(calculated.batches).toHaveLength(3);
    const slips = await loadPayslips(system, calculated);
    expect(slips.map((p) => p.n)).toEqual(Array.from({ length: n }, (_, i) => i));
    expect(calculated.totals.gross).toBe(slips.reduce((a, p) => a + p.gross, 0));
    await ask(id, 'submit');
    await approveRun(platform, checker, id);
    await executeRun(platform, maker, id);
    await system.settle();
    const live = await system.state<RunState>(Run, id, ORG);
    expect(live.totals.payslip_count).toBe(n);
    expect(roundTrip(live)).toEqual(live);

    // journal only: a second system on the same stores replays the run's events
    const replayed = new ActorSystem({ stores, clock, kinds, log: () => {} });
    expect(await replayed.state<RunState>(Run, id, ORG)).toEqual(live);

    // snapshot then journal: stop writes snapshots; one more event after it is replayed on top
    await system.stop();
    system = new ActorSystem({ stores, clock, kinds, log: () => {} });
    await system.start();
    await ask(id, 'record_payout_outcome', { outcome: 'partially_settled' });
    await system.flushed(); // answered is decided; on disk once flushed (Journal.ordered)
    const third = new ActorSystem({ stores, clock, kinds, log: () => {} });
    const rebuilt = await third.state<RunState>(Run, id, ORG);
    expect(rebuilt).toEqual(await system.state<RunState>(Run, id, ORG));
    expect(rebuilt.status).toBe('partially_settled');
  });
});

describe('imports', () => {
  it('an import of more rows than one import takes is refused whole, naming the limit (spec 2.1)', async () => {
    const { MAX_IMPORT_ROWS } = await import('../../actors/payroll/index.ts');
    const row = (i: number) => ({ payee_ref: `x-${i}`, monthly_basic: m(10_000_000), state_of_residence: 'NG-LA', starts_on: '2026-01-01' });
    const r = (await runImport(platform, maker, { format: 'json', rows: Array.from({ length: MAX_IMPORT_ROWS + 1 }, (_, i) => row(i)) })) as { status: string; validation: { entries: Array<{ code: string }> } };
    expect(r.status).toBe('rejected');
    expect(r.validation.entries.map((e) => e.code)).toEqual(['too_many_rows']);
  });
});

describe('payslip columns', () => {
  it('a batch journalled in column form reads back as the records that were calculated', async () => {
    const { toColumns, fromColumns } = await import('../../actors/payroll/payslips/columns.ts');
    await importN(5);
    const { id } = (await createRun(platform, maker, { period: '2026-01', run_type: 'regular' })) as { id: string };
    await calculateRun(platform, maker, id);
    const slips = await loadPayslips(system, await system.state<RunState>(Run, id, ORG));
    expect(slips).toHaveLength(5);
    expect(fromColumns(roundTrip(toColumns(slips, 0)))).toEqual(slips);
    expect(slips[3].payee.months_employed).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
  });
});

describe('every payroll and ledger kind rebuilds equal (STYLE: snapshots are a versioned codec)', () => {
  it('pay profile, roster entry, employer, import, payslip batch, posting and chart: live state = journal replay = snapshot restore', async () => {
    const { PayProfile, RosterEntry } = await import('../../actors/payroll/index.ts');
    const { Employer, employerIdFor } = await import('../../actors/payroll/employer.ts');
    const { PayrollImport } = await import('../../actors/payroll/imports/index.ts');
    const { PayslipBatch } = await import('../../actors/payroll/payslips/batch.ts');
    const { Posting } = await import('../../actors/ledger/index.ts');
    const { Chart, chartIdFor } = await import('../../actors/ledger/chart.ts');
    const rows = [0, 1].map((i) => ({ payee_ref: `r-${i}`, monthly_basic: m(30_000_000), state_of_residence: 'NG-LA', pension_administrator: 'pfa', starts_on: '2025-01-01' }));
    const imp = (await runImport(platform, maker, { format: 'json', rows, employer: { headcount: 10, turnover_50m_or_more: true, maker_checker_threshold: 5 } })) as { id: string; rows: Array<{ pay_profile_id: string; roster_entry_id: string }> };
    const [row] = imp.rows;
    await system.ask(PayProfile, row.pay_profile_id, 'update', { monthly_housing: 1_000_000, name: 'Ngozi' }, { org: ORG });
    await system.ask(RosterEntry, row.roster_entry_id, 'update', { ends_on: '2026-06-30' }, { org: ORG });
    const { id } = (await createRun(platform, maker, { period: '2026-01', run_type: 'regular' })) as { id: string };
    await calculateRun(platform, maker, id);
    await ask(id, 'submit');
    await approveRun(platform, checker, id);
    await executeRun(platform, maker, id);
    await system.settle();
    const run = await system.state<RunState>(Run, id, ORG);
    const targets: Array<[any, string]> = [
      [PayProfile, row.pay_profile_id], [RosterEntry, row.roster_entry_id], [Employer, employerIdFor(ORG)], [PayrollImport, imp.id],
      [PayslipBatch, run.batches[0]], [Posting, run.ledger_posting_id!], [Chart, chartIdFor(ORG)],
    ];
    const live = await Promise.all(targets.map(([k, i]) => system.state(k, i, ORG)));
    for (const s of live) expect(roundTrip(s)).toEqual(s);
    const replayed = new ActorSystem({ stores, clock, kinds, log: () => {} });
    expect(await Promise.all(targets.map(([k, i]) => replayed.state(k, i, ORG)))).toEqual(live);
    await system.stop();
    system = new ActorSystem({ stores, clock, kinds, log: () => {} });
    await system.start();
    expect(await Promise.all(targets.map(([k, i]) => system.state(k, i, ORG)))).toEqual(live);
  });
});
