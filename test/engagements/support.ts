/** Shared steps of the engagements tests: live passports through the identity API, engagements through the rail API. */
import { expect } from 'vitest';
import type { Harness } from '../../support/http.ts';

let n = 0;
const ik = (what: string) => `${what}-${process.pid}-${++n}`;

export const post = (h: Harness, path: string, body: unknown = {}, key?: string) => h.request('POST', path, { body, idempotencyKey: ik('rail'), key });

/** Employment-side facts (a guard paid wages, supervised, with the employer's tools). */
export const EMPLOYMENT_FACTS = { control: 'engaging_party', integration: 'integral', economic_dependence: 'single_party', tools: 'engaging_party', delegation: 'not_permitted', payment_form: 'wage_or_salary', duration: 'open_ended' };
/** Contractor-side facts (an installer with their own business, tools and invoices). */
export const CONTRACTOR_FACTS = { control: 'worker', integration: 'separate_business', economic_dependence: 'many_parties', tools: 'worker', delegation: 'freely', payment_form: 'fee_on_invoice', duration: 'open_ended' };

export const subject = (what: string) => `${what}_${process.pid}_${++n}`;

/** Gives the subject a live passport (sandbox NIN 70123456789 resolves at dal_2). */
export async function livePassport(h: Harness, subjectRef: string): Promise<string> {
  const token = await h.request('POST', '/v1/identity/consent_tokens', {
    idempotencyKey: ik('consent'),
    body: { subject_ref: subjectRef, purpose: 'employment_verification', checks: ['government_identifier', 'name_match', 'date_of_birth_match'], wording_version: 'v1' },
  });
  expect([200, 201], token.text).toContain(token.status);
  const v = await h.request('POST', '/v1/identity/verifications', {
    idempotencyKey: ik('verify'),
    body: { subject_ref: subjectRef, consent_token_id: token.body.id, claims: { full_name: 'Chidi Okafor', date_of_birth: '1990-04-12', government_identifier: '70123456789' } },
  });
  expect([200, 201], v.text).toContain(v.status);
  expect(v.body.outcome).toBe('resolved');
  await h.platform.system.settle();
  return v.body.passport_id as string;
}

/** Ends the subject's passport by a blocklist entry. */
export async function blocklist(h: Harness, subjectRef: string) {
  const r = await h.request('POST', '/v1/identity/blocklist_entries', { idempotencyKey: ik('block'), body: { subject_ref: subjectRef, reason: 'Forged credential confirmed.' } });
  expect([200, 201], r.text).toContain(r.status);
  return r.body;
}

export interface Parties {
  employer: string;
  worker: string;
}

export async function parties(h: Harness, live = true): Promise<Parties> {
  const p = { employer: subject('employer'), worker: subject('worker') };
  if (live) {
    await livePassport(h, p.employer);
    await livePassport(h, p.worker);
  }
  return p;
}

export async function openEngagement(h: Harness, p: Parties, over: Record<string, unknown> = {}) {
  const r = await post(h, '/v1/rail/engagements', { engaging_party_ref: p.employer, worker_ref: p.worker, starts_on: '2026-01-05', ends_on: null, facts: EMPLOYMENT_FACTS, ...over });
  expect(r.status, r.text).toBe(201);
  return r.body;
}

/** Opens, papers with the employment template and has both parties assent; returns the engagement and its instrument. */
export async function awaitingExecution(h: Harness, p: Parties, over: Record<string, unknown> = {}, template = 'ng_contract_of_employment') {
  const e = await openEngagement(h, p, over);
  const papered = await post(h, `/v1/rail/engagements/${e.id}/paper`, { template_code: template });
  expect(papered.status, papered.text).toBe(200);
  const list = await h.request('GET', `/v1/rail/instruments?engagement_id=${e.id}`);
  const instrument = list.body.data[0];
  expect(papered.body.papered_instrument_id).toBe(instrument.id); // paper names what it drafted
  for (const [party, ref] of [['engaging_party', p.employer], ['worker', p.worker]]) {
    const a = await post(h, `/v1/rail/engagements/${e.id}/instruments/${instrument.id}/assents`, { party, subject_ref: ref });
    expect(a.status, a.text).toBe(201);
  }
  return { engagement: e, instrument };
}

export async function executed(h: Harness, p: Parties, over: Record<string, unknown> = {}) {
  const { engagement, instrument } = await awaitingExecution(h, p, over);
  const r = await post(h, `/v1/rail/engagements/${engagement.id}/instruments/${instrument.id}/execute`);
  expect(r.status, r.text).toBe(200);
  return { engagement, instrument: r.body };
}

export async function current(h: Harness, p: Parties, over: Record<string, unknown> = {}) {
  const x = await executed(h, p, over);
  const r = await post(h, `/v1/rail/engagements/${x.engagement.id}/activate`);
  expect(r.status, r.text).toBe(200);
  expect(r.body.status).toBe('current');
  return x;
}
