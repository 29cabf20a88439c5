/**
 * The remittance area's answer to payroll's RemittanceDirectory port: PAYE authorities and due
 * dates from this area's versioned data, so payroll's InstructionSet names every State and the FCT
 * as remittance does, with the same due dates (one source).
 */
import type { RemittanceDirectory } from '../../payroll/index.ts';
import { AUTHORITIES, payeAuthorityFor } from './authorities.ts';
import { dueDateOf, isDate } from './calendar.ts';

export const remittanceDirectory: RemittanceDirectory = {
  version: AUTHORITIES.version,
  payeAuthority(state) {
    const a = payeAuthorityFor(state);
    return a && { id: a.id, name: a.name };
  },
  dueDate: (levy, payDate) => (isDate(payDate) ? dueDateOf(levy, payDate).due_date : null),
};
