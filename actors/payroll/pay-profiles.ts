/**
 * The pay profile operation the routes call (spec 4.8 PATCH /v1/pay_profiles/{pay_profile_id}):
 * amounts arrive as Money and the profile keeps kobo, NGN only (spec 7). Later calculations use
 * the change; calculated payslips keep their recorded inputs.
 */
import { ApiError, type Caller, errorEntry, type Platform } from '../../kernel/index.ts';
import { PayProfile, type ProfilePatch } from './pay-profile.ts';

const MONEY_KEYS = ['monthly_basic', 'monthly_housing', 'monthly_transport', 'monthly_other_allowances', 'annual_rent_paid', 'annual_life_assurance_premium', 'annual_mortgage_interest'] as const;

function profilePatch(body: Record<string, unknown>): ProfilePatch {
  const out: Record<string, unknown> = {};
  const entries = [];
  for (const [k, v] of Object.entries(body)) {
    if ((MONEY_KEYS as readonly string[]).includes(k)) {
      const m = v as { amount: number; currency: string };
      if (m.currency !== 'NGN') entries.push(errorEntry(`/${k}/currency`, 'unsupported_currency', `${k} must be in NGN.`));
      out[k] = m.amount;
    } else out[k] = v;
  }
  if (entries.length) throw new ApiError('validation_failed', entries[0].detail, { validation: { entry_count: entries.length, error_count: entries.length, warning_count: 0, entries } });
  return out as ProfilePatch;
}

/** Not async, so a refused body throws at the call, before the profile is asked. */
export function updatePayProfile(p: Platform, c: Caller, id: string, body: Record<string, unknown>): Promise<unknown> {
  return p.system.ask(PayProfile, id, 'update', profilePatch(body), c);
}
