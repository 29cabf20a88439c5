/**
 * Pay profile: what a payee is paid and the facts the gross-to-net engine needs (spec 2.9: fields
 * not shown, filled in docs/gaps.md#payroll). Created by an import, changed by PATCH; a change
 * never edits a calculated payslip, which keeps the inputs it was computed from.
 *
 * status   command  condition                         event                 next
 * -------  -------  --------------------------------  --------------------  ------
 * (none)   create   inputs valid (import checked)     pay_profile.created   exists
 * exists   update   merged inputs valid               pay_profile.updated   exists
 */
import { defineActor, iso } from '../../runtime/index.ts';
import { assertNever, type ValidationEntry } from '../../kernel/index.ts';
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
  created_at: number;
  updated_at: number;
}

export interface ProfileFields {
  payee_ref: string;
  name?: string | null;
  inputs: ProfileInputs;
  bank_identifier?: string | null;
  livemode: boolean;
}

export type ProfilePatch = Partial<ProfileInputs> & { name?: string | null; bank_identifier?: string | null };

type Event =
  | ({ type: 'pay_profile.created' } & ProfileFields)
  | { type: 'pay_profile.updated'; changes: ProfilePatch };

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
    bank_identifier: null, created_at: 0, updated_at: 0,
  }),
  decide: {
    create(_s: PayProfileState, cmd: ProfileFields, ctx): Event[] {
      if (ctx.version > 0) return [];
      const bad = checkProfileInputs(cmd.inputs);
      if (bad.length) refuse(bad);
      return [{ type: 'pay_profile.created', ...cmd }];
    },
    update(s: PayProfileState, cmd: ProfilePatch): Event[] {
      const { name, bank_identifier, ...inputs } = cmd;
      const merged = { ...s.inputs, ...inputs };
      const bad = checkProfileInputs(merged);
      if (bad.length) refuse(bad);
      return [{ type: 'pay_profile.updated', changes: cmd }];
    },
  },
  evolve(s: PayProfileState, e: Event, meta): PayProfileState {
    switch (e.type) {
      case 'pay_profile.created':
        return { ...s, livemode: e.livemode, payee_ref: e.payee_ref, name: e.name ?? null, inputs: e.inputs, bank_identifier: e.bank_identifier ?? null, created_at: meta.at, updated_at: meta.at };
      case 'pay_profile.updated': {
        const { name, bank_identifier, ...inputs } = e.changes;
        return {
          ...s,
          name: name === undefined ? s.name : name,
          bank_identifier: bank_identifier === undefined ? s.bank_identifier : bank_identifier,
          inputs: { ...s.inputs, ...inputs },
          updated_at: meta.at,
        };
      }
      default:
        return assertNever(e);
    }
  },
  view: (s: PayProfileState) => payProfileView(s),
});

export function payProfileView(s: PayProfileState) {
  const i = s.inputs;
  return {
    id: s.id,
    object: 'pay_profile' as const,
    livemode: s.livemode,
    mocked: false,
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
    nhf_contributing: i.nhf_contributing,
    nhia_enrolled: i.nhia_enrolled,
    pension_administrator: i.pension_administrator ?? null,
    bank_identifier_on_file: s.bank_identifier !== null,
    created_at: iso(s.created_at),
    updated_at: iso(s.updated_at),
  };
}
