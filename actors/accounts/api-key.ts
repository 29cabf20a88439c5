/**
 * API key. Spec 2.2 (ApiKey), 5.1, 5.2, 5.6, 5.8.
 * Neither the secret nor its digest is held here (events may be published): the credential table
 * keeps the digest. A revoked key stays listed with revoked_at (spec 5.2). Every key records the
 * person behind it (persons.ts), which maker-checker compares.
 *
 * status   command  condition  event            next
 * -------  -------  ---------  ---------------  -------
 * (none)   issue    -          api_key.created  active
 * active   revoke   -          api_key.revoked  revoked
 * revoked  revoke   -          409 conflict     revoked
 * active,  issue    -          409 conflict     (same)
 * revoked
 */
import { defineActor, iso, sortKeyTime } from '../../runtime/index.ts';
import { assertNever, conflict, type Realm, recordView } from '../../kernel/index.ts';

export type ApiKeyStatus = 'none' | 'active' | 'revoked';

export interface ApiKeyState {
  id: string;
  org: string;
  status: ApiKeyStatus;
  name: string;
  realm: Realm;
  scopes: string[];
  /** The person behind the key (persons.ts); null on keys issued before it was recorded. */
  person: string | null;
  /** RFC 3339, fixed at the event's commit (kept as text: the view is read on every list). */
  created_at: string;
  revoked_at: string | null;
  /** RFC 3339 when the key ends with the session it was made for; null for a key that lasts until revoked. */
  expires_at: string | null;
}

interface IssueCommand {
  name: string;
  realm: Realm;
  scopes: string[];
  person: string | null;
  expires_at?: string | null;
}

type ApiKeyEvent =
  | { type: 'api_key.created'; name: string; realm: Realm; scopes: string[]; person?: string | null; expires_at?: string | null }
  | { type: 'api_key.revoked' };

export interface ApiKeyView {
  id: string;
  object: 'api_key';
  livemode: boolean;
  mocked: false;
  name: string;
  realm: Realm;
  scopes: string[];
  person: string | null;
  revoked_at: string | null;
  expires_at: string | null;
  created_at: string;
}

/**
 * States are immutable (evolve returns a new one), so a state's view is computed once and frozen;
 * the gateway reuses the JSON of a frozen record (keys are listed on every GET /v1/api_keys).
 */
const views = new WeakMap<ApiKeyState, ApiKeyView>();
function apiKeyView(s: ApiKeyState): ApiKeyView {
  let v = views.get(s);
  if (!v) {
    v = Object.freeze(recordView('api_key', s.id, s.realm === 'live', false as const, {
      name: s.name,
      realm: s.realm,
      // Scope lists are frozen and shared (canonicalScopes); one decoded from a snapshot is copied.
      scopes: (Object.isFrozen(s.scopes) ? s.scopes : Object.freeze([...s.scopes])) as string[],
      person: s.person ?? null,
      revoked_at: s.revoked_at,
      expires_at: s.expires_at ?? null,
      created_at: s.created_at,
    }));
    views.set(s, v);
  }
  return v;
}

export const ApiKey = defineActor({
  kind: 'api_key',
  prefix: 'api_key_',
  creates: ['issue'],
  initial: (id, org): ApiKeyState => ({ id, org, status: 'none', name: '', realm: 'test', scopes: [], person: null, created_at: '', revoked_at: null, expires_at: null }),
  decide: {
    issue(state: ApiKeyState, cmd: IssueCommand): ApiKeyEvent[] {
      switch (state.status) {
        case 'none':
          return [cmd.expires_at ? { type: 'api_key.created', name: cmd.name, realm: cmd.realm, scopes: cmd.scopes, person: cmd.person, expires_at: cmd.expires_at } : { type: 'api_key.created', name: cmd.name, realm: cmd.realm, scopes: cmd.scopes, person: cmd.person }];
        case 'active':
        case 'revoked':
          throw conflict('This API key was already issued.');
        default:
          return assertNever(state.status);
      }
    },
    revoke(state: ApiKeyState): ApiKeyEvent[] {
      switch (state.status) {
        case 'active':
          return [{ type: 'api_key.revoked' }];
        case 'revoked':
          throw conflict(`API key ${state.id} is already revoked (revoked_at ${state.revoked_at}).`);
        case 'none':
          throw conflict('This API key does not exist.');
        default:
          return assertNever(state.status);
      }
    },
  },
  evolve(state: ApiKeyState, e: ApiKeyEvent, meta): ApiKeyState {
    switch (e.type) {
      case 'api_key.created':
        return { ...state, status: 'active', name: e.name, realm: e.realm, scopes: e.scopes, person: e.person ?? null, expires_at: e.expires_at ?? null, created_at: iso(meta.at) };
      case 'api_key.revoked':
        return { ...state, status: 'revoked', revoked_at: iso(meta.at) };
      default:
        return assertNever(e);
    }
  },
  view: apiKeyView,
  // Newest first (ties by id); revoked keys stay in the list (spec 5.2).
  indexes: (s: ApiKeyState) => (s.status === 'none' ? [] : [{ list: 'all', sortKey: sortKeyTime(Date.parse(s.created_at)) }]),
});
