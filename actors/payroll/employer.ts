/**
 * The organisation's payroll settings: the employer facts the engine needs (headcount, turnover
 * band) and the maker-checker threshold (spec 8: "configured per organisation"). The spec shows no
 * endpoint for them; they travel in the `employer` block of an import (docs/gaps.md#payroll).
 * Internal record: one per organisation, never listed.
 *
 * status   command    condition                         event                          next
 * -------  ---------  --------------------------------  -----------------------------  ----------
 * (none)   configure  headcount integer >= 0;            payroll.employer.configured    configured
 *                     threshold whole kobo >= 0
 * configured configure same                             payroll.employer.configured    configured
 */
import { createHash } from 'node:crypto';
import { defineActor } from '../../runtime/index.ts';
import { assertNever, type ValidationEntry } from '../../kernel/index.ts';
import { refuse } from './refuse.ts';

export interface EmployerSettings {
  /** Staff count for the PRA pension and ITF thresholds; null means "count the run's payees". */
  headcount: number | null;
  turnover_50m_or_more: boolean;
  /** Runs whose gross is above this (kobo) need an approver other than the preparer. */
  maker_checker_threshold: number;
}

export interface EmployerState extends EmployerSettings {
  org: string;
}

type Event = { type: 'payroll.employer.configured' } & Partial<EmployerSettings>;

export const employerIdFor = (org: string) => `payroll_employer_${createHash('sha256').update(org).digest('hex').slice(0, 32)}`;

export function checkEmployer(e: Partial<EmployerSettings>, index = 1, prefix = '/employer'): ValidationEntry[] {
  const out: ValidationEntry[] = [];
  if (e.headcount !== undefined && e.headcount !== null && (!Number.isSafeInteger(e.headcount) || e.headcount < 0)) {
    out.push({ index, severity: 'error', code: 'invalid_headcount', detail: 'headcount must be a whole number >= 0.', field: `${prefix}/headcount` });
  }
  const t = e.maker_checker_threshold;
  if (t !== undefined && (typeof t !== 'number' || !Number.isSafeInteger(t) || t < 0)) {
    out.push({
      index, severity: 'error',
      code: typeof t === 'number' && Number.isFinite(t) && !Number.isInteger(t) ? 'invalid_money_amount' : 'value_out_of_range',
      detail: 'maker_checker_threshold must be a whole number of kobo >= 0.', field: `${prefix}/maker_checker_threshold`,
    });
  }
  return out;
}

export const Employer = defineActor({
  kind: 'payroll_employer',
  prefix: 'payroll_employer_',
  creates: ['configure'],
  initial: (_id: string, org: string): EmployerState => ({ org, ...DEFAULT_EMPLOYER }),
  decide: {
    configure(_s: EmployerState, cmd: Partial<EmployerSettings>): Event[] {
      const bad = checkEmployer(cmd);
      if (bad.length) refuse(bad);
      return [{ type: 'payroll.employer.configured', ...cmd }];
    },
  },
  evolve(s: EmployerState, e: Event): EmployerState {
    switch (e.type) {
      case 'payroll.employer.configured':
        return {
          ...s,
          headcount: e.headcount === undefined ? s.headcount : e.headcount,
          turnover_50m_or_more: e.turnover_50m_or_more ?? s.turnover_50m_or_more,
          maker_checker_threshold: e.maker_checker_threshold ?? s.maker_checker_threshold,
        };
      default:
        return assertNever(e.type);
    }
  },
  view: (s: EmployerState) => ({ object: 'payroll_employer', headcount: s.headcount, turnover_50m_or_more: s.turnover_50m_or_more, maker_checker_threshold: { amount: s.maker_checker_threshold, currency: 'NGN' } }),
});

/** Until configured: count the payees, small turnover, and every run needs a second person. */
export const DEFAULT_EMPLOYER: EmployerSettings = { headcount: null, turnover_50m_or_more: false, maker_checker_threshold: 0 };
