/**
 * An organisation as engaging party (spec 3 Engagement: both parties need a live passport before
 * anything executes; spec 2.4 Passport; docs/gaps.md#identity "Organisation passports") and what
 * a waiting engagement says it waits for (docs/gaps.md "next_action", #engagements), through a
 * real socket.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { identityGate } from '../../actors/identity/index.ts';
import { startHarness, type Harness } from '../../support/http.ts';
import { EMPLOYMENT_FACTS, livePassport, post, subject } from './support.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const E = (id: string) => `/v1/rail/engagements/${id}`;
const get = (path: string) => h.request('GET', path);

/** The organisation's verification: a director verified as a person, then the business under the organisation's own consent. */
async function verifyOrganisation(orgRef: string) {
  const director = subject('director');
  await livePassport(h, director);
  const token = await post(h, '/v1/identity/consent_tokens', { subject_ref: orgRef, purpose: 'business_verification', checks: ['corporate_registry', 'name_match', 'directors_identity'], wording_version: 'v1' });
  expect(token.status, token.text).toBe(201);
  const v = await post(h, '/v1/identity/verifications', { subject_ref: orgRef, consent_token_id: token.body.id, claims: { business_registration_number: 'RC1234560', business_name: 'Okafor Security Services Limited', directors: [director] } });
  expect(v.body.outcome, v.text).toBe('resolved');
  await h.platform.system.settle();
}

describe('an organisation reaches a live passport and executes an engagement as engaging party (spec 3, 2.4)', () => {
  it('the 409 names the organisation passport path; once verified the organisation assents and the engagement executes; next_action follows each wait', async () => {
    const orgRef = h.org;
    const worker = subject('worker');
    await livePassport(h, worker);
    const opened = await post(h, '/v1/rail/engagements', { engaging_party_ref: orgRef, worker_ref: worker, starts_on: '2026-01-05', ends_on: null, facts: EMPLOYMENT_FACTS });
    expect(opened.status, opened.text).toBe(201);
    const id = opened.body.id as string;
    expect((await get(E(id))).body.next_action).toMatchObject({ code: 'paper_engagement', call: { method: 'POST', path: `${E(id)}/paper` } });

    // paper answers with the instrument it drafted, awaiting assent
    const papered = await post(h, `${E(id)}/paper`, { template_code: 'ng_contract_of_employment' });
    expect(papered.status, papered.text).toBe(200);
    const instrument = papered.body.papered_instrument;
    expect(instrument).toMatchObject({ object: 'instrument', engagement_id: id, status: 'awaiting_assent', template_code: 'ng_contract_of_employment' });
    expect(papered.body.papered_instrument_id).toBe(instrument.id);
    expect(papered.body.next_action).toMatchObject({ code: 'verify_party_identity', call: { method: 'POST', path: '/v1/identity/verifications' }, details: { subject_refs: [orgRef], parties: ['engaging_party'] } });

    // without its passport the organisation's assent is refused, and the refusal says how it gets one
    const refused = await post(h, `${E(id)}/instruments/${instrument.id}/assents`, { party: 'engaging_party', subject_ref: orgRef });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('conflict');
    for (const words of ['POST /v1/identity/verifications', 'business_registration_number', 'directors', 'business_verification']) expect(refused.body.error.message).toContain(words);

    await verifyOrganisation(orgRef);
    expect(identityGate(h.platform).isLive(h.org, orgRef)).toBe(true);
    expect((await get(E(id))).body.next_action).toMatchObject({ code: 'awaiting_assent', details: { instrument_id: instrument.id, parties: ['worker', 'engaging_party'] } });

    for (const [party, ref] of [['engaging_party', orgRef], ['worker', worker]]) {
      const a = await post(h, `${E(id)}/instruments/${instrument.id}/assents`, { party, subject_ref: ref });
      expect(a.status, a.text).toBe(201);
    }
    expect((await get(E(id))).body.next_action).toMatchObject({ code: 'execute_instrument', call: { method: 'POST', path: `${E(id)}/instruments/${instrument.id}/execute` } });

    const executed = await post(h, `${E(id)}/execute`);
    expect(executed.status, executed.text).toBe(200);
    expect(executed.body).toMatchObject({ status: 'executed', instrument_in_force_id: instrument.id, next_action: { code: 'activate_engagement' } });
    const activated = await post(h, `${E(id)}/activate`);
    expect(activated.body).toMatchObject({ status: 'current', next_action: null });
  });

  it('next_action names the party whose passport went: a lapsed engagement waits for verify_party_identity (spec 3 lapse of standing)', async () => {
    const employer = subject('employer');
    const worker = subject('worker');
    await livePassport(h, employer);
    await livePassport(h, worker);
    const opened = await post(h, '/v1/rail/engagements', { engaging_party_ref: employer, worker_ref: worker, starts_on: '2026-01-05', ends_on: null, facts: EMPLOYMENT_FACTS });
    const id = opened.body.id as string;
    const papered = await post(h, `${E(id)}/paper`, { template_code: 'ng_contract_of_employment' });
    const instrumentId = papered.body.papered_instrument.id as string;
    for (const [party, ref] of [['engaging_party', employer], ['worker', worker]]) await post(h, `${E(id)}/instruments/${instrumentId}/assents`, { party, subject_ref: ref });
    expect((await post(h, `${E(id)}/execute`)).status).toBe(200);
    expect((await post(h, `${E(id)}/activate`)).body.status).toBe('current');
    const block = await post(h, '/v1/identity/blocklist_entries', { subject_ref: worker, reason: 'Forged credential confirmed.' });
    expect([200, 201]).toContain(block.status);
    await h.platform.system.settle();
    const e = (await get(E(id))).body;
    expect(e.status).toBe('lapsed');
    expect(e.next_action).toMatchObject({ code: 'verify_party_identity', details: { subject_refs: [worker], parties: ['worker'] } });
  });
});
