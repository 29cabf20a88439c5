/**
 * Public face of the payroll area (spec 2.9, 3 Payroll run, 4.8). Other areas import only this:
 * the actor kinds, the run's command for payout outcomes, and the signed payout instruction with
 * its verification (spec 1 rule 10). The bench drives a run in process through the operations
 * the routes call, and times the bare engine beside them.
 */
import type { Area, PublicEventDecl } from '../../kernel/index.ts';
import { Employer } from './employer.ts';
import { PayrollImport } from './imports/index.ts';
import { PayProfile } from './pay-profile.ts';
import { PayslipBatch } from './payslips/batch.ts';
import { RosterEntry } from './roster-entry.ts';
import { routes } from './routes.ts';
import { Run } from './runs/run.ts';

export { Run, type RunState, type RunStatus, type RunType, type PayoutOutcome } from './runs/run.ts';
export { PayProfile } from './pay-profile.ts';
export { RosterEntry } from './roster-entry.ts';
export { authorityIdFor, type InstructionSetData } from './runs/instruction-set.ts';
export { REMITTANCE_DIRECTORY, type RemittanceDirectory, type RemittanceLevy } from './runs/remittance-directory.ts';
export {
  payoutDocument, payoutInstructionFor, publicKey, signedInstruction, signingKey, verifyPayoutInstruction, realmOf,
  type PublicKeyRecord, type Realm, type SignedPayoutInstruction, type Verification,
} from './runs/payout-instruction.ts';
export { parsePayslipId, payslipId } from './payroll-ids.ts';

// Operations (what the routes call), for the bench.
export { MAX_IMPORT_ROWS, runImport, type ImportBody } from './imports/index.ts';
export { approveRun, calculateRun, createRun, executeRun, runState, simulateRun, type CreateRunBody } from './runs/runs.ts';
export { loadPayslips, remittanceBasis } from './payslips/storage.ts';
export type { PayslipRecord } from './payslips/record.ts';
export { computePayslip, findPack, LINE_ORDER } from './engine/index.ts';
// The organisation's maker-checker threshold (spec 8), which remittance approval applies as well.
export { employerSettings } from './runs/gather.ts';

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

export const area: Area = {
  name: 'payroll',
  kinds: [Run, PayslipBatch, PayProfile, RosterEntry, PayrollImport, Employer],
  routes,
  events,
};
