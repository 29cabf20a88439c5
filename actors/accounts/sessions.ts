/**
 * Sessions (spec 5.4): a signed-in person's token, sent as Service-Session, refused after
 * expires_at. Lifetime is not shown in the spec; 12 hours (docs/gaps.md#accounts). Sign-in answers
 * an unknown email and a wrong password identically, after the same amount of hashing, and stops
 * hashing for an email whose failures used up their window (sign-in-throttle.ts).
 */
import { ApiError, keyValue, newId, type Platform, type Principal } from '../../kernel/index.ts';
import { iso } from '../../runtime/index.ts';
import { Account } from './account.ts';
import { putCredential } from './credential-records.ts';
import { decoyHash, digest, newSecret, verifyPassword } from './secrets.ts';
import { assertSignInAllowed, clearFailedSignIns, noteFailedSignIn } from './sign-in-throttle.ts';
import { SOCKET_TICKET_PREFIX, SOCKET_TICKET_TTL_MS, type SocketTicketView } from './socket-tickets.ts';

export const SESSION_TTL_MS = 12 * 3600_000;

export interface SessionView {
  object: 'session';
  livemode: boolean;
  mocked: false;
  token: string;
  expires_at: string;
}

export const emailKey = (email: string) => `account_email:${normaliseEmail(email)}`;
export const normaliseEmail = (email: string) => email.trim().toLowerCase();

export interface EmailEntry {
  account: string;
  org: string;
}

export async function openSession(platform: Platform, account: string, org: string): Promise<SessionView> {
  const token = newSecret('sess_');
  const expires = platform.clock.now() + SESSION_TTL_MS;
  await putCredential(keyValue(platform), { type: 'session', digest: digest(token), id: newId('ses_'), account, org, expires_at: expires }, SESSION_TTL_MS);
  return { object: 'session', livemode: false, mocked: false, token, expires_at: iso(expires) };
}

export async function signIn(platform: Platform, email: string, password: string): Promise<SessionView> {
  const who = normaliseEmail(email);
  const failedBefore = await assertSignInAllowed(platform, who);
  const entry = await keyValue(platform).get<EmailEntry | { pending: true }>(emailKey(email));
  const known = entry && 'account' in entry ? entry : undefined;
  const state = known ? await platform.system.state(Account, known.account, known.org) : undefined;
  const hash = state?.password ?? (await decoyHash());
  const ok = await verifyPassword(password, hash);
  if (!known || !state?.password || !ok) {
    await noteFailedSignIn(platform, who);
    throw new ApiError('unauthenticated', 'The email or password is not correct.');
  }
  if (failedBefore) await clearFailedSignIns(platform, who);
  return openSession(platform, known.account, known.org);
}

/** A single-use WebSocket ticket of the signed-in person (socket-tickets.ts; docs/gaps.md#accounts). */
export async function mintTicket(platform: Platform, session: Principal): Promise<SocketTicketView> {
  if (session.kind !== 'session' || !session.account) throw new ApiError('unauthenticated', 'A socket ticket is minted with a signed-in session (Service-Session).');
  const token = newSecret(SOCKET_TICKET_PREFIX);
  const expires = platform.clock.now() + SOCKET_TICKET_TTL_MS;
  await putCredential(keyValue(platform), { type: 'socket_ticket', digest: digest(token), id: session.id, account: session.account, org: session.org, expires_at: expires }, SOCKET_TICKET_TTL_MS);
  return { object: 'socket_ticket', livemode: false, mocked: false, token, expires_at: iso(expires) };
}
