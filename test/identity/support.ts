/** Helpers of the identity tests: consent tokens, verifications and subjects over the real gateway. */
import type { Harness, RequestOptions } from '../../support/http.ts';

let n = 0;
export const ik = (what: string) => `${what}-${process.pid}-${++n}`;
export const subject = (what = 'subject') => `${what}_${process.pid}_${++n}`;

/** Sandbox identifiers (actors/identity/providers/sandbox.ts): the last digit picks the answer. */
export const NIN = { match: '70123456789', notFound: '70123456781', dobDiffers: '70123456782', silent: '70123456783', nameDiffers: '70123456785', slow: '70123456787' };
export const PHONE = { reachable: '+2348012345678', unreachable: '+2348012345671', silent: '08012345673' };
export const CLAIMS = { full_name: 'Adaeze Okafor', date_of_birth: '1990-01-01' };
export const FULL_CHECKS = ['government_identifier', 'name_match', 'date_of_birth_match', 'contactability'];

export async function consent(h: Harness, subjectRef: string, over: Record<string, unknown> = {}, o: RequestOptions = {}) {
  const r = await h.request('POST', '/v1/identity/consent_tokens', {
    body: { subject_ref: subjectRef, purpose: 'employment_verification', checks: FULL_CHECKS, wording_version: 'ng-consent-2026-11', ...over },
    idempotencyKey: ik('consent'),
    ...o,
  });
  if (r.status !== 201) throw new Error(`consent: ${r.status} ${r.text}`);
  return r.body as { id: string; status: string };
}

export function verify(h: Harness, body: Record<string, unknown>, o: RequestOptions = {}) {
  return h.request('POST', '/v1/identity/verifications', { body, idempotencyKey: ik('verify'), ...o });
}

/** A subject with a live dal_2 passport. */
export async function livePassport(h: Harness, subjectRef = subject(), o: RequestOptions = {}) {
  const t = await consent(h, subjectRef, {}, o);
  const r = await verify(h, { subject_ref: subjectRef, consent_token_id: t.id, claims: { ...CLAIMS, government_identifier: NIN.match, phone: PHONE.reachable } }, o);
  if (r.body.outcome !== 'resolved') throw new Error(`expected resolved: ${r.text}`);
  return { subjectRef, token: t, verification: r.body, passportId: r.body.passport_id as string };
}
