/**
 * OAuth client (spec 5.3): "client identifier and secret are issued by the maker on request", so a
 * client is issued only by the operator CLI. It is granted a set of scopes; a token minted with it
 * never carries more. Only the secret's digest is kept.
 *
 * status   command  condition  event                  next
 * -------  -------  ---------  ---------------------  -------
 * (none)   issue    -          oauth_client.issued    active
 * active   revoke   -          oauth_client.revoked   revoked
 * revoked  revoke   -          409 conflict           revoked
 * active,  issue    -          409 conflict           (same)
 * revoked
 */
import { defineActor, iso, sortKeyTime } from '../../runtime/index.ts';
import { assertNever, conflict, type Realm, recordView } from '../../kernel/index.ts';

export type OAuthClientStatus = 'none' | 'active' | 'revoked';

export interface OAuthClientState {
  id: string;
  org: string;
  status: OAuthClientStatus;
  name: string;
  realm: Realm;
  scopes: string[];
  created_at: number;
  revoked_at: number | null;
}

type OAuthClientEvent =
  | { type: 'oauth_client.issued'; name: string; realm: Realm; scopes: string[] }
  | { type: 'oauth_client.revoked' };

export interface OAuthClientView {
  id: string;
  object: 'oauth_client';
  livemode: boolean;
  mocked: false;
  name: string;
  scopes: string[];
  revoked_at: string | null;
  created_at: string;
}

export const OAuthClient = defineActor({
  kind: 'oauth_client',
  prefix: 'client_',
  creates: ['issue'],
  initial: (id, org): OAuthClientState => ({ id, org, status: 'none', name: '', realm: 'test', scopes: [], created_at: 0, revoked_at: null }),
  decide: {
    issue(state: OAuthClientState, cmd: { name: string; realm: Realm; scopes: string[] }): OAuthClientEvent[] {
      switch (state.status) {
        case 'none':
          return [{ type: 'oauth_client.issued', name: cmd.name, realm: cmd.realm, scopes: cmd.scopes }];
        case 'active':
        case 'revoked':
          throw conflict('This client was already issued.');
        default:
          return assertNever(state.status);
      }
    },
    revoke(state: OAuthClientState): OAuthClientEvent[] {
      switch (state.status) {
        case 'active':
          return [{ type: 'oauth_client.revoked' }];
        case 'revoked':
        case 'none':
          throw conflict('This client is not active.');
        default:
          return assertNever(state.status);
      }
    },
  },
  evolve(state: OAuthClientState, e: OAuthClientEvent, meta): OAuthClientState {
    switch (e.type) {
      case 'oauth_client.issued':
        return { ...state, status: 'active', name: e.name, realm: e.realm, scopes: e.scopes, created_at: meta.at };
      case 'oauth_client.revoked':
        return { ...state, status: 'revoked', revoked_at: meta.at };
      default:
        return assertNever(e);
    }
  },
  view: (s: OAuthClientState): OAuthClientView => (recordView('oauth_client', s.id, s.realm === 'live', false, {
    name: s.name,
    scopes: s.scopes,
    revoked_at: s.revoked_at === null ? null : iso(s.revoked_at),
    created_at: iso(s.created_at),
  })),
  indexes: (s: OAuthClientState) => (s.status === 'none' ? [] : [{ list: 'all', sortKey: sortKeyTime(s.created_at) }]),
});
