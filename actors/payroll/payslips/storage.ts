/** Writing and reading a run's payslips (kept in PayslipBatch actors, batch.ts, in payslip order). */
import type { Caller } from '../../../kernel/index.ts';
import type { ActorSystem } from '../../../runtime/index.ts';
import { batchId, calculationToken, PayslipBatch, PAYSLIPS_PER_BATCH } from './batch.ts';
import { correctionDeltas, type PayslipRecord } from './record.ts';
import { fromColumns, recordAt, toColumns } from './columns.ts';
import { Run, type RunState } from '../runs/run.ts';

/** Writes the records in batches (in parallel) and returns the batch ids in order. */
export async function writeBatches(system: ActorSystem, runId: string, records: readonly PayslipRecord[], caller: Caller): Promise<string[]> {
  const token = calculationToken();
  const ids: string[] = [];
  const writes: Promise<unknown>[] = [];
  const quiet = { ...caller, noReply: true };
  for (let from = 0, k = 0; from < records.length; from += PAYSLIPS_PER_BATCH, k++) {
    const id = batchId(runId, token, k);
    ids.push(id);
    writes.push(system.ask(PayslipBatch, id, 'record', { run_id: runId, columns: toColumns(records.slice(from, from + PAYSLIPS_PER_BATCH), from) }, quiet));
  }
  await Promise.all(writes);
  return ids;
}

const batch = (system: ActorSystem, s: RunState, id: string) => system.state(PayslipBatch, id, s.org);

/** Every payslip of the run's current calculation, in order. */
export async function loadPayslips(system: ActorSystem, s: RunState): Promise<PayslipRecord[]> {
  const parts = await Promise.all(s.batches.map((id) => batch(system, s, id)));
  const out: PayslipRecord[] = [];
  for (const b of parts) if (b.columns) for (const p of fromColumns(b.columns)) out.push(p);
  return out;
}

/** Payslips n in [start, start + limit). */
export async function loadRange(system: ActorSystem, s: RunState, start: number, limit: number): Promise<PayslipRecord[]> {
  const end = Math.min(start + limit, s.totals.payslip_count);
  const out: PayslipRecord[] = [];
  for (let k = Math.floor(start / PAYSLIPS_PER_BATCH); k < s.batches.length && k * PAYSLIPS_PER_BATCH < end; k++) {
    const c = (await batch(system, s, s.batches[k])).columns;
    if (!c) continue;
    for (let i = Math.max(0, start - c.from); i < c.count && c.from + i < end; i++) out.push(recordAt(c, i));
  }
  return out;
}

export async function loadPayslip(system: ActorSystem, s: RunState, n: number): Promise<PayslipRecord | undefined> {
  if (!Number.isSafeInteger(n) || n < 0 || n >= s.totals.payslip_count) return undefined;
  return (await loadRange(system, s, n, 1))[0];
}

/** The corrected run's payslips, for a correction run; [] otherwise. */
export async function correctedPayslips(system: ActorSystem, s: Pick<RunState, 'org' | 'corrects_run_id'>): Promise<PayslipRecord[]> {
  if (!s.corrects_run_id) return [];
  return loadPayslips(system, await system.state(Run, s.corrects_run_id, s.org));
}

/** What the instruction set and payout are built from: the payslips, or a correction's deltas. */
export async function remittanceBasis(system: ActorSystem, s: RunState): Promise<PayslipRecord[]> {
  const own = await loadPayslips(system, s);
  return s.corrects_run_id ? correctionDeltas(own, await correctedPayslips(system, s)) : own;
}
