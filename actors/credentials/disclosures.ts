/**
 * Disclosure operations (spec 1 rule 7, 4.4 POST /v1/credentials/disclosures and .../revoke, 7):
 * a subject's claims (a wallet, or claim ids, each checked) shown to a recipient under an active
 * consent token of the subject whose purpose the policy pack lists for disclosures (422
 * consent_token_missing otherwise); and revoking one. The disclosure's rules are disclosure.ts.
 */
import { type Caller, createdId, createDedupe, fieldError, type Platform } from '../../kernel/index.ts';
import { existing, requireConsent } from './checks.ts';
import { Disclosure } from './disclosure.ts';
import { DISCLOSURE_PREFIX, WALLET_PREFIX } from './ids.ts';
import { credentialsService } from './service.ts';
import { Wallet, type WalletState } from './wallet.ts';
import { checkClaims } from './wallets.ts';

export interface DisclosureBody {
  subject_ref: string;
  consent_token_id?: string;
  recipient: string;
  wallet_id?: string;
  claim_ids?: string[];
}

/** The claims a disclosure shows: its wallet's, or the ones it names, each checked. */
async function disclosedClaims(platform: Platform, caller: Caller, body: DisclosureBody): Promise<string[]> {
  if ((body.wallet_id === undefined) === (body.claim_ids === undefined)) throw fieldError('/wallet_id', 'one_of', 'Name either wallet_id or claim_ids.');
  if (body.wallet_id === undefined) {
    await checkClaims(platform, caller.org, body.subject_ref, body.claim_ids!, '/claim_ids');
    return body.claim_ids!;
  }
  const w = body.wallet_id.startsWith(WALLET_PREFIX) ? await existing<WalletState>(platform, Wallet, body.wallet_id, caller.org) : undefined;
  if (!w) throw fieldError('/wallet_id', 'unknown_wallet', `No wallet ${body.wallet_id.slice(0, 80)}.`);
  if (w.subject_ref !== body.subject_ref) throw fieldError('/wallet_id', 'other_subject', `Wallet ${w.id} is another subject's.`);
  return w.claim_ids;
}

export async function createDisclosure(platform: Platform, caller: Caller, body: DisclosureBody): Promise<unknown> {
  const claimIds = await disclosedClaims(platform, caller, body);
  const { policy } = credentialsService(platform);
  const token = await requireConsent(platform, caller.org, body.subject_ref, body.consent_token_id, policy.pack.consent.disclosure_purposes, 'a disclosure');
  const id = createdId(caller, DISCLOSURE_PREFIX);
  return platform.system.ask(Disclosure, id, 'create', {
    subject_ref: body.subject_ref, wallet_id: body.wallet_id ?? null, claim_ids: claimIds, recipient: body.recipient, purpose: token.purpose, consent_token_id: token.id, livemode: caller.livemode,
  }, { ...caller, dedupeId: createDedupe(caller) });
}

export async function revokeDisclosure(platform: Platform, caller: Caller, id: string): Promise<unknown> {
  return platform.system.ask(Disclosure, id, 'revoke', {}, caller);
}
