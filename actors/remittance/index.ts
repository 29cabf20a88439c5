/**
 * The remittance module's face (spec 1, 2.10, 3 "Remittance instruction set", 4.9, 6, 8): the
 * area, folded from its parts (authorities, the calendar and obligations; intake of instruction
 * sets; and the remit part: remittances, legs, receipts, returns), and what other areas, the bench
 * and the parts themselves may use.
 */
import type { Area } from '../../kernel/index.ts';
import { REMITTANCE_DIRECTORY } from '../payroll/index.ts';
import { authorityRoutes, Obligation, remittanceDirectory } from './authorities/index.ts';
import { INTAKE, INTAKE_STEPS, IngestedInstructionSet, intakeEvents, IntakeService, intakeRoutes, RemittanceImport } from './intake/index.ts';
import { remitPart } from './remit/index.ts';

export {
  AUTHORITIES, AUTHORITY_KINDS, AUTHORITY_PREFIX, LEVIES, LEVY_CODES, authorities, authorityById, authorityIdOf, levyAuthority, payeAuthorityFor, pensionAdministrator,
  CALENDAR, calendarEntryId, dueDateOf, obligationIdOf, obligationRemitted, obligationsFor,
  type Authority, type AuthorityKind, type CollectionAccount, type DueDate, type Levy, type LevyCode, type ObligationView,
} from './authorities/index.ts';
export { acceptedInstructionSet, instructionSetsFor, runSetIdOf, type IngestedInstructionSetView } from './intake/index.ts';
export const INSTRUCTION_SET_KIND = IngestedInstructionSet.kind;
export const OBLIGATION_KIND = Obligation.kind;

export const area: Area = {
  name: 'remittance',
  kinds: [IngestedInstructionSet, RemittanceImport, Obligation, ...remitPart.kinds],
  routes: [...intakeRoutes, ...authorityRoutes, ...remitPart.routes],
  events: [...intakeEvents, ...remitPart.events],
  async start(platform) {
    platform.services.provide(REMITTANCE_DIRECTORY, remittanceDirectory);
    const svc = new IntakeService(platform, INTAKE_STEPS);
    platform.services.provide(INTAKE, svc);
    svc.start();
    await remitPart.start?.(platform);
  },
  async stop(platform) {
    await remitPart.stop?.(platform);
    platform.services.get(INTAKE)?.stop();
    platform.services.remove(INTAKE);
    platform.services.remove(REMITTANCE_DIRECTORY);
  },
};
