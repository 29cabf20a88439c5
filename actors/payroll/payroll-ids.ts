/**
 * Identifier prefixes of payroll records. The run's is the spec's (2.9); the others are "not
 * shown" and listed in docs/gaps.md#payroll. A payslip is a record inside its run (so a
 * 100,000-payee run is one journal stream, not 100,000), and its id carries the run's random
 * suffix and the payslip's position, so a read finds the run without an index entry per payslip.
 */
import { isIdOf } from '../../kernel/index.ts';

export const RUN_PREFIX = 'run_enterprise_';
export const PAYSLIP_PREFIX = 'payslip_';
export const PAY_PROFILE_PREFIX = 'pay_profile_';
export const ROSTER_ENTRY_PREFIX = 'roster_entry_';
export const FINDING_PREFIX = 'finding_';
export const IMPORT_PREFIX = 'payroll_import_';
export const INSTRUCTION_SET_PREFIX = 'instruction_set_';
export const GL_EXPORT_PREFIX = 'gl_export_';

const SUFFIX = 22;

export function payslipId(runId: string, n: number): string {
  return `${PAYSLIP_PREFIX}${runId.slice(RUN_PREFIX.length)}${n.toString(36)}`;
}

/** The run and position a payslip id names, or undefined for an id that is not a payslip's. */
export function parsePayslipId(id: string): { runId: string; n: number } | undefined {
  if (!isIdOf(id, PAYSLIP_PREFIX)) return undefined;
  const rest = id.slice(PAYSLIP_PREFIX.length);
  if (rest.length <= SUFFIX || !/^[0-9a-z]+$/.test(rest.slice(SUFFIX))) return undefined;
  const n = parseInt(rest.slice(SUFFIX), 36);
  return Number.isSafeInteger(n) ? { runId: RUN_PREFIX + rest.slice(0, SUFFIX), n } : undefined;
}
