/** Helpers the credentials HTTP tests share: consent tokens and live passports through identity's routes. */
import type { Harness } from '../../support/http.ts';

let n = 0;
export const ik = (what: string) => `${what}-${process.pid}-${++n}`;
export const subjectRef = (what = 'subj') => `${what}-${process.pid}-${++n}`;

/** An active consent token for the subject and purpose (identity, spec 2.4). */
export async function consent(h: Harness, subject: string, purpose = 'credential_verification', checks = ['government_identifier', 'name_match', 'date_of_birth_match']): Promise<string> {
  const r = await h.request('POST', '/v1/identity/consent_tokens', { body: { subject_ref: subject, purpose, checks, wording_version: 'cv-2026-11' }, idempotencyKey: ik('consent') });
  if (r.status !== 201) throw new Error(`consent token: ${r.status} ${r.text}`);
  return r.body.id;
}

/** A live passport for the subject: the identity sandbox resolves NIN 70123456789 with any name and date of birth. */
export async function livePassport(h: Harness, subject: string): Promise<string> {
  const token = await consent(h, subject, 'employment_verification');
  const r = await h.request('POST', '/v1/identity/verifications', {
    body: { subject_ref: subject, consent_token_id: token, claims: { full_name: 'Chiamaka Okafor', date_of_birth: '1994-05-17', government_identifier: '70123456789' } },
    idempotencyKey: ik('idv'),
  });
  if (r.status !== 201 || r.body.outcome !== 'resolved') throw new Error(`identity verification: ${r.status} ${r.text}`);
  await h.platform.system.settle();
  return r.body.passport_id;
}

export async function verify(h: Harness, body: Record<string, unknown>, key = ik('cv')) {
  return h.request('POST', '/v1/credentials/verifications', { body, idempotencyKey: key });
}

/** Every event of the credentials module's list, in sequence order (paged with starting_after). */
export async function allEvents(h: Harness): Promise<{ id: string; type: string; source: string; data: any }[]> {
  const out: { id: string; type: string; source: string; data: any }[] = [];
  for (let after = ''; ; ) {
    const r = await h.request('GET', `/v1/credentials/events?limit=100${after ? `&starting_after=${after}` : ''}`);
    out.push(...r.body.data);
    if (!r.body.has_more || r.body.data.length === 0) return out;
    after = r.body.data[r.body.data.length - 1].id;
  }
}
