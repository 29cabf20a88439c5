/**
 * The access grant operations (spec 4.3 access grants; shape a gap, docs/gaps.md#identity): giving
 * a grantee access to identity's decision about a subject rests on an active consent token of the
 * subject for the purpose (422 consent_token_missing otherwise) and ends no later than it; revoking
 * a grant.
 */
import type { Caller, Platform } from '../../kernel/index.ts';
import { AccessGrant } from './access-grant.ts';
import { sharingConsent, type SharingRequest } from './consent-tokens.ts';

export async function grantAccess(platform: Platform, caller: Caller, id: string, body: SharingRequest & { grantee: string }, dedupeId: string | undefined): Promise<unknown> {
  const { token, ends } = await sharingConsent(platform, caller, body);
  return platform.system.ask(AccessGrant, id, 'grant', { subject_ref: body.subject_ref, grantee: body.grantee, purpose: body.purpose, consent_token_id: token.id, expires_at: ends, livemode: caller.livemode }, { ...caller, dedupeId });
}

export function revokeAccessGrant(platform: Platform, caller: Caller, id: string, dedupeId: string | undefined): Promise<unknown> {
  return platform.system.ask(AccessGrant, id, 'revoke', {}, { ...caller, dedupeId });
}
