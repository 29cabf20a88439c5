/**
 * The organisation's payroll settings (spec 8 "configured per organisation"): every employer fact
 * the engine reads and the maker-checker threshold. The spec shows no resource for them; this one
 * is GET and PATCH /v1/payroll/employer_settings, and the `employer` block of an import sets the
 * same fields (docs/gaps.md#payroll). One per organisation, never listed.
 *
 *   headcount               staff count for the PRA pension (pack pension.min_headcount) and ITF
 *                           (itf.min_headcount) thresholds; null counts each run's payees
 *   turnover_50m_or_more    ITF applies from NGN 50m turnover whatever the headcount (pack itf)
 *   state                   the employer's State of registration (ISO 3166-2:NG) or null; shown on
 *                           runs; PAYE goes to the State of each employee's residence, not this
 *   maker_checker_threshold runs with gross above it (kobo) need an approver other than the
 *                           preparer (spec 3 Payroll run, 8)
 *
 * status      command    condition                                   event                        next
 * ----------  ---------  ------------------------------------------  ---------------------------  ----------
 * (none)      configure  headcount integer >= 0 or null; threshold   payroll.employer.configured  configured
 *                        whole kobo >= 0; state an ISO code or null
 * configured  configure  same                                        payroll.employer.configured  configured
 */
import { createHash } from 'node:crypto';
import { defineActor, iso } from '../../runtime/index.ts';
import { assertNever, errorEntry, type ValidationEntry } from '../../kernel/index.ts';
import { NG_STATES } from './engine/index.ts';
import { ngn } from './naira.ts';
import { refuse } from './refuse.ts';

export interface EmployerSettings {
  /** Staff count for the PRA pension and ITF thresholds; null means "count the run's payees". */
  headcount: number | null;
  turnover_50m_or_more: boolean;
  /** ISO 3166-2:NG code of the employer's State, or null. */
  state: string | null;
  /** Runs whose gross is above this (kobo) need an approver other than the preparer. */
  maker_checker_threshold: number;
}

export interface EmployerState extends EmployerSettings {
  org: string;
  livemode: boolean;
  updated_at: number;
}

export type EmployerPatch = Partial<EmployerSettings>;

type Event = { type: 'payroll.employer.configured'; livemode?: boolean } & EmployerPatch;

export const employerIdFor = (org: string) => `payroll_employer_${createHash('sha256').update(org).digest('hex').slice(0, 32)}`;

export function checkEmployer(e: EmployerPatch, index = 1, prefix = '/employer'): ValidationEntry[] {
  const out: ValidationEntry[] = [];
  if (e.headcount !== undefined && e.headcount !== null && (!Number.isSafeInteger(e.headcount) || e.headcount < 0)) {
    out.push(errorEntry(`${prefix}/headcount`, 'invalid_headcount', 'headcount must be a whole number >= 0, or null to count each run\'s payees.', index));
  }
  if (e.turnover_50m_or_more !== undefined && typeof e.turnover_50m_or_more !== 'boolean') {
    out.push(errorEntry(`${prefix}/turnover_50m_or_more`, 'invalid_type', 'turnover_50m_or_more must be true or false.', index));
  }
  if (e.state !== undefined && e.state !== null && !NG_STATES.has(e.state)) {
    out.push(errorEntry(`${prefix}/state`, 'invalid_state', 'state must be the ISO 3166-2:NG code of a State or the FCT (NG-LA, NG-FC ...), or null.', index));
  }
  const t = e.maker_checker_threshold;
  if (t !== undefined && (typeof t !== 'number' || !Number.isSafeInteger(t) || t < 0)) {
    out.push(errorEntry(`${prefix}/maker_checker_threshold`, typeof t === 'number' && Number.isFinite(t) && !Number.isInteger(t) ? 'invalid_money_amount' : 'value_out_of_range', 'maker_checker_threshold must be a whole number of kobo >= 0.', index));
  }
  return out;
}

/** Until configured: count the payees, small turnover, no State, and every run needs a second person. */
export const DEFAULT_EMPLOYER: EmployerSettings = { headcount: null, turnover_50m_or_more: false, state: null, maker_checker_threshold: 0 };

export function employerSettingsView(s: EmployerSettings & { livemode?: boolean; updated_at?: number }, configured: boolean, livemode: boolean) {
  return {
    object: 'payroll_employer_settings' as const,
    livemode: s.livemode ?? livemode,
    mocked: false,
    configured,
    headcount: s.headcount,
    turnover_50m_or_more: s.turnover_50m_or_more,
    state: s.state ?? null,
    maker_checker_threshold: ngn(s.maker_checker_threshold),
    updated_at: configured && s.updated_at ? iso(s.updated_at) : null,
  };
}

export const Employer = defineActor({
  kind: 'payroll_employer',
  prefix: 'payroll_employer_',
  creates: ['configure'],
  initial: (_id: string, org: string): EmployerState => ({ org, livemode: false, updated_at: 0, ...DEFAULT_EMPLOYER }),
  decide: {
    configure(_s: EmployerState, cmd: EmployerPatch & { livemode?: boolean }): Event[] {
      const bad = checkEmployer(cmd);
      if (bad.length) refuse(bad);
      const { livemode, ...patch } = cmd;
      return [{ type: 'payroll.employer.configured', ...patch, ...(livemode === undefined ? {} : { livemode }) }];
    },
  },
  evolve(s: EmployerState, e: Event, meta): EmployerState {
    switch (e.type) {
      case 'payroll.employer.configured':
        return {
          ...s,
          livemode: e.livemode ?? s.livemode,
          updated_at: meta.at,
          headcount: e.headcount === undefined ? s.headcount : e.headcount,
          turnover_50m_or_more: e.turnover_50m_or_more ?? s.turnover_50m_or_more,
          state: e.state === undefined ? (s.state ?? null) : e.state,
          maker_checker_threshold: e.maker_checker_threshold ?? s.maker_checker_threshold,
        };
      default:
        return assertNever(e.type);
    }
  },
  view: (s: EmployerState) => employerSettingsView(s, true, s.livemode),
});
