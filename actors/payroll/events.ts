/**
 * Public event types of the payroll run (spec 6: source `run`). The spec names run.approved and
 * payroll.run.completed, used exactly; the rest are ours in its style (docs/gaps.md#payroll). Each
 * is produced when the run commits the journal event `on`, with the run as it stood after it.
 */
import { publicEvents, type PublicEventDecl } from '../../kernel/index.ts';

const run = publicEvents('run', 'payroll_run');

export const events: PublicEventDecl[] = [
  run('run.created', 'run.created', 'A draft run was created and its rule pack pinned.'),
  run('run.updated', 'run.updated', 'A draft or simulated run was changed and returned to draft.'),
  run('run.calculated', 'run.calculated', 'The run\'s payslips were calculated (status simulated); findings raised.'),
  run('run.submitted', 'run.submitted', 'The run was submitted for approval.'),
  run('run.approved', 'run.approved', 'The run was approved.', false),
  run('run.finding.resolved', 'run.finding.resolved', 'A finding of the run was resolved.'),
  run('run.executing', 'run.executing', 'The run executed: payslips final, ledger posting caused, instruction set built, payout instruction signed.'),
  run('payroll.run.completed', 'run.completed', 'Every payout of the run settled.', false),
  run('run.partially_settled', 'run.partially_settled', 'Some payouts of the run settled, others failed.'),
  run('run.failed', 'run.failed', 'The payouts of the run failed.'),
  run('run.payslip.issued', 'run.payslip.issued', 'A payslip was issued to its payee.'),
  run('run.cancelled', 'run.cancelled', 'The run was cancelled.'),
];
