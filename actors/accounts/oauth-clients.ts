/**
 * Token grant (spec 5.3): client_credentials only; the token carries the client's organisation and
 * the requested scopes (never more than the client was granted), lasts 15 minutes (spec 8) and has
 * no refresh token. An unknown client and a wrong secret get the same answer, after the same work.
 * Clients are issued by the maker (operator CLI), never self-serve.
 */
import { ApiError, keyValue, newId, type Platform, type Realm } from '../../kernel/index.ts';
import { iso } from '../../runtime/index.ts';
import { putCredential } from './credential-records.ts';
import { checkScopes } from './api-keys.ts';
import { OAuthClient, type OAuthClientView } from './oauth-client.ts';
import { Organisation } from './organisation.ts';
import { digest, digestsEqual, newSecret } from './secrets.ts';

export const ACCESS_TOKEN_TTL_MS = 15 * 60_000;

interface ClientEntry {
  org: string;
  digest: string;
  realm: Realm;
  scopes: string[];
}

const clientKey = (id: string) => `oauth_client:${id}`;

export interface AccessTokenView {
  object: 'access_token';
  livemode: boolean;
  mocked: false;
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  expires_at: string;
  scope: string;
}

const BAD_CLIENT = () => new ApiError('unauthenticated', 'The client credentials are not valid.');
/** Digest compared when the client is unknown, so both refusals do the same work. */
const DECOY = digest('decoy');

export async function grantToken(platform: Platform, input: { client_id: string; client_secret: string; scope?: string }): Promise<AccessTokenView> {
  const entry = await keyValue(platform).get<ClientEntry>(clientKey(input.client_id));
  const ok = digestsEqual(digest(input.client_secret), entry?.digest ?? DECOY);
  if (!entry || !ok) throw BAD_CLIENT();
  const requested = (input.scope ?? '').split(' ').filter(Boolean);
  const scopes = requested.length ? checkScopes(requested, new Set(entry.scopes), '/scope') : entry.scopes;
  const token = newSecret(entry.realm === 'test' ? 'at_test_' : 'at_live_');
  const expires = platform.clock.now() + ACCESS_TOKEN_TTL_MS;
  await putCredential(
    keyValue(platform),
    { type: 'access_token', digest: digest(token), id: input.client_id, org: entry.org, realm: entry.realm, scopes, expires_at: expires },
    ACCESS_TOKEN_TTL_MS,
  );
  return {
    object: 'access_token',
    livemode: entry.realm === 'live',
    mocked: false,
    access_token: token,
    token_type: 'Bearer',
    expires_in: ACCESS_TOKEN_TTL_MS / 1000,
    expires_at: iso(expires),
    scope: scopes.join(' '),
  };
}

/** Operator action: issue a client for an organisation. The secret is returned once. */
export async function issueClient(platform: Platform, input: { org: string; name: string; scopes: string[] }): Promise<OAuthClientView & { client_secret: string }> {
  await platform.system.get(Organisation, input.org, input.org); // 404 for an unknown organisation
  const scopes = checkScopes(input.scopes, undefined);
  const secret = newSecret('cs_test_');
  const d = digest(secret);
  const id = newId(OAuthClient.prefix);
  const view = await platform.system.ask(OAuthClient, id, 'issue', { name: input.name, realm: 'test', scopes }, { org: input.org, principal: 'operator' });
  await keyValue(platform).set(clientKey(id), { org: input.org, digest: d, realm: 'test', scopes } satisfies ClientEntry);
  return { ...view, client_secret: secret };
}

export async function revokeClient(platform: Platform, org: string, id: string): Promise<OAuthClientView> {
  await keyValue(platform).delete(clientKey(id));
  return await platform.system.ask(OAuthClient, id, 'revoke', undefined, { org, principal: 'operator' });
}

