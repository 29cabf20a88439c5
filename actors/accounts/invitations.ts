/**
 * Adding a person to an organisation (docs/gaps.md#accounts; the spec names registration and
 * sign-in only, spec 4.1, 5.4):
 * - POST /v1/invitations (iam:write, Idempotency-Key): an invitation for an email not yet an
 *   account, valid INVITATION_TTL_MS, returned with its token once (the platform sends no email:
 *   the inviter passes the token on). Run again with its Idempotency-Key after a lost answer, the
 *   same invitation gets a fresh token and the undelivered one stops working, as API keys do.
 * - POST /v1/invitations/accept (no credential): the token, a password (refused with a showable
 *   reason, as at registration) and optionally the name; the person becomes an account of the
 *   inviting organisation and gets a session. Single-use: the token is forgotten and the
 *   invitation accepted; an unknown, used or expired token is 401 as a wrong credential is.
 * A person who joins this way signs in and acts as the registering person does; a person is never
 * in two organisations (an email has one account: 409 conflict).
 */
import { ApiError, type Caller, conflict, createDedupe, createdId, fieldError, keyValue, type ListEnvelope, listPage, newId, type Platform } from '../../kernel/index.ts';
import { Account, type AccountDetail } from './account.ts';
import { Invitation, type InvitationView } from './invitation.ts';
import { Organisation, type OrganisationDetail } from './organisation.ts';
import { personBehind } from './persons.ts';
import { digest, hashPassword, newSecret, passwordWeakness } from './secrets.ts';
import { emailKey, normaliseEmail, openSession, type EmailEntry, type SessionView } from './sessions.ts';

/** Not shown in the spec: seven days (docs/gaps.md#accounts). */
export const INVITATION_TTL_MS = 7 * 24 * 3600_000;
export const INVITATION_TOKEN_PREFIX = 'invt_';

const tokenKey = (d: string) => `invitation_token:${d}`;
const digestKey = (id: string) => `invitation_digest:${id}`;

interface TokenEntry {
  id: string;
  org: string;
}

export type InvitationWithToken = InvitationView & { token: string };

export interface InvitationAcceptance {
  object: 'invitation_acceptance';
  livemode: false;
  mocked: false;
  organisation: OrganisationDetail;
  account: AccountDetail;
  session: SessionView;
}

const emailTaken = () => new ApiError('conflict', 'An account with this email already exists; the person signs in with POST /v1/sessions.');

export async function invite(platform: Platform, caller: Caller, input: { email: string; name: string }): Promise<InvitationWithToken> {
  const kv = keyValue(platform);
  const email = normaliseEmail(input.email);
  if ((await kv.get(emailKey(email))) !== undefined) throw emailTaken();
  const id = createdId(caller, Invitation.prefix);
  const invitedBy = await personBehind(platform, caller);
  const expires = platform.clock.now() + INVITATION_TTL_MS;
  const view = await platform.system.ask(Invitation, id, 'issue', { email, name: input.name, invited_by: invitedBy, expires_at: expires }, { ...caller, dedupeId: createDedupe(caller) });
  if (view.status !== 'pending') throw conflict('This invitation was already accepted.');
  const token = newSecret(INVITATION_TOKEN_PREFIX);
  const d = digest(token);
  const ttl = Math.max(1, Date.parse(view.expires_at) - platform.clock.now());
  const undelivered = await kv.get<string>(digestKey(id));
  if (undelivered !== undefined && undelivered !== d) await kv.delete(tokenKey(undelivered));
  await kv.set(digestKey(id), d, ttl);
  await kv.set(tokenKey(d), { id, org: caller.org } satisfies TokenEntry, ttl);
  return { ...view, token };
}

export const listInvitations = (platform: Platform, org: string, query: { limit?: number; starting_after?: string }) =>
  listPage(platform.system, Invitation, org, 'all', query, 'desc') as Promise<ListEnvelope<InvitationView>>;

const invalid = (why = 'it is unknown, already used or expired') => new ApiError('unauthenticated', `The invitation is not valid: ${why}. Ask the organisation for a new one.`);

export async function acceptInvitation(platform: Platform, input: { token: string; password: string; name?: string }, requestId: string): Promise<InvitationAcceptance> {
  const kv = keyValue(platform);
  const d = digest(input.token);
  const entry = input.token.length <= 512 ? await kv.get<TokenEntry>(tokenKey(d)) : undefined;
  if (!entry) throw invalid();
  const inv = await platform.system.state(Invitation, entry.id, entry.org);
  if (inv.status !== 'pending') throw invalid();
  if (platform.clock.now() >= inv.expires_at) throw invalid('it expired');
  const org = await platform.system.state(Organisation, entry.org, entry.org);
  const name = input.name ?? inv.name;
  const weak = passwordWeakness(input.password, { email: inv.email, name, organisation: org.name });
  if (weak) throw fieldError('/password', 'weak_password', weak);
  const password = await hashPassword(input.password);
  const ek = emailKey(inv.email);
  // Reserve the email: a registration or a second acceptance with it loses here.
  if (!(await kv.setIfAbsent(ek, { pending: true }))) throw emailTaken();
  let linked = false;
  try {
    const accountId = newId(Account.prefix);
    const caller: Caller = { org: entry.org, livemode: false, requestId, principal: accountId };
    // The account first: until the invitation accepts and the email points at it, nobody can sign in to it.
    const account = await platform.system.ask(Account, accountId, 'register', { email: inv.email, name, password }, caller);
    await platform.system.ask(Invitation, inv.id, 'accept', { account: accountId }, caller);
    await kv.set(ek, { account: accountId, org: entry.org } satisfies EmailEntry);
    linked = true;
    await kv.delete(tokenKey(d));
    const session = await openSession(platform, accountId, entry.org);
    return { object: 'invitation_acceptance', livemode: false, mocked: false, organisation: { id: org.id, name: org.name }, account, session };
  } catch (e) {
    if (!linked) await kv.delete(ek);
    if (e instanceof ApiError && e.code === 'conflict') throw invalid();
    throw e;
  }
}
