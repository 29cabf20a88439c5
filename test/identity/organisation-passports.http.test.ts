/**
 * Organisation passports (spec 2.4 Passport: "what every module checks is live before acting";
 * spec 3 Engagement: both parties need a live passport; rules 7 and 8; docs/gaps.md#identity
 * "Organisation passports"): an organisation is verified by its corporate registry number (the
 * sandbox CAC registry's test values: last digit), its registered name and its directors, each
 * verified as a person, under a consent token of the organisation as for a person.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { identityGate } from '../../actors/identity/index.ts';
import { startHarness, type Harness } from '../../support/http.ts';
import { consent, ik, livePassport, subject, verify } from './support.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const ORG_CHECKS = ['corporate_registry', 'name_match', 'directors_identity'];
const BUSINESS = 'Adeyemi Logistics Limited';

async function verifyOrganisation(registration: string, directors: string[], orgRef = subject('org')) {
  const t = await consent(h, orgRef, { purpose: 'business_verification', checks: ORG_CHECKS });
  const r = await verify(h, { subject_ref: orgRef, consent_token_id: t.id, claims: { business_registration_number: registration, business_name: BUSINESS, directors } });
  return { orgRef, r };
}

describe('organisation passports (spec 2.4, 3; docs/gaps.md#identity "Organisation passports")', () => {
  it('an organisation reaches a live dal_2 passport: registry found under its name, every director a verified person, consent of the organisation', async () => {
    const director = (await livePassport(h)).subjectRef;
    const { orgRef, r } = await verifyOrganisation('RC1234560', [director]);
    expect(r.status, r.text).toBe(201);
    expect(r.body).toMatchObject({ outcome: 'resolved', assurance_reached: 'dal_2', subject_ref: orgRef, purpose: 'business_verification' });
    expect(identityGate(h.platform).isLive(h.org, orgRef)).toBe(true);
    const passport = (await h.request('GET', `/v1/identity/passports/${r.body.passport_id}`)).body;
    expect(passport).toMatchObject({ subject_ref: orgRef, live: true, assurance_level: 'dal_2' });
    const bundle = (await h.request('GET', `/v1/identity/verifications/${r.body.id}/evidence_bundle`)).body;
    const said = Object.fromEntries(bundle.sources.map((s: { source: string; check: string; said: string }) => [`${s.source}/${s.check}`, s.said]));
    expect(said).toMatchObject({ 'sandbox_cac_registry/corporate_registry': 'found', [`director:${director}/directors_identity`]: 'director_verified' });
  });

  it.each([
    ['RC1234561', 'not found', { outcome: 'pending', pending_reason: 'review_required' }, 'not_found'],
    ['RC1234563', 'silent (time-out)', { outcome: 'unresolved', unresolved_source: 'sandbox_cac_registry' }, null],
    ['RC1234565', 'found under another name', { outcome: 'pending', pending_reason: 'review_required' }, 'name_no_match'],
    ['1234566', 'found (digits alone, as Smile ID\u2019s CAC format)', { outcome: 'resolved', assurance_reached: 'dal_2' }, null],
  ])('sandbox registry test value %s answers %s (rule 8: silence is unresolved, not found is an answer)', async (registration, _what, expected, finding) => {
    const director = (await livePassport(h)).subjectRef;
    const { orgRef, r } = await verifyOrganisation(registration, [director]);
    expect(r.body).toMatchObject(expected);
    if (finding) expect(r.body.findings).toContain(finding);
    expect(identityGate(h.platform).isLive(h.org, orgRef)).toBe(expected.outcome === 'resolved');
  });

  it('a slow registry (ends in 7) keeps it pending until its answer is collected, then resolves (spec 3 pending)', async () => {
    const director = (await livePassport(h)).subjectRef;
    const { orgRef, r } = await verifyOrganisation('RC1234567', [director]);
    expect(r.body).toMatchObject({ outcome: 'pending', pending_reason: 'awaiting_source' });
    await h.clock.advance(60_000);
    await h.platform.system.settle();
    await h.clock.advance(60_000);
    await h.platform.system.settle();
    expect((await h.request('GET', `/v1/identity/verifications/${r.body.id}`)).body).toMatchObject({ outcome: 'resolved', assurance_reached: 'dal_2' });
    expect(identityGate(h.platform).isLive(h.org, orgRef)).toBe(true);
  });

  it('every director must be verified as a person: one without a live passport leaves the organisation pending review, with no passport', async () => {
    const verified = (await livePassport(h)).subjectRef;
    const unverified = subject('director');
    const { orgRef, r } = await verifyOrganisation('RC7654320', [verified, unverified]);
    expect(r.body).toMatchObject({ outcome: 'pending', pending_reason: 'review_required', passport_id: null });
    expect(r.body.findings).toContain('director_passport_not_live');
    expect(identityGate(h.platform).isLive(h.org, orgRef)).toBe(false);
  });

  it('consent as for persons: no token is 422 consent_token_missing; a token without the organisation checks blocks with consent_scope_insufficient (rule 7)', async () => {
    const director = (await livePassport(h)).subjectRef;
    const orgRef = subject('org');
    const none = await verify(h, { subject_ref: orgRef, claims: { business_registration_number: 'RC1234560', business_name: BUSINESS, directors: [director] } });
    expect({ status: none.status, code: none.body.error?.code }).toEqual({ status: 422, code: 'consent_token_missing' });
    const narrow = await consent(h, orgRef, { purpose: 'business_verification', checks: ['corporate_registry'] });
    const r = await verify(h, { subject_ref: orgRef, consent_token_id: narrow.id, claims: { business_registration_number: 'RC1234560', business_name: BUSINESS, directors: [director] } });
    expect(r.body).toMatchObject({ outcome: 'blocked', blocked_because: 'consent_scope_insufficient' });
  });

  it('an organisation\u2019s claims are its own: person claims beside a registration number, a bad number, or no name and directors are 400 naming each field', async () => {
    const orgRef = subject('org');
    const t = await consent(h, orgRef, { purpose: 'business_verification', checks: ORG_CHECKS });
    const r = await h.request('POST', '/v1/identity/verifications', {
      body: { subject_ref: orgRef, consent_token_id: t.id, claims: { business_registration_number: 'XX12', government_identifier: '70123456789' } },
      idempotencyKey: ik('org-bad'),
    });
    expect(r.status).toBe(400);
    const fields = r.body.error.validation.entries.map((e: { field: string; code: string }) => `${e.field} ${e.code}`);
    expect(fields).toEqual(expect.arrayContaining([
      '/claims/business_registration_number invalid_format',
      '/claims/government_identifier not_an_organisation_claim',
      '/claims/business_name required',
      '/claims/directors required',
    ]));
  });

  it('GET /v1/identity/sources lists the sandbox corporate registry with its documented test values', async () => {
    const r = await h.request('GET', '/v1/identity/sources');
    const cac = r.body.data.find((s: { id: string }) => s.id === 'sandbox_cac_registry');
    expect(cac).toMatchObject({ check: 'corporate_registry', mocked: true, state: 'available' });
    expect(cac.test_values.map((v: { value: string }) => v.value).join(' | ')).toContain('ends in 3');
  });
});
