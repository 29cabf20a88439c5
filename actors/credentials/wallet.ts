/**
 * Wallet (credentials). Spec 4.4 (GET and POST /v1/credentials/wallets, GET /{wallet_id}); its
 * fields are not shown (docs/gaps.md#credentials). A subject's portable set of claims: the claims
 * named when it was made, each read as it stands now (a lapsed claim shows lapsed and downgraded).
 * A wallet is not edited; another set is another wallet.
 *
 * status   command  condition  event           next
 * -------  -------  ---------  --------------  ------
 * (none)   create   -          wallet.created  active
 * active   create   -          -               active
 */
import { defineActor, type IndexEntry, iso, sortKeyTime } from '../../runtime/index.ts';
import { recordView } from '../../kernel/index.ts';
import { WALLET_PREFIX } from './ids.ts';

export interface CreateWallet {
  subject_ref: string;
  claim_ids: string[];
  livemode: boolean;
}

export interface WalletState extends CreateWallet {
  id: string;
  org: string;
  created_at: number;
}

export type WalletEvent = { type: 'wallet.created' } & CreateWallet;

export const Wallet = defineActor({
  kind: 'credentials_wallet',
  prefix: WALLET_PREFIX,
  creates: ['create'],
  initial: (id: string, org: string): WalletState => ({ id, org, subject_ref: '', claim_ids: [], livemode: false, created_at: 0 }),
  decide: {
    create(_s: WalletState, cmd: CreateWallet, ctx): WalletEvent[] {
      return ctx.version > 0 ? [] : [{ type: 'wallet.created', ...cmd }];
    },
  },
  evolve(s: WalletState, e: WalletEvent, meta): WalletState {
    return { ...s, subject_ref: e.subject_ref, claim_ids: e.claim_ids, livemode: e.livemode, created_at: meta.at };
  },
  view: (s: WalletState) => (recordView('wallet', s.id, s.livemode, false, {
    subject_ref: s.subject_ref,
    claim_ids: s.claim_ids,
    created_at: iso(s.created_at),
  })),
  indexes(s: WalletState): IndexEntry[] {
    const k = sortKeyTime(s.created_at);
    return [
      { list: 'all', sortKey: k },
      { list: `subject:${s.subject_ref}`, sortKey: k },
    ];
  },
});
