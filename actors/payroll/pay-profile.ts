/**
 * Pay profile: what a payee is paid and the facts the gross-to-net engine needs (spec 2.9: fields
 * not shown, filled in docs/gaps.md#payroll). Created by an import, changed by PATCH; a change
 * never edits a calculated payslip, which keeps the inputs it was computed from.
 *
 * status   command  condition                         event                 next
 * -------  -------  --------------------------------  --------------------  ------
 * (none)   create   inputs valid (import checked)     pay_profile.created   exists
 * exists   update   merged inputs valid               pay_profile.updated   exists
 *
 * bank_account, the one field for where pay goes (docs/gaps.md#payroll), is checked for format here
 * and signed into the payout instruction through the payslip that records it. Its update event
 * names the payee, so payouts release a line held for want of an account (docs/gaps.md#payouts).
 * Listed by payee_ref (GET /v1/pay_profiles).
 *
 * PAYE goes to the State of residence fixed on 1 January of the tax year (ng-payroll-2026.md 8;
 * ng-payouts-remittance.md 2). The profile keeps each State with the date it holds from: a PATCH
 * of state_of_residence holds from `state_of_residence_since` (default: the day it is recorded,
 * Lagos time), and a date reaching back replaces what was recorded after it (a correction). A run
 * computes with the State in force on 1 January of its tax year (stateOnFirstOfJanuary).
 */
import { defineActor, iso } from '../../runtime/index.ts';
import { assertNever, errorEntry, recordView, type ValidationEntry } from '../../kernel/index.ts';
import { refuse } from './refuse.ts';
import { validatePayee, type PayeeInputs } from './engine/index.ts';
import { ngn } from './naira.ts';

/** The engine inputs a profile holds (months employed come from the roster entry). */
export type ProfileInputs = Omit<PayeeInputs, 'months_employed'>;

export interface PayProfileState {
  id: string;
  org: string;
  livemode: boolean;
  payee_ref: string;
  name: string | null;
  currency: 'NGN';
  inputs: ProfileInputs;
  /** Write-only (spec 2.1): accepted, never returned; payouts read it through the area's face. */
  bank_identifier: string | null;
  /** Where net pay is paid (docs/gaps.md#payouts): carried on the payslip and signed into the payout instruction. */
  bank_account: BankAccount | null;
  /** Each State of residence with the date it holds from, oldest first ('' = from before any date). Absent on older snapshots. */
  residence?: ResidenceEntry[];
  created_at: number;
  updated_at: number;
}

export interface ProfileFields {
  payee_ref: string;
  name?: string | null;
  inputs: ProfileInputs;
  bank_identifier?: string | null;
  bank_account?: BankAccount | null;
  livemode: boolean;
}

export type ProfilePatch = Partial<ProfileInputs> & { name?: string | null; bank_identifier?: string | null; bank_account?: BankAccount | null; state_of_residence_since?: string };

export interface ResidenceEntry {
  state: string;
  /** YYYY-MM-DD from which the State holds; '' for the State the profile was created with. */
  since: string;
}

/** The day of an instant in Lagos (UTC+1, no daylight saving). */
const lagosDay = (at: number): string => new Date(at + 3_600_000).toISOString().slice(0, 10);

const residenceOf = (s: PayProfileState): ResidenceEntry[] => s.residence ?? [{ state: s.inputs.state_of_residence, since: '' }];

/** The State of residence on 1 January of a tax year; for a payee recorded only later that year, the first State recorded. */
export function stateOnFirstOfJanuary(s: PayProfileState, taxYear: number): string {
  const day = `${taxYear}-01-01`;
  const entries = residenceOf(s);
  let state = entries[0].state;
  for (const e of entries) if (e.since <= day) state = e.state;
  return state;
}

/** A payee's bank account: a CBN bank code and a 10-digit NUBAN (reference ng-payouts-remittance.md 3.3). */
export interface BankAccount {
  bank_code: string;
  account_number: string;
  account_name?: string | null;
}

/**
 * The account's format only: a 3-digit (deposit money bank) or 5-digit (other institution) CBN
 * code and a 10-digit account number. The NUBAN check digit is the payouts module's integrity
 * check (docs/gaps.md#payouts: a failing line quarantines the instruction integrity_mismatch);
 * payroll does not depend on payouts.
 */
export function checkBankAccount(v: unknown, index = 1, field = '/bank_account'): ValidationEntry[] {
  const out: ValidationEntry[] = [];
  const bad = (f: string, code: string, detail: string) => out.push(errorEntry(`${field}${f}`, code, detail, index));
  if (v === null || v === undefined) return out;
  if (typeof v !== 'object' || Array.isArray(v)) {
    bad('', 'invalid_type', 'bank_account must be an object {bank_code, account_number, account_name?} or null.');
    return out;
  }
  const a = v as Record<string, unknown>;
  for (const k of Object.keys(a)) if (k !== 'bank_code' && k !== 'account_number' && k !== 'account_name') bad(`/${k}`, 'unknown_field', `bank_account has no field ${k}.`);
  if (typeof a.bank_code !== 'string' || !/^(\d{3}|\d{5})$/.test(a.bank_code)) bad('/bank_code', 'invalid_bank_code', 'bank_code must be a 3-digit (bank) or 5-digit (other institution) CBN code.');
  if (typeof a.account_number !== 'string' || !/^\d{10}$/.test(a.account_number)) bad('/account_number', 'invalid_account_number', 'account_number must be a 10-digit NUBAN.');
  if (a.account_name !== undefined && a.account_name !== null && (typeof a.account_name !== 'string' || a.account_name.length === 0 || a.account_name.length > 255)) bad('/account_name', 'invalid_type', 'account_name must be a string of 1 to 255 characters or null.');
  return out;
}

