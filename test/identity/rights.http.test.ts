/** Disclosures, subject requests, access grants, batches, sources, readiness and the gating contract (spec 1 rule 6, 4.3; NDPA in reference 1.7). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { identityGate } from '../../actors/identity/index.ts';
import { startHarness, type Harness } from '../../support/http.ts';
import { CLAIMS, consent, ik, livePassport, NIN, PHONE, subject } from './support.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const post = (path: string, body: unknown) => h.request('POST', path, { body, idempotencyKey: ik('post') });
const DAY = 86_400_000;

describe('disclosures (spec 4.3, 7: 422 consent_token_missing)', () => {
  it('need an active consent token of the subject for the purpose; revoke twice is 409; reconcile finds those whose consent went', async () => {
    const { subjectRef, passportId } = await livePassport(h);
    const t = await consent(h, subjectRef, { purpose: 'employment_verification' });
    const none = await post('/v1/identity/disclosures', { subject_ref: subjectRef, consent_token_id: 'anchor_pro_consent_nothere', recipient: 'employer_ref_9', purpose: 'employment_verification' });
    expect(none.status).toBe(422);
    expect(none.body.error.code).toBe('consent_token_missing');
    const absent = await post('/v1/identity/disclosures', { subject_ref: subjectRef, recipient: 'employer_ref_9', purpose: 'employment_verification' });
    expect({ status: absent.status, code: absent.body.error.code }).toEqual({ status: 422, code: 'consent_token_missing' }); // none at all: 422, not 400 required (spec 7)
    const wrongPurpose = await post('/v1/identity/disclosures', { subject_ref: subjectRef, consent_token_id: t.id, recipient: 'employer_ref_9', purpose: 'marketing' });
    expect(wrongPurpose.status).toBe(422);
    const d = await post('/v1/identity/disclosures', { subject_ref: subjectRef, consent_token_id: t.id, recipient: 'employer_ref_9', purpose: 'employment_verification' });
    expect(d.status).toBe(201);
    expect(d.body).toMatchObject({ object: 'disclosure', status: 'active', disclosed: { passport_id: passportId, passport_live: true, assurance_level: 'dal_2' } });
    expect(JSON.stringify(d.body)).not.toContain(NIN.match);
    await post(`/v1/identity/consent_tokens/${t.id}/revoke`, {});
    const rec = await h.request('GET', '/v1/identity/disclosures/reconcile');
    expect(rec.body.mismatches.find((m: { disclosure_id: string }) => m.disclosure_id === d.body.id)).toMatchObject({ issues: ['consent_not_active'], action: 'revoke' });
    expect((await post(`/v1/identity/disclosures/${d.body.id}/revoke`, {})).body.status).toBe('revoked');
    expect((await post(`/v1/identity/disclosures/${d.body.id}/revoke`, {})).status).toBe(409);
    expect((await h.request('GET', `/v1/identity/disclosures/${d.body.id}`)).body.status).toBe('revoked');
  });
});

describe('subject requests (NDPA ss.34-38; reference 1.7)', () => {
  it('access is answered at once with what identity holds, identifiers masked, with a due date from the policy pack', async () => {
    const { subjectRef } = await livePassport(h);
    const r = await post('/v1/identity/subject_requests', { subject_ref: subjectRef, kind: 'access' });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ object: 'subject_request', kind: 'access', status: 'completed', overdue: false });
    expect(Date.parse(r.body.due_at) - h.clock.now()).toBe(30 * DAY);
    const copy = JSON.stringify(r.body.response);
    expect(copy).toContain('*******6789');
    expect(copy).not.toContain(NIN.match);
    expect(r.body.response.passport.live).toBe(true);
  });

  it('erasure removes personal data, ends the passport, and keeps the decision records', async () => {
    const { subjectRef, verification, passportId } = await livePassport(h);
    const r = await post('/v1/identity/subject_requests', { subject_ref: subjectRef, kind: 'erasure' });
    expect(r.body).toMatchObject({ status: 'completed', response: { erased: { verifications: 1 } } });
    await h.platform.system.settle();
    expect(identityGate(h.platform).isLive(h.org, subjectRef)).toBe(false);
    const p = (await h.request('GET', `/v1/identity/passports/${passportId}`)).body;
    expect(p).toMatchObject({ live: false, ended_because: ['erased'] });
    const bundle = (await h.request('GET', `/v1/identity/verifications/${verification.id}/evidence_bundle`)).body;
    expect(bundle.personal_data_erased).toBe(true);
    expect(bundle.sources.every((s: { identifier_shown: unknown }) => s.identifier_shown === null)).toBe(true);
    expect((await h.request('GET', `/v1/identity/verifications/${verification.id}`)).body.outcome).toBe('resolved');
  });

  it('a rectification waits for a person, turns overdue by the clock, and a person completes it', async () => {
    const s = subject();
    const r = await post('/v1/identity/subject_requests', { subject_ref: s, kind: 'rectification', detail: 'Surname changed.' });
    expect(r.body).toMatchObject({ status: 'received', overdue: false });
    await h.clock.advance(30 * DAY);
    await h.platform.system.settle();
    expect((await h.request('GET', `/v1/identity/subject_requests/${r.body.id}`)).body.overdue).toBe(true);
    const done = await post(`/v1/identity/subject_requests/${r.body.id}/complete`, { outcome: 'completed', reason: 'Record updated from the marriage certificate.' });
    expect(done.body).toMatchObject({ status: 'completed', decision: { reason: 'Record updated from the marriage certificate.' } });
    expect((await post(`/v1/identity/subject_requests/${r.body.id}/complete`, { outcome: 'refused', reason: 'x' })).status).toBe(409);
  });
});

describe('access grants (spec 4.3)', () => {
  it('need the subject\u2019s active consent for the purpose, expire by the clock and can be revoked once', async () => {
    const s = subject();
    const t = await consent(h, s, { purpose: 'onboarding' });
    expect((await post('/v1/identity/access_grants', { subject_ref: s, consent_token_id: t.id, grantee: 'org_partner_ref', purpose: 'employment_verification' })).status).toBe(422);
    const g = await post('/v1/identity/access_grants', { subject_ref: s, consent_token_id: t.id, grantee: 'org_partner_ref', purpose: 'onboarding', expires_at: new Date(h.clock.now() + DAY).toISOString() });
    expect(g.status).toBe(201);
    expect(g.body).toMatchObject({ object: 'access_grant', status: 'active', grantee: 'org_partner_ref' });
    await h.clock.advance(DAY);
    await h.platform.system.settle();
    expect((await h.request('GET', `/v1/identity/access_grants/${g.body.id}`)).body.status).toBe('expired');
    expect((await post(`/v1/identity/access_grants/${g.body.id}/revoke`, {})).status).toBe(409);
  });
});

describe('verification batches (spec 4.3)', () => {
  it('report each subject: its verification and outcome, or the refusal it met', async () => {
    const a = subject();
    const b = subject();
    const ta = await consent(h, a);
    const tb = await consent(h, b);
    const r = await post('/v1/identity/verification_batches', {
      items: [
        { subject_ref: a, consent_token_id: ta.id, claims: { ...CLAIMS, government_identifier: NIN.match } },
        { subject_ref: b, consent_token_id: tb.id, claims: { ...CLAIMS, government_identifier: NIN.silent, phone: PHONE.reachable } },
        { subject_ref: b, consent_token_id: 'anchor_pro_consent_missing', claims: { government_identifier: NIN.match } },
        { subject_ref: a, consent_token_id: ta.id, claims: { government_identifier: '12' } },
      ],
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ object: 'verification_batch', item_count: 4, summary: { resolved: 1, unresolved: 1, refused: 2 } });
    expect(r.body.items.map((i: { outcome: string | null; error: { code: string } | null }) => i.outcome ?? i.error?.code)).toEqual(['resolved', 'unresolved', 'consent_token_missing', 'validation_failed']);
    const v = await h.request('GET', `/v1/identity/verifications/${r.body.items[0].verification_id}`);
    expect(v.body.outcome).toBe('resolved');
    const list = await h.request('GET', '/v1/identity/verification_batches');
    expect(list.body.data[0].id).toBe(r.body.id);
    expect((await h.request('GET', `/v1/identity/verification_batches/${r.body.id}`)).body.item_count).toBe(4);
  });
});

describe('sources, readiness and the gating contract (spec 4.3)', () => {
  it('list each source with its state and documented test values; readiness and the contract answer', async () => {
    const s = await h.request('GET', '/v1/identity/sources');
    expect(s.body.data.map((x: { id: string }) => x.id)).toEqual(['sandbox_nimc_nin', 'sandbox_nibss_bvn', 'sandbox_phone_otp', 'sandbox_cac_registry', 'identity_match']);
    expect(s.body.data[0]).toMatchObject({ object: 'identity_source', check: 'government_identifier', state: 'available', mocked: true });
    expect(s.body.data[0].test_values.length).toBeGreaterThan(3);
    const r = await h.request('GET', '/v1/identity/readiness');
    expect(r.body).toMatchObject({ object: 'identity_readiness', ready: true, delivered_assurance_levels: ['dal_0', 'dal_1', 'dal_2'] });
    const g = await h.request('GET', '/v1/identity/gating_contract');
    expect(g.body).toMatchObject({ object: 'gating_contract', events: { stops_being_live: 'anchor.passport.ended' } });
    expect(g.body.content_hash).toMatch(/^sha256:[0-9a-f]{64}$/);
  });
});
