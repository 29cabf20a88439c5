/**
 * A batch of a run's calculated payslips (internal record, never listed). A calculation writes its
 * payslips in batches of PAYSLIPS_PER_BATCH, each one journal stream with one event, then the run
 * records the batch ids in a single event. So a 100,000-payee run is 200 small streams rather than
 * 100,000, and no journal message grows past what a JetStream message may carry (one append is
 * one message in cluster mode). A batch never changes after it is written.
 *
 * status   command  condition  event                       next
 * -------  -------  ---------  --------------------------  --------
 * (none)   record   -          payslip_batch.recorded      recorded
 * recorded record   -          (none: already written)     recorded
 */
import { defineActor } from '../../../runtime/index.ts';
import { assertNever, randomSuffix } from '../../../kernel/index.ts';
import { RUN_PREFIX } from '../payroll-ids.ts';
import type { PayslipColumns } from './columns.ts';

/** Payslips per batch: a batch's event stays well under JetStream's 1 MB message limit. */
export const PAYSLIPS_PER_BATCH = 500;

export interface BatchState {
  run_id: string;
  columns: PayslipColumns | null;
}

type Event = { type: 'payslip_batch.recorded'; run_id: string; columns: PayslipColumns };

/** Batch ids of one calculation: the run's suffix, a random calculation token, the batch number. */
export const calculationToken = () => randomSuffix(8);
export const batchId = (runId: string, token: string, k: number) => `payslip_batch_${runId.slice(RUN_PREFIX.length)}_${token}_${k}`;

export const PayslipBatch = defineActor({
  kind: 'payslip_batch',
  prefix: 'payslip_batch_',
  creates: ['record'],
  initial: (): BatchState => ({ run_id: '', columns: null }),
  decide: {
    record(_s: BatchState, cmd: { run_id: string; columns: PayslipColumns }, ctx): Event[] {
      if (ctx.version > 0) return [];
      return [{ type: 'payslip_batch.recorded', run_id: cmd.run_id, columns: cmd.columns }];
    },
  },
  evolve(_s: BatchState, e: Event): BatchState {
    switch (e.type) {
      case 'payslip_batch.recorded':
        return { run_id: e.run_id, columns: e.columns };
      default:
        return assertNever(e.type);
    }
  },
  view: (s: BatchState) => ({ object: 'payslip_batch', run_id: s.run_id, from: s.columns?.from ?? 0, count: s.columns?.count ?? 0 }),
});
