/**
 * Wallet operations (spec 4.4 GET and POST /v1/credentials/wallets, GET /{wallet_id}; fields a gap,
 * docs/gaps.md#credentials): a wallet names claims of one subject of the organisation, each checked;
 * read, it shows each claim as it stands now. The wallet's rules are wallet.ts.
 */
import { type Caller, createdId, createDedupe, errorEntry, type Platform, type ValidationEntry } from '../../kernel/index.ts';
import { existing, refuseIf } from './checks.ts';
import { Claim, type ClaimState } from './claim.ts';
import { CLAIM_PREFIX, WALLET_PREFIX } from './ids.ts';
import { Wallet } from './wallet.ts';

/** Every claim id must be a claim of this organisation and subject; entries name each one that is not. */
export async function checkClaims(platform: Platform, org: string, subjectRef: string, ids: readonly string[], field: string): Promise<void> {
  const entries: ValidationEntry[] = [];
  const seen = new Set<string>();
  for (const [i, id] of ids.entries()) {
    const at = `${field}/${i}`;
    if (seen.has(id)) {
      entries.push(errorEntry(at, 'duplicate', `${id.slice(0, 80)} is named twice.`, i + 1));
      continue;
    }
    seen.add(id);
    const s = id.startsWith(CLAIM_PREFIX) ? await existing<ClaimState>(platform, Claim, id, org) : undefined;
    if (!s) entries.push(errorEntry(at, 'unknown_claim', `No competence claim ${id.slice(0, 80)}.`, i + 1));
    else if (s.subject_ref !== subjectRef) entries.push(errorEntry(at, 'other_subject', `Claim ${id} is another subject's.`, i + 1));
  }
  refuseIf(entries, ids.length);
}

export async function createWallet(platform: Platform, caller: Caller, body: { subject_ref: string; claim_ids: string[] }): Promise<unknown> {
  await checkClaims(platform, caller.org, body.subject_ref, body.claim_ids, '/claim_ids');
  const id = createdId(caller, WALLET_PREFIX);
  await platform.system.ask(Wallet, id, 'create', { subject_ref: body.subject_ref, claim_ids: body.claim_ids, livemode: caller.livemode }, { ...caller, dedupeId: createDedupe(caller) });
  return walletView(platform, caller.org, id);
}

/** A wallet with each of its claims as it stands now. */
export async function walletView(platform: Platform, org: string, id: string): Promise<unknown> {
  const { system } = platform;
  const w = await system.state(Wallet, id, org);
  const view = (await system.get(Wallet, id, org)) as Record<string, unknown>;
  const claims = await Promise.all(w.claim_ids.map((c) => system.get(Claim, c, org)));
  return { ...view, claims };
}
