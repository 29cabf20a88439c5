/**
 * The person behind a credential (spec 3 Payroll run and 8: the preparer of a run cannot approve
 * it above the threshold). Maker-checker compares people, not credentials, or a preparer would
 * approve their own run with a second key of theirs.
 *
 *   session           the signed-in account
 *   API key           the person recorded when it was issued: the account that made it (at
 *                     registration, or from a session), or the person behind the key or token that
 *                     made it (so a key made by a key made by Ada is Ada's)
 *   access token      its OAuth client: issued by the operator, never self-serve (spec 5.3), it is
 *                     its own principal
 *
 * A key issued before persons were recorded counts as its own person. Callers pass the Caller of
 * their request (its principal is the api key id, the client id or the account id, kernel
 * callerOf and the session routes).
 */
import { isApiError, isIdOf, notFound, type Caller, type Platform } from '../../kernel/index.ts';
import { Account, type AccountDetail } from './account.ts';
import { ApiKey } from './api-key.ts';

export async function personBehind(platform: Platform, caller: Pick<Caller, 'org' | 'principal'>): Promise<string | null> {
  const id = caller.principal;
  if (!id) return null;
  if (!isIdOf(id, ApiKey.prefix)) return id;
  try {
    const key = await platform.system.state(ApiKey, id, caller.org);
    return key.person ?? id;
  } catch (e) {
    if (isApiError(e) && e.code === 'not_found') return id;
    throw e;
  }
}

export interface PersonView {
  id: string;
  object: 'person';
  name: string;
  email: string;
  livemode: false;
  mocked: false;
}

/**
 * A person of the caller's organisation by an id records name them with (a run's prepared_by and
 * approved_by, an invitation's invited_by) or by a credential they act with (an audit entry's
 * principal, an API key), so a page shows a name rather than an id. Only an account is a person:
 * a key counted as its own person, or an OAuth client, is 404.
 */
export async function personOf(platform: Platform, org: string, id: string): Promise<PersonView> {
  const account = isIdOf(id, ApiKey.prefix) ? await personBehind(platform, { org, principal: id }) : id;
  if (!account || !isIdOf(account, Account.prefix)) throw notFound('person', id);
  const a = (await platform.system.get(Account, account, org)) as AccountDetail;
  return { id: account, object: 'person', name: a.name, email: a.email, livemode: false, mocked: false };
}
