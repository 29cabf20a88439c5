/**
 * The payout operations the routes call (spec 2.11 "Individual payout", 4.10; records not shown,
 * docs/gaps.md#payouts): a payout's attempts, the name enquiries made before paying (one per
 * validated payout, under the payout's list `validated`), and a reversal a person records.
 */
import { ApiError, type Caller, isIdOf, listEnvelope, type ListEnvelope, parseListQuery, type Platform } from '../../kernel/index.ts';
import { ACCOUNT_VALIDATION_PREFIX, payoutIdOfValidation } from './ids.ts';
import { attemptView, Payout, validationView } from './payout.ts';

type PageQuery = { limit?: number; starting_after?: string } | undefined;

const payoutState = (platform: Platform, org: string, id: string) => platform.system.state(Payout, id, org);

/** GET .../payouts/{payout_id}/attempts: first first; the payout is read before the query is. */
export async function attemptsOf(platform: Platform, org: string, payoutId: string, query: PageQuery): Promise<ListEnvelope<unknown>> {
  const s = await payoutState(platform, org, payoutId);
  const { limit, after } = parseListQuery(query);
  const from = after ? s.attempts.findIndex((a) => a.id === after) + 1 : 0;
  const all = after && from === 0 ? [] : s.attempts.slice(from);
  return listEnvelope(all.slice(0, limit).map((a) => attemptView(s, a)), all.length > limit);
}

export async function attemptOf(platform: Platform, org: string, payoutId: string, attemptId: string | undefined): Promise<unknown> {
  const s = await payoutState(platform, org, payoutId);
  const a = s.attempts.find((x) => x.id === attemptId);
  if (!a) throw new ApiError('not_found', `No attempt with id ${attemptId} on payout ${s.id}.`);
  return attemptView(s, a);
}

/** GET .../account_validations: newest first; starting_after names a validation, the list holds its payout. */
export async function listValidations(platform: Platform, org: string, query: PageQuery): Promise<ListEnvelope<unknown>> {
  const { limit, after } = parseListQuery(query);
  const afterPayout = after && isIdOf(after, ACCOUNT_VALIDATION_PREFIX) ? payoutIdOfValidation(after) : after;
  const page = await platform.system.listIds(Payout, org, 'validated', { after: afterPayout, limit, order: 'desc' });
  const states = await Promise.all(page.ids.map((id) => payoutState(platform, org, id)));
  return listEnvelope(states.map(validationView), page.hasMore);
}

export async function validationOf(platform: Platform, org: string, id: string): Promise<unknown> {
  const s = await payoutState(platform, org, payoutIdOfValidation(id));
  if (!s.validation) throw new ApiError('not_found', `No account validation with id ${id}.`);
  return validationView(s);
}

/** POST .../payouts/{payout_id}/reverse: 409 unless settled (payout.ts). */
export function reversePayout(platform: Platform, caller: Caller & { dedupeId?: string }, payoutId: string, body: { reason: string }): Promise<unknown> {
  return platform.system.ask(Payout, payoutId, 'reverse', body, caller);
}
