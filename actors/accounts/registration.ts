/**
 * Registration (spec 4.1 POST /v1/registrations, 5.7): no credential; creates the organisation,
 * the account, a session and the first sandbox key, which carries every named scope (spec 5.6).
 * A known email answers 409 conflict; a weak password is refused with a showable reason.
 */
import { ALL_SCOPES, ApiError, type Caller, fieldError, keyValue, newId, type Platform } from '../../kernel/index.ts';
import { Account, type AccountDetail } from './account.ts';
import { issueKey, type ApiKeyWithSecret } from './api-keys.ts';
import { Organisation, type OrganisationDetail } from './organisation.ts';
import { hashPassword, passwordWeakness } from './secrets.ts';
import { emailKey, normaliseEmail, openSession, type EmailEntry, type SessionView } from './sessions.ts';

export interface RegistrationInput {
  organisation_name: string;
  name: string;
  email: string;
  password: string;
}

export interface RegistrationView {
  object: 'registration';
  livemode: false;
  mocked: false;
  organisation: OrganisationDetail;
  account: AccountDetail;
  session: SessionView;
  api_key: ApiKeyWithSecret & { next: string };
}

const NEXT =
  'Store this key now: it is shown once. Send it as Service-Api-Key: <key> (or Authorization: Bearer <key>) on sandbox requests. ' +
  'To replace it, create another key (POST /v1/api_keys) and revoke this one.';

const EMAIL_CONFLICT = () => new ApiError('conflict', 'An account with this email already exists; sign in with POST /v1/sessions.');

export async function register(platform: Platform, input: RegistrationInput, requestId: string): Promise<RegistrationView> {
  const weak = passwordWeakness(input.password, { email: input.email, name: input.name, organisation: input.organisation_name });
  if (weak) throw fieldError('/password', 'weak_password', weak);
  const kv = keyValue(platform);
  const ek = emailKey(input.email);
  if ((await kv.get(ek)) !== undefined) throw EMAIL_CONFLICT();
  const password = await hashPassword(input.password);
  // Reserve the email; a concurrent registration with it loses here.
  if (!(await kv.setIfAbsent(ek, { pending: true }))) throw EMAIL_CONFLICT();
  try {
    const org = newId(Organisation.prefix);
    const accountId = newId(Account.prefix);
    const organisation = await platform.system.ask(Organisation, org, 'register', { name: input.organisation_name }, { org, requestId });
    // The new person acts from here on, as they will on the session endpoints.
    const caller: Caller = { org, livemode: false, requestId, principal: accountId };
    const account = await platform.system.ask(Account, accountId, 'register', { email: normaliseEmail(input.email), name: input.name, password }, caller);
    const key = await issueKey(platform, caller, { name: 'First sandbox key', realm: 'test', scopes: [...ALL_SCOPES] });
    await kv.set(ek, { account: accountId, org } satisfies EmailEntry);
    const session = await openSession(platform, accountId, org);
    return { object: 'registration', livemode: false, mocked: false, organisation, account, session, api_key: { ...key, next: NEXT } };
  } catch (e) {
    await kv.delete(ek);
    throw e;
  }
}
