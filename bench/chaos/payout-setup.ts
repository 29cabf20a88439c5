/**
 * The payout scenario's set-up through the public API, as test/cluster/payouts-failover.test.ts
 * makes it: LINES payees imported (250 rows a request: a payroll import is not resumable, so a
 * retried request must be small), a live passport each (the fixture area of
 * support/chaos/payouts-node-main.ts), a payroll run calculated, approved and executed, and its
 * signed instruction planned by the run link, waiting for funds. Every POST is keyed and retried on
 * another node after a 5xx.
 */
import { nuban } from '../../actors/payouts/index.ts';
import type { Proc } from '../../support/chaos/index.ts';
import { ask, sleep } from './client.ts';

export const LINES = Number(process.env.BENCH_CHAOS_PAYOUT_LINES ?? 10_000);

const m = (amount: number) => ({ amount, currency: 'NGN' });
/** Payee i's account: 2% refused by the instant rail (serial ending 91: failover to the batch rail), the rest settle. */
const accountOf = (i: number) => ({ bank_code: '058', account_number: nuban('058', `${String(i).padStart(7, '0')}${i % 50 === 7 ? '91' : '10'}`) });
const payeeRow = (i: number) => ({
  payee_ref: `p${i}`, monthly_basic: m(30_000_000 + (i % 97) * 10_000), monthly_housing: m(5_000_000), monthly_transport: m(2_000_000), monthly_other_allowances: m(0),
  state_of_residence: 'NG-LA', nhf_contributing: false, pension_administrator: 'pfa_a', bank_identifier: `b${i}`, starts_on: '2025-01-01', ends_on: null,
  bank_account: accountOf(i),
});

let seq = 0;
async function post(procs: readonly Proc[], apiKey: string, path: string, body: unknown, want: number): Promise<any> {
  const r = await ask(procs, apiKey, 'POST', path, body, `payout-setup-${process.pid}-${++seq}`);
  if (r.status !== want) throw new Error(`POST ${path}: ${r.status} ${JSON.stringify(r.body).slice(0, 400)}`);
  return r.body;
}

export async function waitFor<T>(what: string, f: () => Promise<T | undefined>, limitMs: number, everyMs = 200): Promise<T> {
  const t = performance.now();
  for (;;) {
    const v = await f();
    if (v !== undefined) return v;
    if (performance.now() - t > limitMs) throw new Error(`${what}: not within ${limitMs / 1000} s`);
    await sleep(everyMs);
  }
}

/** Everything up to a planned, funded instruction; its id and total. */
export async function plannedInstruction(procs: readonly Proc[], apiKey: string): Promise<{ id: string; runId: string; total: { amount: number; currency: string } }> {
  const starts = Array.from({ length: Math.ceil(LINES / 250) }, (_, k) => k * 250);
  const importer = async () => {
    for (let from = starts.shift(); from !== undefined; from = starts.shift()) {
      const rows = Array.from({ length: Math.min(250, LINES - from) }, (_, k) => payeeRow(from + k));
      const b = await post(procs, apiKey, '/v1/payroll/imports', { format: 'json', rows, employer: { headcount: LINES, turnover_50m_or_more: true, maker_checker_threshold: m(1e15) } }, 201);
      if (b.status !== 'completed') throw new Error(`import not completed: ${JSON.stringify(b.validation).slice(0, 400)}`);
    }
  };
  await Promise.all([importer(), importer(), importer(), importer()]);
  await Promise.all(Array.from({ length: Math.ceil(LINES / 1_000) }, (_, n) => {
    const from = n * 1_000;
    return post(procs, apiKey, '/v1/test_payouts/passports', { payee_refs: Array.from({ length: Math.min(1_000, LINES - from) }, (_, k) => `p${from + k}`) }, 200);
  }));
  const runId = (await post(procs, apiKey, '/v1/payroll/runs', { period: '2026-01', run_type: 'regular' }, 201)).id as string;
  for (const step of ['calculate', 'submit', 'approve', 'execute']) await post(procs, apiKey, `/v1/payroll/runs/${runId}/${step}`, {}, 200);
  // Executing the run submits its signed instruction by reaction.
  const instr = await waitFor('the run\u2019s instruction', async () => (await ask(procs, apiKey, 'GET', `/v1/payouts/instructions?run_id=${runId}`)).body.data?.[0], 120_000);
  // The run link plans it too; unfunded, it waits in funding_pending (docs/gaps.md#payouts "Paid by reaction").
  if (instr.line_count !== LINES) throw new Error(`instruction ${instr.status} with ${instr.line_count} lines`);
  const planned = await waitFor('the run\u2019s instruction planned', async () => {
    const b = (await ask(procs, apiKey, 'GET', `/v1/payouts/instructions/${instr.id}`)).body;
    return b.status === 'funding_pending' || b.status === 'planned' ? b : undefined;
  }, 120_000);
  if (planned.route_plan_id === null) throw new Error(`instruction ${planned.status} without a plan`);
  return { id: instr.id, runId, total: instr.total as { amount: number; currency: string } };
}
