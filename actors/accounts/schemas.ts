/** Request and response shapes of the Accounts endpoints (spec 2.2, 4.1), for validation and OpenAPI. */
import { Type } from '@sinclair/typebox';
import { CURRENCY_DATA_PUBLISHED, enumOf, ListEnvelopeSchema } from '../../kernel/index.ts';
import { REALMS } from './credential-records.ts';
import { INVITATION_STATUSES } from './invitation.ts';

export const RegistrationBody = Type.Object(
  {
    organisation_name: Type.String({ minLength: 1, maxLength: 200 }),
    name: Type.String({ minLength: 1, maxLength: 200 }),
    email: Type.String({ format: 'email', maxLength: 254 }),
    password: Type.String({ minLength: 1, maxLength: 1000, description: 'At least 10 characters, not common, not containing your email or names.' }),
  },
  { additionalProperties: false },
);

export const SessionBody = Type.Object(
  { email: Type.String({ format: 'email', maxLength: 254 }), password: Type.String({ minLength: 1, maxLength: 1000 }) },
  { additionalProperties: false, 'x-spec-gap': true, description: 'Spec 4.1 names email; password is the remaining field (gap).' },
);

export const Scopes = Type.Array(Type.String({ pattern: '^[a-z]+:(read|write|approve)$' }), {
  minItems: 1,
  maxItems: 64,
  uniqueItems: true,
  description: 'Named scopes only; never a wildcard, never more than the issuer holds. Default: the issuer\'s scopes.',
});

export const CreateApiKeyBody = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 200, description: 'What the key is for.' }), scopes: Type.Optional(Scopes) },
  { additionalProperties: false, 'x-spec-gap': true },
);

/** A key made from a session may end with it: the console's own credential (docs/gaps.md#accounts). */
export const CreateSessionApiKeyBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200, description: 'What the key is for.' }),
    scopes: Type.Optional(Scopes),
    expires_with_session: Type.Optional(Type.Boolean({ description: 'The key expires when the session that makes it does (its expires_at), and is refused from then on; for a signed-in page, so no key outlives the person\'s session.' })),
  },
  { additionalProperties: false, 'x-spec-gap': true },
);

export const TokenBody = Type.Object(
  {
    grant_type: Type.Literal('client_credentials'),
    client_id: Type.String({ minLength: 1, maxLength: 255 }),
    client_secret: Type.String({ minLength: 1, maxLength: 255 }),
    scope: Type.Optional(Type.String({ maxLength: 4000, description: 'Space-separated scopes; default: every scope the client was granted.' })),
  },
  { additionalProperties: false },
);

const Timestamp = Type.String({ format: 'date-time' });

export const ApiKeySchema = Type.Object({
  id: Type.String({ pattern: '^api_key_' }),
  object: Type.Literal('api_key'),
  livemode: Type.Boolean(),
  mocked: Type.Boolean(),
  name: Type.String(),
  realm: enumOf(REALMS),
  scopes: Type.Array(Type.String()),
  person: Type.Union([Type.String(), Type.Null()], { description: 'The person behind the key: the account that made it (directly, from a session, or through another key of theirs), or the operator-issued OAuth client whose token made it. Maker-checker compares this, not key ids. Null on keys made before it was recorded.' }),
  revoked_at: Type.Union([Timestamp, Type.Null()]),
  expires_at: Type.Union([Timestamp, Type.Null()], { description: 'When a key made to end with its session stops being accepted; null for a key that lasts until revoked.' }),
  created_at: Timestamp,
});

export const ApiKeyCreatedSchema = Type.Composite([ApiKeySchema, Type.Object({ key: Type.String({ description: 'The secret; shown once.' }) })]);

export const SessionSchema = Type.Object({
  object: Type.Literal('session'),
  livemode: Type.Boolean(),
  mocked: Type.Boolean(),
  token: Type.String({ description: 'Send as Service-Session.' }),
  expires_at: Timestamp,
});

const OrganisationDetail = Type.Object({ id: Type.String({ pattern: '^org_' }), name: Type.String() });
const AccountDetail = Type.Object({ email: Type.String({ format: 'email' }), name: Type.String() });

export const PersonSchema = Type.Object({ id: Type.String(), object: Type.Literal('person'), name: Type.String(), email: Type.String({ format: 'email' }), livemode: Type.Literal(false), mocked: Type.Literal(false) });

export const RegistrationSchema = Type.Object({
  object: Type.Literal('registration'),
  livemode: Type.Boolean(),
  mocked: Type.Boolean(),
  organisation: OrganisationDetail,
  account: AccountDetail,
  session: SessionSchema,
  api_key: Type.Composite([ApiKeyCreatedSchema, Type.Object({ next: Type.String() })]),
});

