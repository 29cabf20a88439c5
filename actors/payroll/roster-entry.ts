/**
 * Roster entry: a payee's place on the organisation's payroll (spec 2.9: fields not shown, filled
 * in docs/gaps.md#payroll). It names the pay profile and the employment dates; a run for a period
 * includes every entry employed in that month, and the months employed in the tax year (which the
 * cumulative PAYE method needs) come from these dates.
 *
 * status   command  condition                            event                  next
 * -------  -------  -----------------------------------  ---------------------  ------
 * (none)   create   starts_on a date; ends_on >= starts  roster_entry.created   exists
 * exists   update   merged dates valid                   roster_entry.updated   exists
 */
import { defineActor, iso } from '../../runtime/index.ts';
import { assertNever, errorEntry, recordView, type ValidationEntry } from '../../kernel/index.ts';
import { refuse } from './refuse.ts';

export interface RosterEntryState {
  id: string;
  org: string;
  livemode: boolean;
  payee_ref: string;
  pay_profile_id: string;
  /** YYYY-MM-DD */
  starts_on: string;
  ends_on: string | null;
  created_at: number;
  updated_at: number;
}

export interface RosterFields {
  payee_ref: string;
  pay_profile_id: string;
  starts_on: string;
  ends_on: string | null;
  livemode: boolean;
}

export type RosterPatch = { starts_on?: string; ends_on?: string | null };

type Event = ({ type: 'roster_entry.created' } & RosterFields) | ({ type: 'roster_entry.updated' } & RosterPatch);

const DATE = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;
export const isDate = (v: unknown): v is string => typeof v === 'string' && DATE.test(v) && !Number.isNaN(Date.parse(`${v}T00:00:00Z`)) && new Date(`${v}T00:00:00Z`).toISOString().startsWith(v);

export function checkDates(starts_on: unknown, ends_on: unknown, index = 1, prefix = ''): ValidationEntry[] {
  const out: ValidationEntry[] = [];
  if (!isDate(starts_on)) out.push(errorEntry(`${prefix}/starts_on`, 'invalid_date', 'starts_on must be a date YYYY-MM-DD.', index));
  if (ends_on !== null && ends_on !== undefined && !isDate(ends_on)) out.push(errorEntry(`${prefix}/ends_on`, 'invalid_date', 'ends_on must be a date YYYY-MM-DD or null.', index));
  else if (isDate(starts_on) && isDate(ends_on) && ends_on < starts_on) out.push(errorEntry(`${prefix}/ends_on`, 'ends_before_start', 'ends_on is before starts_on.', index));
  return out;
}

/** Whether the entry is employed during any day of the period (YYYY-MM). */
export function employedIn(e: Pick<RosterEntryState, 'starts_on' | 'ends_on'>, period: string): boolean {
  const first = `${period}-01`;
  const last = `${period}-31`;
  return e.starts_on <= last && (e.ends_on === null || e.ends_on >= first);
}

/** Months (1-12) of the tax year in which the entry is employed. */
export function monthsEmployed(e: Pick<RosterEntryState, 'starts_on' | 'ends_on'>, taxYear: number): number[] {
  const out: number[] = [];
  for (let m = 1; m <= 12; m++) if (employedIn(e, `${taxYear}-${String(m).padStart(2, '0')}`)) out.push(m);
  return out;
}

export const RosterEntry = defineActor({
  kind: 'roster_entry',
  prefix: 'roster_entry_',
  creates: ['create'],
  initial: (id: string, org: string): RosterEntryState => ({
    id, org, livemode: false, payee_ref: '', pay_profile_id: '', starts_on: '1970-01-01', ends_on: null, created_at: 0, updated_at: 0,
  }),
  decide: {
    create(_s: RosterEntryState, cmd: RosterFields, ctx): Event[] {
      if (ctx.version > 0) return [];
      const bad = checkDates(cmd.starts_on, cmd.ends_on);
      if (bad.length) refuse(bad);
      return [{ type: 'roster_entry.created', ...cmd }];
    },
    update(s: RosterEntryState, cmd: RosterPatch): Event[] {
      const starts = cmd.starts_on ?? s.starts_on;
      const ends = cmd.ends_on === undefined ? s.ends_on : cmd.ends_on;
      const bad = checkDates(starts, ends);
      if (bad.length) refuse(bad);
      return [{ type: 'roster_entry.updated', ...cmd }];
    },
  },
  evolve(s: RosterEntryState, e: Event, meta): RosterEntryState {
    switch (e.type) {
      case 'roster_entry.created':
        return { ...s, livemode: e.livemode, payee_ref: e.payee_ref, pay_profile_id: e.pay_profile_id, starts_on: e.starts_on, ends_on: e.ends_on, created_at: meta.at, updated_at: meta.at };
      case 'roster_entry.updated':
        return { ...s, starts_on: e.starts_on ?? s.starts_on, ends_on: e.ends_on === undefined ? s.ends_on : e.ends_on, updated_at: meta.at };
      default:
        return assertNever(e);
    }
  },
  view: (s: RosterEntryState) => (recordView('roster_entry', s.id, s.livemode, false, {
    payee_ref: s.payee_ref,
    pay_profile_id: s.pay_profile_id,
    starts_on: s.starts_on,
    ends_on: s.ends_on,
    created_at: iso(s.created_at),
    updated_at: iso(s.updated_at),
  })),
  // The roster in payee order: a run reads it to find who is employed in its period.
  indexes: (s: RosterEntryState) => [{ list: 'all', sortKey: s.payee_ref }],
});
