/**
 * The employer settings operation the routes call (spec 8 "configured per organisation";
 * docs/gaps.md#payroll): PATCH /v1/payroll/employer_settings takes the threshold as Money in NGN and
 * the employer keeps it in kobo, checked as the actor checks it, so a bad field is refused before
 * anything is asked.
 */
import { type Caller, fieldError, type Platform } from '../../kernel/index.ts';
import { checkEmployer, Employer, employerIdFor, type EmployerPatch } from './employer.ts';
import { refuse } from './refuse.ts';

export type EmployerBody = Record<string, unknown> & { maker_checker_threshold?: { amount: number; currency: string } };

export async function configureEmployer(p: Platform, c: Caller, body: EmployerBody): Promise<unknown> {
  const patch: EmployerPatch & { livemode: boolean } = { ...(body as EmployerPatch), livemode: c.livemode };
  if (body.maker_checker_threshold !== undefined) {
    if (body.maker_checker_threshold.currency !== 'NGN') throw fieldError('/maker_checker_threshold/currency', 'unsupported_currency', 'maker_checker_threshold must be in NGN.');
    patch.maker_checker_threshold = body.maker_checker_threshold.amount;
  }
  const bad = checkEmployer(patch, 1, '');
  if (bad.length) refuse(bad);
  return p.system.ask(Employer, employerIdFor(c.org), 'configure', patch, c);
}