export const AccountViewSchema = Type.Object({
  object: Type.Literal('account'),
  livemode: Type.Boolean(),
  mocked: Type.Boolean(),
  account: AccountDetail,
  organisation: OrganisationDetail,
  api_keys: Type.Array(ApiKeySchema),
});

export const AccessTokenSchema = Type.Object(
  {
    object: Type.Literal('access_token'),
    livemode: Type.Boolean(),
    mocked: Type.Boolean(),
    access_token: Type.String({ description: 'Send as Authorization: Bearer <access_token>.' }),
    token_type: Type.Literal('Bearer'),
    expires_in: Type.Integer({ description: 'Seconds: 900 (15 minutes).' }),
    expires_at: Timestamp,
    scope: Type.String(),
  },
  { 'x-spec-gap': true, description: 'Spec 5.3: response shape of the token grant not shown.' },
);

export const SupportAccessSchema = Type.Object({
  id: Type.String({ pattern: '^sta_' }),
  object: Type.Literal('support_access'),
  livemode: Type.Boolean(),
  mocked: Type.Boolean(),
  at: Timestamp,
  action: Type.String(),
  purpose: Type.String(),
});

export const CurrencySchema = Type.Object({
  object: Type.Literal('currency'),
  code: Type.String(),
  numeric_code: Type.String(),
  name: Type.String(),
  minor_unit_digits: Type.Integer(),
  minor_units_per_major_unit: Type.Integer(),
});

export const CurrencyListSchema = Type.Composite([ListEnvelopeSchema(CurrencySchema), Type.Object({ source: Type.String() })], {
  'x-spec-gap': true,
  description: `Spec 2.1: response shape not shown. ISO 4217 as published ${CURRENCY_DATA_PUBLISHED}.`,
});

export const SocketTicketSchema = Type.Object(
  {
    object: Type.Literal('socket_ticket'),
    livemode: Type.Boolean(),
    mocked: Type.Boolean(),
    token: Type.String({ description: 'Shown once (an idempotent replay answers null); opens one WebSocket upgrade as ?ticket=<token>, then stops working.' }),
    expires_at: Timestamp,
  },
  { 'x-spec-gap': true },
);

export const InviteBody = Type.Object(
  {
    email: Type.String({ format: 'email', maxLength: 254, description: 'The person to invite; not yet an account of any organisation.' }),
    name: Type.String({ minLength: 1, maxLength: 200, description: 'Their name, which they may change when they accept.' }),
  },
  { additionalProperties: false, 'x-spec-gap': true },
);

export const AcceptInvitationBody = Type.Object(
  {
    token: Type.String({ minLength: 1, maxLength: 512, description: 'The invitation\'s token, as the inviter passed it on.' }),
    password: Type.String({ minLength: 1, maxLength: 1000, description: 'At least 10 characters, not common, not containing your email or names.' }),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  },
  { additionalProperties: false, 'x-spec-gap': true },
);

export const InvitationSchema = Type.Object(
  {
    id: Type.String({ pattern: '^inv_' }),
    object: Type.Literal('invitation'),
    livemode: Type.Boolean(),
    mocked: Type.Boolean(),
    email: Type.String({ format: 'email' }),
    name: Type.String(),
    status: enumOf(INVITATION_STATUSES),
    invited_by: Type.Union([Type.String(), Type.Null()], { description: 'The person who invited (an account, or the OAuth client behind a token).' }),
    expires_at: Timestamp,
    accepted_at: Type.Union([Timestamp, Type.Null()]),
    created_at: Timestamp,
  },
  { 'x-spec-gap': true },
);

export const InvitationCreatedSchema = Type.Composite([InvitationSchema, Type.Object({ token: Type.String({ description: 'Shown once (an idempotent replay answers null): the invitee accepts with it.' }) })]);
export const InvitationListSchema = ListEnvelopeSchema(InvitationSchema);

export const InvitationAcceptanceSchema = Type.Object(
  {
    object: Type.Literal('invitation_acceptance'),
    livemode: Type.Boolean(),
    mocked: Type.Boolean(),
    organisation: OrganisationDetail,
    account: AccountDetail,
    session: SessionSchema,
  },
  { 'x-spec-gap': true },
);

export const ApiKeyListSchema = ListEnvelopeSchema(ApiKeySchema);
export const SupportAccessListSchema = ListEnvelopeSchema(SupportAccessSchema);