/** The account as kept (account_name null when not given). */
export const bankAccountOf = (v: BankAccount | null | undefined): BankAccount | null => (v ? { bank_code: v.bank_code, account_number: v.account_number, account_name: v.account_name ?? null } : null);

type Event =
  | ({ type: 'pay_profile.created' } & ProfileFields)
  | { type: 'pay_profile.updated'; changes: ProfilePatch; payee_ref?: string };

const FULL_YEAR = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];

/** Engine checks of profile inputs (fractional money -> invalid_money_amount), row `index`. */
export function checkProfileInputs(inputs: ProfileInputs, index = 1, prefix = ''): ValidationEntry[] {
  return validatePayee({ ...inputs, months_employed: FULL_YEAR }, index).map((e) => ({ ...e, field: e.field ? `${prefix}${e.field}` : e.field }));
}

export const PayProfile = defineActor({
  kind: 'pay_profile',
  prefix: 'pay_profile_',
  creates: ['create'],
  initial: (id: string, org: string): PayProfileState => ({
    id, org, livemode: false, payee_ref: '', name: null, currency: 'NGN',
    inputs: {
      monthly_basic: 0, monthly_housing: 0, monthly_transport: 0, monthly_other_allowances: 0,
      annual_rent_paid: 0, annual_life_assurance_premium: 0, annual_mortgage_interest: 0,
      state_of_residence: 'NG-LA', nhf_contributing: false, nhia_enrolled: false, pension_administrator: null,
    },
    bank_identifier: null, bank_account: null, created_at: 0, updated_at: 0,
  }),
  decide: {
    create(_s: PayProfileState, cmd: ProfileFields, ctx): Event[] {
      if (ctx.version > 0) return [];
      const bad = [...checkProfileInputs(cmd.inputs), ...checkBankAccount(cmd.bank_account)];
      if (bad.length) refuse(bad);
      return [{ type: 'pay_profile.created', ...cmd }];
    },
    update(s: PayProfileState, cmd: ProfilePatch): Event[] {
      const { name, bank_identifier, bank_account, state_of_residence_since, ...inputs } = cmd;
      const merged = { ...s.inputs, ...inputs };
      const bad = [...checkProfileInputs(merged), ...checkBankAccount(bank_account)];
      if (state_of_residence_since !== undefined && inputs.state_of_residence === undefined) {
        bad.push(errorEntry('/state_of_residence_since', 'state_of_residence_required', 'state_of_residence_since says from when a new state_of_residence holds: send both.'));
      }
      if (bad.length) refuse(bad);
      return [{ type: 'pay_profile.updated', changes: cmd, payee_ref: s.payee_ref }];
    },
  },
  evolve(s: PayProfileState, e: Event, meta): PayProfileState {
    switch (e.type) {
      case 'pay_profile.created':
        return { ...s, livemode: e.livemode, payee_ref: e.payee_ref, name: e.name ?? null, inputs: e.inputs, bank_identifier: e.bank_identifier ?? null, bank_account: bankAccountOf(e.bank_account), residence: [{ state: e.inputs.state_of_residence, since: '' }], created_at: meta.at, updated_at: meta.at };
      case 'pay_profile.updated': {
        const { name, bank_identifier, bank_account, state_of_residence_since, ...inputs } = e.changes;
        let residence = residenceOf(s);
        if (inputs.state_of_residence !== undefined) {
          const since = state_of_residence_since ?? lagosDay(meta.at);
          residence = [...residence.filter((r) => r.since < since), { state: inputs.state_of_residence, since }];
        }
        return {
          ...s,
          residence,
          name: name === undefined ? s.name : name,
          bank_identifier: bank_identifier === undefined ? s.bank_identifier : bank_identifier,
          bank_account: bank_account === undefined ? (s.bank_account ?? null) : bankAccountOf(bank_account),
          inputs: { ...s.inputs, ...inputs },
          updated_at: meta.at,
        };
      }
      default:
        return assertNever(e);
    }
  },
  indexes: (s: PayProfileState) => [{ list: 'all', sortKey: s.payee_ref }],
  view: (s: PayProfileState) => payProfileView(s),
});

export function payProfileView(s: PayProfileState) {
  const i = s.inputs;
  return recordView('pay_profile', s.id, s.livemode, false, {
    payee_ref: s.payee_ref,
    name: s.name,
    monthly_basic: ngn(i.monthly_basic),
    monthly_housing: ngn(i.monthly_housing),
    monthly_transport: ngn(i.monthly_transport),
    monthly_other_allowances: ngn(i.monthly_other_allowances),
    annual_rent_paid: ngn(i.annual_rent_paid),
    annual_life_assurance_premium: ngn(i.annual_life_assurance_premium),
    annual_mortgage_interest: ngn(i.annual_mortgage_interest),
    state_of_residence: i.state_of_residence,
    state_of_residence_history: residenceOf(s).map((r) => ({ state_of_residence: r.state, since: r.since || null })),
    nhf_contributing: i.nhf_contributing,
    nhia_enrolled: i.nhia_enrolled,
    pension_administrator: i.pension_administrator ?? null,
    // The account number is shown by its last four digits only, as payouts show it.
    bank_account: s.bank_account ? { bank_code: s.bank_account.bank_code, account_number_last4: s.bank_account.account_number.slice(-4), account_name: s.bank_account.account_name ?? null } : null,
    created_at: iso(s.created_at),
    updated_at: iso(s.updated_at),
  });
}
