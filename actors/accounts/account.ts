/**
 * Account: the person who registered (spec 2.2 AccountDetail, 4.1). Holds the scrypt hash of the
 * password (never in the view). The account's id is internal (no prefix is named by the spec).
 *
 * status   command   condition  event               next
 * -------  --------  ---------  ------------------  ------
 * (none)   register  -          account.registered  active
 * active   register  -          409 conflict        active
 */
import { defineActor } from '../../runtime/index.ts';
import { assertNever, conflict } from '../../kernel/index.ts';
import type { PasswordHash } from './secrets.ts';

export type AccountStatus = 'none' | 'active';

export interface AccountState {
  id: string;
  org: string;
  status: AccountStatus;
  email: string;
  name: string;
  password: PasswordHash | null;
  created_at: number;
}

interface RegisterCommand {
  email: string;
  name: string;
  password: PasswordHash;
}

type AccountEvent = { type: 'account.registered'; email: string; name: string; password: PasswordHash };

export interface AccountDetail {
  email: string;
  name: string;
}

export const Account = defineActor({
  kind: 'account',
  prefix: 'acct_',
  creates: ['register'],
  initial: (id, org): AccountState => ({ id, org, status: 'none', email: '', name: '', password: null, created_at: 0 }),
  decide: {
    register(state: AccountState, cmd: RegisterCommand): AccountEvent[] {
      switch (state.status) {
        case 'none':
          return [{ type: 'account.registered', email: cmd.email, name: cmd.name, password: cmd.password }];
        case 'active':
          throw conflict('The account is already registered.');
        default:
          return assertNever(state.status);
      }
    },
  },
  evolve(state: AccountState, e: AccountEvent, meta): AccountState {
    switch (e.type) {
      case 'account.registered':
        return { ...state, status: 'active', email: e.email, name: e.name, password: e.password, created_at: meta.at };
      default:
        return assertNever(e.type);
    }
  },
  view: (s: AccountState): AccountDetail => ({ email: s.email, name: s.name }),
});
