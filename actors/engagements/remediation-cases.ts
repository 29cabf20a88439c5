/**
 * The remediation case operations the routes call (spec 4.5 POST /v1/rail/remediation_cases/{id}/
 * resolve): a person resolves a case once, with a note; the rule lives in remediation-case.ts.
 */
import type { Caller, Platform } from '../../kernel/index.ts';
import { RemediationCase } from './remediation-case.ts';

export function resolveCase(p: Platform, c: Caller, caseId: string, body: { note: string }) {
  return p.system.ask(RemediationCase, caseId, 'resolve', body, c);
}
