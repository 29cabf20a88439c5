/** Accounts endpoints (spec 4.1, 5). Scope prefix of the Accounts endpoints: iam (gap). */
import { ALL_SCOPES, ApiError, type Caller, callerOf, CURRENCIES, CURRENCY_DATA_PUBLISHED, listEnvelope, ListQuery, realmOf, route, type RouteDef, type RouteRequest } from '../../kernel/index.ts';
import { Account, type AccountDetail } from './account.ts';
import { allKeys, checkScopes, issueKey, listKeys, revokeKey } from './api-keys.ts';
import { grantToken } from './oauth-clients.ts';
import { personOf } from './persons.ts';
import { Organisation, type OrganisationDetail } from './organisation.ts';
import { register } from './registration.ts';
import * as S from './schemas.ts';
import { mintTicket, signIn } from './sessions.ts';
import { SOCKET_TICKET_TTL_MS } from './socket-tickets.ts';
import { acceptInvitation, INVITATION_TTL_MS, invite, listInvitations } from './invitations.ts';
import { listSupportAccess } from './support-accesses.ts';

function principalOf(req: RouteRequest<unknown, unknown>) {
  if (!req.principal) throw new ApiError('unauthenticated', 'No credential.');
  return req.principal;
}

/** On the session endpoints the signed-in person acts: their account, not the session, is the principal. */
const sessionCaller = (req: RouteRequest<unknown, unknown>): Caller => ({ ...callerOf(req), principal: principalOf(req).account });


const currencyList = { ...listEnvelope(CURRENCIES as unknown[], false), source: `ISO 4217 (currency-codes, published ${CURRENCY_DATA_PUBLISHED})` };

