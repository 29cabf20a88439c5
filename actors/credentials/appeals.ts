/**
 * Appeal operations (spec 3, 4.4; how an appeal is decided is a gap, docs/gaps.md#credentials):
 * filing one against a contradicted verification or a lapsed claim (the record appealed is read
 * first), and a person deciding it once. The appeal's rules are appeal.ts.
 */
import { ApiError, type Caller, createdId, createDedupe, fieldError, type Platform } from '../../kernel/index.ts';
import { Appeal, type AppealOutcome, type AppealState } from './appeal.ts';
import { existing } from './checks.ts';
import { Claim } from './claim.ts';
import { APPEAL_PREFIX, CLAIM_PREFIX, VERIFICATION_PREFIX } from './ids.ts';
import { Verification } from './verification.ts';

export interface AppealBody {
  verification_id?: string;
  claim_id?: string;
  statement: string;
}

/** The subject of the record appealed, once it is found appealable: a contradicted verification or a lapsed claim. */
async function appealedSubject(platform: Platform, caller: Caller, body: AppealBody): Promise<string> {
  if (body.verification_id !== undefined) {
    if (!body.verification_id.startsWith(VERIFICATION_PREFIX)) throw fieldError('/verification_id', 'invalid_id', 'verification_id must name a credential verification.');
    const v = await platform.system.state(Verification, body.verification_id, caller.org);
    if (v.outcome !== 'contradicted') throw new ApiError('conflict', `Credential verification ${v.id} is ${v.outcome}; only a contradicted verification can be appealed.`);
    return v.subject_ref;
  }
  if (!body.claim_id!.startsWith(CLAIM_PREFIX)) throw fieldError('/claim_id', 'invalid_id', 'claim_id must name a competence claim.');
  const c = await platform.system.state(Claim, body.claim_id!, caller.org);
  if (c.decay_state !== 'lapsed') throw new ApiError('conflict', `Claim ${c.id} is ${c.decay_state}; only a lapsed claim can be appealed.`);
  return c.subject_ref;
}

export async function fileAppeal(platform: Platform, caller: Caller, body: AppealBody): Promise<unknown> {
  if ((body.verification_id === undefined) === (body.claim_id === undefined))
    throw fieldError('/verification_id', 'one_of', 'Name either verification_id (a contradicted verification) or claim_id (a lapsed claim).');
  const id = createdId(caller, APPEAL_PREFIX);
  if (await existing<AppealState>(platform, Appeal, id, caller.org)) return platform.system.get(Appeal, id, caller.org);
  const subject = await appealedSubject(platform, caller, body);
  return platform.system.ask(Appeal, id, 'file', {
    subject_ref: subject, ground: body.verification_id !== undefined ? 'contradiction' : 'lapse', verification_id: body.verification_id ?? null, claim_id: body.claim_id ?? null,
    statement: body.statement, livemode: caller.livemode,
  }, { ...caller, dedupeId: createDedupe(caller) });
}

/** A person decides an open appeal once (upheld or dismissed, with a reason); the decision is never edited. */
export async function decideAppeal(platform: Platform, caller: Caller, id: string, body: { outcome: AppealOutcome; reason: string }): Promise<unknown> {
  return platform.system.ask(Appeal, id, 'decide', body, caller);
}
