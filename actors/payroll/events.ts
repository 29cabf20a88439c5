/**
 * Public event types of the payroll run (spec 6: source `run`). The spec names run.approved and
 * payroll.run.completed, used exactly; the rest are ours in its style (docs/gaps.md#payroll). Each
 * is produced when the run commits the journal event `on`, with the run as it stood after it.
 */
import type { PublicEventDecl } from '../../kernel/index.ts';

const runEvent = (type: string, on: string, description: string, specGap = true): PublicEventDecl => ({ type, source: 'run', schemaVersion: 1, kind: 'payroll_run', on, description, specGap });

export const events: PublicEventDecl[] = [
  runEvent('run.created', 'run.created', 'A draft run was created and its rule pack pinned.'),
  runEvent('run.updated', 'run.updated', 'A draft or simulated run was changed and returned to draft.'),
  runEvent('run.calculated', 'run.calculated', 'The run\'s payslips were calculated (status simulated); findings raised.'),
  runEvent('run.submitted', 'run.submitted', 'The run was submitted for approval.'),
  runEvent('run.approved', 'run.approved', 'The run was approved.', false),
  runEvent('run.finding.resolved', 'run.finding.resolved', 'A finding of the run was resolved.'),
  runEvent('run.executing', 'run.executing', 'The run executed: payslips final, ledger posting caused, instruction set built, payout instruction signed.'),
  runEvent('payroll.run.completed', 'run.completed', 'Every payout of the run settled.', false),
  runEvent('run.partially_settled', 'run.partially_settled', 'Some payouts of the run settled, others failed.'),
  runEvent('run.failed', 'run.failed', 'The payouts of the run failed.'),
  runEvent('run.payslip.issued', 'run.payslip.issued', 'A payslip was issued to its payee.'),
  runEvent('run.cancelled', 'run.cancelled', 'The run was cancelled.'),
];
