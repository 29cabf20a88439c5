/**
 * The intake part of the remittance area (spec 2.10, 3 "Remittance instruction set", 4.9):
 * instruction sets from runs, the API and CSV imports; validation reports and discrepancies;
 * overrides with published reason codes; accept and reject; totals. The area face folds it in.
 */
export { IngestedInstructionSet, SET_PREFIX, DISCREPANCY_PREFIX, runSetIdOf, setView, type IngestedInstructionSetView, type SetState, type SetStatus } from './instruction-set.ts';
export { RemittanceImport, IMPORT_PREFIX } from './import.ts';
export { acceptedInstructionSet, INTAKE_STEPS, instructionSetsFor } from './instruction-sets.ts';
export { INTAKE, IntakeService, intakeService } from './service.ts';
export { REASON_CODES, type OverrideReasonCode, type DiscrepancyCode } from './reason-codes.ts';
export { CSV_COLUMNS, MAX_CSV_ROWS } from './csv.ts';
export { routes as intakeRoutes } from './routes.ts';
export { events as intakeEvents } from './events.ts';
