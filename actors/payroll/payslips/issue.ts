/** Issuing a final payslip to its payee (spec 4.8 POST /v1/payroll/payslips/{payslip_id}/issue): recorded on its run. */
import { notFound, type Caller, type Platform } from '../../../kernel/index.ts';
import { parsePayslipId } from '../payroll-ids.ts';
import { Run } from '../runs/run.ts';
import { getPayslip } from './reads.ts';

export async function issuePayslip(p: Platform, c: Caller, id: string) {
  const at = parsePayslipId(id);
  if (!at) throw notFound('payslip', id);
  await p.system.ask(Run, at.runId, 'issue_payslip', { n: at.n }, c);
  return getPayslip(p, c, id);
}
