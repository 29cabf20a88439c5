/**
 * Public face of the payroll area (spec 2.9, 3 Payroll run, 4.8). Other areas import only this:
 * the actor kinds, the run's command for payout outcomes, and the signed payout instruction with
 * its verification (spec 1 rule 10). The bench drives a run in process through the operations
 * the routes call, and times the bare engine beside them.
 */
import type { Area } from '../../kernel/index.ts';
import { Employer } from './employer.ts';
import { events } from './events.ts';
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
  payoutDocument, payoutInstructionFor, payrollPublicKey, payrollSigningKey, signedInstruction, verifyPayoutInstruction, realmOf,
  type PublicKeyRecord, type Realm, type SignedPayoutInstruction, type Verification,
} from './runs/payout-instruction.ts';
export { parsePayslipId, payslipId } from './payroll-ids.ts';

// Operations (what the routes call), for the bench.
export { MAX_IMPORT_ROWS, runImport, type ImportBody } from './imports/index.ts';
export { RUN_PAYOUT_WAIT, type RunPayoutWait } from './runs/run-records.ts';
export { approveRun, calculateRun, createRun, executeRun, runState, simulateRun, type CreateRunBody } from './runs/runs.ts';
export { loadPayslips, remittanceBasis } from './payslips/storage.ts';
export type { PayslipRecord } from './payslips/record.ts';
export { computePayslip, findPack, LINE_ORDER } from './engine/index.ts';
// The organisation's maker-checker threshold (spec 8), which remittance approval applies as well.
export { employerSettings } from './runs/gather.ts';

export const area: Area = {
  name: 'payroll',
  kinds: [Run, PayslipBatch, PayProfile, RosterEntry, PayrollImport, Employer],
  routes,
  events,
};
