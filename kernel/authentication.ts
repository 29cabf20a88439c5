/**
 * How the gateway learns who is calling without knowing the area that keeps credentials (spec 5.1
 * to 5.4): the accounts area provides an Authenticator under AUTHENTICATOR when it starts, and the
 * gateway reads only CREDENTIAL_HEADERS of a request for it.
 */
import type { Auth } from './area.ts';
import type { Principal } from './scopes.ts';
import { serviceKey } from './services.ts';

/** The request headers a credential can arrive in (spec 5.1, 5.3, 5.4), lower-cased. */
export const CREDENTIAL_HEADERS = ['authorization', 'service-api-key', 'service-session'] as const;

export interface Authenticator {
  /** The principal of the credential in `headers`; refuses with 401 unauthenticated (or 403) otherwise. */
  authenticate(auth: Exclude<Auth, 'none'>, headers: Readonly<Record<string, string>>): Promise<Principal>;
}

export const AUTHENTICATOR = serviceKey<Authenticator>('authenticator');