export const routes: RouteDef[] = [
  route({
    method: 'POST',
    path: '/v1/registrations',
    auth: 'none',
    module: null,
    idempotent: false,
    body: S.RegistrationBody,
    response: S.RegistrationSchema,
    summary: 'Register an organisation and its first account; returns a session and the first sandbox key (shown once).',
    handler: (req) => register(req.platform, req.body, req.requestId),
  }),
  route({
    method: 'POST',
    path: '/v1/sessions',
    auth: 'none',
    module: null,
    idempotent: false,
    body: S.SessionBody,
    response: S.SessionSchema,
    summary: 'Sign in: a session token to send as Service-Session.',
    specGap: 'Request body beyond email not shown: password; response is the Session of spec 2.2.',
    // Spec 5 item 4: a failed sign-in (unknown email or wrong password, answered alike) is a 401.
    errors: ['unauthenticated'],
    handler: (req) => signIn(req.platform, req.body.email, req.body.password),
  }),
  route({
    method: 'GET',
    path: '/v1/me',
    auth: 'session',
    module: null,
    idempotent: false,
    response: S.AccountViewSchema,
    summary: 'The signed-in account, its organisation and every API key (revoked ones included). Refuses an API key (401).',
    handler: async (req) => {
      const p = principalOf(req);
      const [account, organisation, api_keys] = await Promise.all([
        req.platform.system.get(Account, p.account!, req.org) as Promise<AccountDetail>,
        req.platform.system.get(Organisation, req.org, req.org) as Promise<OrganisationDetail>,
        allKeys(req.platform, req.org),
      ]);
      return { object: 'account', livemode: false, mocked: false, account, organisation, api_keys };
    },
  }),
  route({
    method: 'GET',
    path: '/v1/people/{person_id}',
    auth: 'key',
    module: 'iam',
    idempotent: false,
    response: S.PersonSchema,
    summary: 'A person of the organisation by the id records name them with (prepared_by, approved_by, invited_by): their name and email.',
    specGap: 'Not named by the spec; a page shows people by name (docs/gaps.md#accounts).',
    handler: (req) => personOf(req.platform, req.org, req.params.person_id),
  }),
  route({
    method: 'POST',
    path: '/v1/api_keys',
    auth: 'key',
    module: 'iam',
    idempotent: true,
    body: S.CreateApiKeyBody,
    response: S.ApiKeyCreatedSchema,
    summary: 'Create an API key carrying at most the caller\'s scopes; the key is returned once.',
    specGap: 'Body and response not shown: body {name, scopes?}; response ApiKey plus key.',
    handler: (req) => {
      const p = principalOf(req);
      const scopes = checkScopes(req.body.scopes ?? [...p.scopes], p.scopes);
      // the realm of a key is its issuer's own: live keys are never self-serve (spec 5.8); a key
      // made by a key that ends with its session ends then too, so none outlives the session
      return issueKey(req.platform, callerOf(req), { name: req.body.name, realm: realmOf(req.livemode), scopes, expiresAt: p.expiresAt });
    },
  }),
  route({
    method: 'GET',
    path: '/v1/api_keys',
    auth: 'key',
    module: 'iam',
    idempotent: false,
    query: ListQuery,
    response: S.ApiKeyListSchema,
    summary: 'The organisation\'s API keys, newest first; revoked keys stay listed with revoked_at.',
    specGap: 'Response not shown: a list of ApiKey without secrets.',
    handler: (req) => listKeys(req.platform, req.org, req.query),
  }),
  route({
    method: 'POST',
    path: '/v1/api_keys/{id}/revoke',
    auth: 'key',
    module: 'iam',
    idempotent: true,
    response: S.ApiKeySchema,
    summary: 'Revoke an API key: it stops authenticating at once and stays listed with revoked_at.',
    specGap: 'Response not shown: the ApiKey.',
    handler: (req) => revokeKey(req.platform, callerOf(req), req.params.id),
  }),
  route({
    method: 'POST',
    path: '/v1/account/api_keys',
    auth: 'session',
    module: null,
    idempotent: true,
    body: S.CreateSessionApiKeyBody,
    response: S.ApiKeyCreatedSchema,
    summary: 'Create a sandbox API key from a signed-in session (any named scopes; default every one), lasting until revoked or, with expires_with_session, until the session ends. The key is returned once.',
    specGap: 'Body and response not shown: body {name, scopes?, expires_with_session?}; response ApiKey plus key.',
    handler: (req) => {
      const scopes = checkScopes(req.body.scopes ?? [...ALL_SCOPES], undefined);
      const expiresAt = req.body.expires_with_session ? principalOf(req).expiresAt : undefined;
      return issueKey(req.platform, sessionCaller(req), { name: req.body.name, realm: 'test', scopes, expiresAt });
    },
  }),
  route({
    method: 'POST',
    path: '/v1/account/api_keys/{id}/revoke',
    auth: 'session',
    module: null,
    idempotent: true,
    response: S.ApiKeySchema,
    summary: 'Revoke an API key from a signed-in session.',
    specGap: 'Response not shown: the ApiKey.',
    handler: (req) => revokeKey(req.platform, sessionCaller(req), req.params.id),
  }),
  route({
    method: 'POST',
    path: '/v1/invitations',
    auth: 'key',
    module: 'iam',
    idempotent: true,
    body: S.InviteBody,
    response: S.InvitationCreatedSchema,
    summary: `Invite a person to the organisation by email; the token (shown once) lets them accept within ${INVITATION_TTL_MS / 86_400_000} days. 409 when the email already has an account.`,
    specGap: 'Not shown: how a second person joins an organisation. See docs/gaps.md#accounts.',
    handler: (req) => invite(req.platform, callerOf(req), req.body),
  }),
  route({
    method: 'GET',
    path: '/v1/invitations',
    auth: 'key',
    module: 'iam',
    idempotent: false,
    query: ListQuery,
    response: S.InvitationListSchema,
    summary: 'The organisation\'s invitations, newest first (never their tokens).',
    specGap: 'Not shown; see docs/gaps.md#accounts.',
    handler: (req) => listInvitations(req.platform, req.org, req.query),
  }),
  route({
    method: 'POST',
    path: '/v1/invitations/accept',
    auth: 'none',
    module: null,
    idempotent: false,
    body: S.AcceptInvitationBody,
    response: S.InvitationAcceptanceSchema,
    summary: 'Accept an invitation with its token and a password: the person becomes an account of the inviting organisation and is signed in (a session).',
    specGap: 'Not shown; see docs/gaps.md#accounts. An unknown, used or expired token answers 401 like a wrong credential.',
    errors: ['unauthenticated'],
    handler: (req) => acceptInvitation(req.platform, req.body, req.requestId),
  }),
  route({
    method: 'POST',
    path: '/v1/account/socket_tickets',
    auth: 'session',
    module: null,
    idempotent: false,
    response: S.SocketTicketSchema,
    summary: `A single-use ticket, valid ${SOCKET_TICKET_TTL_MS / 1000} s, that opens one WebSocket upgrade as the signed-in person (a browser cannot send a credential header on an upgrade): pass it as ?ticket= on the socket's URL.`,
    specGap: 'Not shown: how a browser authenticates a WebSocket. See docs/gaps.md#accounts.',
    handler: (req) => mintTicket(req.platform, principalOf(req)),
  }),
  route({
    method: 'POST',
    path: '/v1/oauth/token',
    auth: 'none',
    module: null,
    idempotent: false,
    body: S.TokenBody,
    response: S.AccessTokenSchema,
    summary: 'Token grant (client_credentials): an access token for 15 minutes; no refresh token.',
    specGap: 'Response shape not shown.',
    // Spec 5 item 3: an unknown client and a wrong secret produce the same response, a 401.
    errors: ['unauthenticated'],
    handler: (req) => grantToken(req.platform, req.body),
  }),
  route({
    method: 'GET',
    path: '/v1/support_access',
    auth: 'key',
    module: 'iam',
    idempotent: false,
    query: ListQuery,
    response: S.SupportAccessListSchema,
    summary: 'Support-access log: every action the maker\'s staff took on the organisation, newest first.',
    handler: (req) => listSupportAccess(req.platform, req.org, req.query),
  }),
  route({
    method: 'GET',
    path: '/v1/currencies',
    auth: 'none',
    module: null,
    idempotent: false,
    response: S.CurrencyListSchema,
    summary: 'ISO 4217 currencies and their minor units (never assume one hundred).',
    specGap: 'Response shape not shown; served without a credential (reference data).',
    handler: async () => currencyList,
  }),
];

