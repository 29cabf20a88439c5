/**
 * Credential verifications through the real socket (spec 1 rules 7 and 8, 2.5 CredentialVerification,
 * 3 Credential verification, 4.4, 7), over the test store family. Issuer behaviour is chosen by the
 * sandbox's documented test values (actors/credentials/providers/issuers.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ISSUER_TEST_VALUES } from '../../actors/credentials/index.ts';
import { startHarness, type Harness } from '../../support/http.ts';
import { allEvents, consent, ik, livePassport, subjectRef, verify } from './support.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const DAY = 86_400_000;
const get = (path: string) => h.request('GET', path);

describe('no consent, no query (spec 1 rule 7, 7)', () => {
  it('no consent, no query: without a consent token the create is refused with 422 consent_token_missing and nothing is recorded', async () => {
    const s = subjectRef();
    const r = await verify(h, { subject_ref: s, issuer_id: 'proof_issuer_waec', credential_kind: 'waec_ssce' });
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe('consent_token_missing');
    expect((await get(`/v1/credentials/verifications?subject_ref=${s}`)).body.data).toEqual([]);
  });

  it('no consent, no query: a token of another subject, another purpose, or withdrawn does not cover it', async () => {
    const s = subjectRef();
    const other = await consent(h, subjectRef());
    const wrongPurpose = await consent(h, s, 'employment_screening');
    const withdrawn = await consent(h, s);
    expect((await h.request('POST', `/v1/identity/consent_tokens/${withdrawn}/revoke`, { body: {}, idempotencyKey: ik('rv') })).status).toBe(200);
    for (const token of [other, wrongPurpose, withdrawn, 'anchor_pro_consent_doesnotexist']) {
      const r = await verify(h, { subject_ref: s, issuer_id: 'proof_issuer_waec', credential_kind: 'waec_ssce', consent_token_id: token });
      expect(r.status).toBe(422);
      expect(r.body.error.code).toBe('consent_token_missing');
    }
    expect((await get(`/v1/credentials/verifications?subject_ref=${s}`)).body.data).toEqual([]);
  });

  it('an unknown issuer or a kind the issuer does not issue is a 400 with a validation report, never a 500', async () => {
    const s = subjectRef();
    const token = await consent(h, s);
    const a = await verify(h, { subject_ref: s, issuer_id: 'proof_issuer_nobody', credential_kind: 'waec_ssce', consent_token_id: token });
    expect(a.status).toBe(400);
    expect(a.body.error.validation.entries[0]).toMatchObject({ code: 'unknown_issuer', field: '/issuer_id' });
    const b = await verify(h, { subject_ref: s, issuer_id: 'proof_issuer_waec', credential_kind: 'bachelor_degree', consent_token_id: token });
    expect(b.status).toBe(400);
    expect(b.body.error.validation.entries[0]).toMatchObject({ code: 'credential_kind_not_issued' });
    const c = await verify(h, { subject_ref: s, issuer_id: 'proof_issuer_waec' });
    expect(c.status).toBe(400);
  });
});

describe('outcomes (spec 3 Credential verification)', () => {
  it('register_api answers at once: verified, the claim issued (claim_id), identity_assurance attested without a live passport', async () => {
    const s = subjectRef();
    const token = await consent(h, s);
    const r = await verify(h, { subject_ref: s, issuer_id: 'proof_issuer_waec', credential_kind: 'waec_ssce', consent_token_id: token, credential_reference: '4251212052' });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      object: 'credential_verification', livemode: false, mocked: true, outcome: 'verified', subject_ref: s, identity_assurance: 'attested', method: 'register_api',
      issuer_id: 'proof_issuer_waec', cached: false, unresolved_source: null, contradiction_detail: null, service_level_due: null, charge: { amount: 500000, currency: 'NGN' },
    });
    expect(r.body.id.startsWith('proof_academic_verification_')).toBe(true);
    expect(r.body).not.toHaveProperty('passport_id');
    expect(r.body.claim_id.startsWith('proof_academic_claim_')).toBe(true);
    const claim = await get(`/v1/credentials/claims/${r.body.claim_id}`);
    expect(claim.status).toBe(200);
    expect(claim.body).toMatchObject({ object: 'competence_claim', claim_code: 'ng-general.ssce', evidence_class: 'e4_verified_with_issuer', issuing_method: 'register_api', verification_id: r.body.id, decay_state: 'current', framework_version: '2026.11.1' });
    expect(claim.body.expires_at).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect((await get(`/v1/credentials/verifications/${r.body.id}`)).body).toEqual(r.body);
  });

  it('identity_assurance is verified with passport_id when the subject has a live passport', async () => {
    const s = subjectRef();
    const passport = await livePassport(h, s);
    const token = await consent(h, s);
    const r = await verify(h, { subject_ref: s, issuer_id: 'proof_issuer_ncvs', credential_kind: 'bachelor_degree', consent_token_id: token });
    expect(r.body).toMatchObject({ identity_assurance: 'verified', passport_id: passport, outcome: 'verified' });
  });

  it('silence is never a pass: an issuer that does not answer gives unverified naming the source, and no claim', async () => {
    const s = subjectRef();
    const token = await consent(h, s);
    const r = await verify(h, { subject_ref: s, issuer_id: 'proof_issuer_waec', credential_kind: 'waec_ssce', consent_token_id: token, credential_reference: `1234${ISSUER_TEST_VALUES.silentSuffix}` });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ outcome: 'unverified', unresolved_source: 'proof_issuer_waec', claim_id: null });
    await h.platform.system.settle();
    expect((await get(`/v1/credentials/claims?subject_ref=${s}`)).body.data).toEqual([]);
  });

  it('silence is never a pass: a portal that stays silent is unverified when its service level passes, naming the source', async () => {
    const s = subjectRef();
    const token = await consent(h, s);
    const r = await verify(h, { subject_ref: s, issuer_id: 'proof_issuer_neco', credential_kind: 'neco_ssce', consent_token_id: token, credential_reference: `55${ISSUER_TEST_VALUES.silentSuffix}` });
    expect(r.body).toMatchObject({ outcome: 'pending', method: 'issuer_portal' });
    expect(r.body.service_level_due).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const due = Date.parse(`${r.body.service_level_due}T00:00:00Z`) + DAY;
    await h.clock.advanceTo(due - 1);
    expect((await get(`/v1/credentials/verifications/${r.body.id}`)).body.outcome).toBe('pending');
    await h.clock.advanceTo(due);
    expect((await get(`/v1/credentials/verifications/${r.body.id}`)).body).toMatchObject({ outcome: 'unverified', unresolved_source: 'proof_issuer_neco', service_level_due: null, claim_id: null });
  });

  it('issuer_portal answers later: pending until the portal answers, then verified with its claim', async () => {
    const s = subjectRef();
    const token = await consent(h, s);
    const r = await verify(h, { subject_ref: s, issuer_id: 'proof_issuer_neco', credential_kind: 'neco_ssce', consent_token_id: token });
    expect(r.body).toMatchObject({ outcome: 'pending', claim_id: null });
    await h.clock.advance(24 * 3_600_000);
    await h.platform.system.settle();
    const after = (await get(`/v1/credentials/verifications/${r.body.id}`)).body;
    expect(after).toMatchObject({ outcome: 'verified', decided_by: 'issuer' });
    expect((await get(`/v1/credentials/claims/${after.claim_id}`)).body).toMatchObject({ claim_code: 'ng-general.ssce', issuing_method: 'issuer_portal' });
  });

  it('contradicted is a finding about the person: the issuer\u2019s contrary answer gives contradicted with contradiction_detail, no claim, and it cannot be verified away', async () => {
    const s = subjectRef();
    const token = await consent(h, s);
    const r = await verify(h, { subject_ref: s, issuer_id: 'proof_issuer_ncvs', credential_kind: 'bachelor_degree', consent_token_id: token, credential_reference: `NCN${ISSUER_TEST_VALUES.contrarySuffix}` });
    expect(r.body).toMatchObject({ outcome: 'contradicted', claim_id: null, unresolved_source: null });
    expect(r.body.contradiction_detail).toMatch(/does not match/);
    const v = await h.request('POST', `/v1/credentials/verifications/${r.body.id}/verify`, { body: {}, idempotencyKey: ik('op') });
    expect(v.status).toBe(409);
    expect(v.body.error.code).toBe('conflict');
    // a contradiction is appealed, and a person decides the appeal; the verification stays contradicted
    const appeal = await h.request('POST', '/v1/credentials/appeals', { body: { verification_id: r.body.id, statement: 'I hold this degree; the registry misfiled it.' }, idempotencyKey: ik('ap') });
    expect(appeal.status).toBe(201);
    expect(appeal.body).toMatchObject({ object: 'appeal', ground: 'contradiction', status: 'open', subject_ref: s, decision: null });
    const decided = await h.request('POST', `/v1/credentials/appeals/${appeal.body.id}/decide`, { body: { outcome: 'upheld', reason: 'Registry letter of correction seen.' }, idempotencyKey: ik('dc') });
    expect(decided.body).toMatchObject({ status: 'decided', decision: { outcome: 'upheld', reason: 'Registry letter of correction seen.' } });
    expect(decided.body.decision.decided_by).toBeTruthy();
    expect((await h.request('POST', `/v1/credentials/appeals/${appeal.body.id}/decide`, { body: { outcome: 'dismissed', reason: 'x' }, idempotencyKey: ik('dc') })).status).toBe(409);
    expect((await get(`/v1/credentials/verifications/${r.body.id}`)).body.outcome).toBe('contradicted');
  });

  it('assisted_manual stays pending to its published service level; a person records the issuer\u2019s answer through verify, contradict or mark_unverified', async () => {
    const s = subjectRef();
    const token = await consent(h, s);
    const mk = () => verify(h, { subject_ref: s, issuer_id: 'proof_issuer_university', credential_kind: 'transcript', consent_token_id: token, credential_reference: ik('UNILAG') });
    const a = await mk();
    expect(a.body).toMatchObject({ outcome: 'pending', method: 'assisted_manual' });
    // published service level: 30 days (policy pack), the whole due date included
    const created = Date.parse(a.body.created_at);
    expect(Date.parse(`${a.body.service_level_due}T00:00:00Z`)).toBe(Date.parse(new Date(created + 30 * DAY).toISOString().slice(0, 10) + 'T00:00:00Z'));
    const op = (id: string, name: string, body: unknown = {}) => h.request('POST', `/v1/credentials/verifications/${id}/${name}`, { body, idempotencyKey: ik('op') });
    const va = await op(a.body.id, 'verify');
    expect(va.body).toMatchObject({ outcome: 'verified', service_level_due: null });
    expect((await get(`/v1/credentials/claims/${va.body.claim_id}`)).body).toMatchObject({ issuing_method: 'assisted_manual', evidence_class: 'e4_verified_with_issuer' });
    const b = await mk();
    expect((await op(b.body.id, 'contradict', { contradiction_detail: 'The registry has no such graduate in 2015.' })).body).toMatchObject({ outcome: 'contradicted', contradiction_detail: 'The registry has no such graduate in 2015.' });
    const c = await mk();
    expect((await op(c.body.id, 'mark_unverified')).body).toMatchObject({ outcome: 'unverified', unresolved_source: 'proof_issuer_university' });
    expect((await op(c.body.id, 'mark_unverified')).status).toBe(409);
    // a late answer may still verify an unverified one
    expect((await op(c.body.id, 'verify')).body.outcome).toBe('verified');
    const list = await get(`/v1/credentials/verifications?subject_ref=${s}&outcome=contradicted`);
    expect(list.body.data.map((x: { id: string }) => x.id)).toEqual([b.body.id]);
  });

  it('cached evidence charges once: a second verification inside the issuer\u2019s validity period reuses the evidence (cached: true, charge zero, same claim)', async () => {
    const s = subjectRef();
    const token = await consent(h, s);
    const body = { subject_ref: s, issuer_id: 'proof_issuer_waec', credential_kind: 'waec_ssce', consent_token_id: token, credential_reference: '4251212099' };
    const first = await verify(h, body);
    expect(first.body).toMatchObject({ outcome: 'verified', cached: false, charge: { amount: 500000, currency: 'NGN' } });
    await h.clock.advance(100 * DAY);
    const second = await verify(h, body);
    expect(second.body).toMatchObject({ outcome: 'verified', cached: true, cached_from: first.body.id, charge: { amount: 0, currency: 'NGN' }, claim_id: first.body.claim_id, evidence_date: first.body.evidence_date });
    expect(second.body.id).not.toBe(first.body.id);
    // past the validity period (365 days) the issuer is asked, and charged, again
    await h.clock.advance(266 * DAY);
    const third = await verify(h, { ...body, consent_token_id: await consent(h, s) }); // the first token's year is up too
    expect(third.body).toMatchObject({ cached: false, charge: { amount: 500000, currency: 'NGN' } });
    const all = (await get(`/v1/credentials/verifications?subject_ref=${s}`)).body.data as { charge: { amount: number } }[];
    expect(all.reduce((t, v) => t + v.charge.amount, 0)).toBe(1_000_000);
  });

  it('an Idempotency-Key replays the first answer: one record, one charge', async () => {
    const s = subjectRef();
    const token = await consent(h, s);
    const key = ik('same');
    const body = { subject_ref: s, issuer_id: 'proof_issuer_waec', credential_kind: 'waec_ssce', consent_token_id: token };
    const [a, b] = await Promise.all([verify(h, body, key), verify(h, body, key)]);
    expect(a.body.id).toBe(b.body.id);
    expect((await get(`/v1/credentials/verifications?subject_ref=${s}`)).body.data).toHaveLength(1);
  });

  it('a record of another organisation answers 403 organisation_mismatch', async () => {
    const s = subjectRef();
    const token = await consent(h, s);
    const r = await verify(h, { subject_ref: s, issuer_id: 'proof_issuer_waec', credential_kind: 'waec_ssce', consent_token_id: token });
    const other = await h.register();
    const x = await h.request('GET', `/v1/credentials/verifications/${r.body.id}`, { key: other.key });
    expect(x.status).toBe(403);
    expect(x.body.error.code).toBe('organisation_mismatch');
  });
});

describe('licences (spec 2.5, 6 licence.expired)', () => {
  it('a verified licence credential with the licensing body makes a licence per occupation it licenses; it expires by the clock with licence.expired and the gate closes', async () => {
    const s = subjectRef();
    const token = await consent(h, s);
    const r = await verify(h, { subject_ref: s, issuer_id: 'proof_issuer_nemsa', credential_kind: 'nemsa_competency_certificate', consent_token_id: token, credential_reference: 'NEMSA-77812' });
    expect(r.body.outcome).toBe('pending'); // the NEMSA portal answers after 72 hours
    await h.clock.advance(72 * 3_600_000);
    await h.platform.system.settle();
    const list = await get(`/v1/credentials/licences?subject_ref=${s}`);
    expect(list.body.data.map((l: { occupation_code: string }) => l.occupation_code).sort()).toEqual(['ng-7411', 'ng-7412', 'ng-7413']);
    const lic = list.body.data.find((l: { occupation_code: string }) => l.occupation_code === 'ng-7412');
    expect(lic).toMatchObject({ object: 'licence', status: 'current', issuer_id: 'proof_issuer_nemsa', licence_kind: 'nemsa_competency_certificate', livemode: false, mocked: true });
    expect((await get(`/v1/credentials/licences/${lic.id}`)).body).toEqual(lic);
    expect((await get(`/v1/credentials/licences?subject_ref=${s}&occupation_code=ng-7412&status=current`)).body.data).toHaveLength(1);
    // validity 24 months (policy pack); at expires_at it lapses
    await h.clock.advanceTo(Date.parse(`${lic.expires_at}T00:00:00Z`));
    await h.platform.system.settle();
    expect((await get(`/v1/credentials/licences/${lic.id}`)).body.status).toBe('expired');
    const events = await allEvents(h);
    expect(events.filter((e) => e.type === 'licence.expired' && e.data.id === lic.id)).toHaveLength(1);
  });
});

describe('reads (spec 4.4)', () => {
  it('frameworks: versioned data for the field occupations, each claim with its NVQF level; filter occupation_code; read by id', async () => {
    const all = await get('/v1/credentials/frameworks?limit=100');
    expect(all.status).toBe(200);
    const codes = all.body.data.map((f: { occupation_code: string }) => f.occupation_code);
    for (const c of ['ng-7411', 'ng-7412', 'ng-7413', 'ng-7126', 'ng-8321', 'ng-8322', 'ng-5414', 'ng-2221', 'ng-3253', 'ng-9112']) expect(codes).toContain(c);
    const one = await get('/v1/credentials/frameworks?occupation_code=ng-7412');
    expect(one.body.data).toHaveLength(1);
    const f = one.body.data[0];
    expect(f).toMatchObject({ object: 'competency_framework', occupation_code: 'ng-7412', version: '2026.11.1', nvqf_level: 3 });
    expect(f.id.startsWith('proof_academic_verification_')).toBe(true);
    expect(f.claims).toHaveLength(5);
    expect(f.content_hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    for (const c of f.claims) expect(c).toEqual({ code: expect.stringMatching(/^ng-7412\./), description: expect.any(String), nvqf_level: expect.any(Number) });
    expect((await get(`/v1/credentials/frameworks/${f.id}`)).body).toEqual(f);
    const page = await get('/v1/credentials/frameworks?limit=2');
    const next = await get(`/v1/credentials/frameworks?limit=2&starting_after=${page.body.data[1].id}`);
    expect(page.body.has_more).toBe(true);
    expect(next.body.data[0].id > page.body.data[1].id).toBe(true);
    expect((await get('/v1/credentials/frameworks?starting_after=proof_academic_verification_unknown')).body.data).toEqual([]);
    expect((await get('/v1/credentials/frameworks?limit=101')).status).toBe(400);
  });

  it('issuers: list and read, each with its method', async () => {
    const list = await get('/v1/credentials/issuers?limit=100');
    const methods = new Set(list.body.data.map((i: { method: string }) => i.method));
    expect([...methods].sort()).toEqual(['assisted_manual', 'issuer_portal', 'register_api']);
    const waec = await get('/v1/credentials/issuers/proof_issuer_waec');
    expect(waec.body).toMatchObject({ object: 'issuer', method: 'register_api', credential_kinds: ['waec_ssce'], fee: { amount: 500000, currency: 'NGN' } });
    expect((await get('/v1/credentials/issuers/proof_issuer_nobody')).status).toBe(404);
  });

  it('readiness names the active policy pack and frameworks by version and hash', async () => {
    const r = await get('/v1/credentials/readiness');
    expect(r.body).toMatchObject({ object: 'readiness', ready: true, policy: { version: '2026.11.1' }, frameworks: { version: '2026.11.1' } });
    expect(r.body.policy.hash).toMatch(/^sha256:/);
  });
});
