/**
 * Document analyses, claims, wallets, disclosures, re-attestations and appeals through the real
 * socket (spec 1 rule 7, 2.5, 3 Competence claim decay, 4.4, 6 claim.lapsed), over the test store family.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOCUMENT_TEST_FILES, FACTORS } from '../../actors/credentials/index.ts';
import { startHarness, type Harness } from '../../support/http.ts';
import { allEvents, consent, ik, subjectRef } from './support.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const DAY = 86_400_000;
const get = (path: string) => h.request('GET', path);
const post = (path: string, body: unknown, key = ik('k')) => h.request('POST', path, { body, idempotencyKey: key });
const today = () => new Date(h.clock.now()).toISOString().slice(0, 10);
const claim = (s: string, code: string, extra: Record<string, unknown> = {}) =>
  post('/v1/credentials/claims', { subject_ref: s, claim_code: code, level: 3, evidence_class: 'e3_documented', evidence_date: today(), ...extra });

describe('document analyses (spec 2.5, 4.4)', () => {
  it('scores the five factors separately; document_url is write-only', async () => {
    const s = subjectRef();
    const r = await post('/v1/credentials/document_analyses', { subject_ref: s, document_url: 'https://docs.example.ng/u/genuine.pdf', credential_kind: 'bachelor_degree' });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ object: 'document_analysis', livemode: false, mocked: true, subject_ref: s, outcome: 'consistent', escalated_to_identity: false });
    expect(Object.keys(r.body.factors).sort()).toEqual([...FACTORS].sort());
    for (const f of FACTORS) expect(r.body.factors[f].score).toBeGreaterThanOrEqual(0.8);
    expect(r.text).not.toContain('docs.example.ng');
    expect((await get(`/v1/credentials/document_analyses/${r.body.id}`)).body).toEqual(r.body);
    const one = await post('/v1/credentials/document_analyses', { subject_ref: s, document_url: 'https://docs.example.ng/u/forged-seal.pdf', credential_kind: 'bachelor_degree' });
    expect(one.body).toMatchObject({ outcome: 'suspect', escalated_to_identity: false });
    expect(one.body.factors.seal.score).toBe(DOCUMENT_TEST_FILES['forged-seal.pdf'].seal![0]);
  });

  it('a forgery escalates to identity: a confirmed forgery commits the escalation and identity opens a blocklist decision for the subject', async () => {
    const s = subjectRef();
    const r = await post('/v1/credentials/document_analyses', { subject_ref: s, document_url: 'https://docs.example.ng/u/forged.pdf', credential_kind: 'waec_ssce' });
    expect(r.body).toMatchObject({ outcome: 'forgery_confirmed', escalated_to_identity: true });
    for (const f of FACTORS) expect(r.body.factors[f].indicators.length).toBe(1);
    await h.platform.system.settle();
    const entries = (await get('/v1/identity/blocklist_entries?limit=100')).body.data as { subject_ref?: string; document_analysis_id?: string; status: string }[];
    const mine = entries.filter((e) => e.document_analysis_id === r.body.id);
    expect(mine).toHaveLength(1);
    expect(mine[0].status).toBe('proposed');
    const events = await allEvents(h);
    expect(events.filter((e) => e.type === 'proof.document_analysis.forgery_confirmed' && e.data.id === r.body.id)).toHaveLength(1);
  });

  it('refuses an unreadable url or an unknown credential kind with 400', async () => {
    const a = await post('/v1/credentials/document_analyses', { subject_ref: 'x', document_url: 'not a url', credential_kind: 'waec_ssce' });
    expect(a.status).toBe(400);
    const b = await post('/v1/credentials/document_analyses', { subject_ref: 'x', document_url: 'https://d.example/a.pdf', credential_kind: 'made_up' });
    expect(b.status).toBe(400);
    expect(b.body.error.validation.entries[0]).toMatchObject({ code: 'unknown_credential_kind' });
  });
});

describe('competence claims over HTTP (spec 2.5, 3, 6)', () => {
  it('a lapsed claim stays listed and downgraded, and claim.lapsed carries the CompetenceClaim', async () => {
    const s = subjectRef();
    const c = await claim(s, 'ng-7126.pipework', { evidence_class: 'e1_claimed' });
    expect(c.status).toBe(201);
    expect(c.body).toMatchObject({ object: 'competence_claim', decay_state: 'current', evidence_class: 'e1_claimed', superseded_by: null, verification_id: null });
    expect(c.body.decay_function).toBe('stepwise_linear(ageing=0.5,stale=0.8,lapsed=1.0)');
    await h.clock.advance(366 * DAY);
    await h.platform.system.settle();
    const listed = (await get(`/v1/credentials/claims?subject_ref=${s}`)).body.data;
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ id: c.body.id, decay_state: 'lapsed', downgraded: false, evidence_class: 'e1_claimed' });
    expect((await get(`/v1/credentials/claims?subject_ref=${s}&decay_state=lapsed`)).status).toBe(400);
    const events = await allEvents(h);
    const lapsed = events.filter((e) => e.type === 'claim.lapsed' && e.data.id === c.body.id);
    expect(lapsed).toHaveLength(1);
    expect(lapsed[0]).toMatchObject({ source: 'proof', data: { object: 'competence_claim', decay_state: 'lapsed' } });
    expect(events.filter((e) => e.data.id === c.body.id).map((e) => e.type)).toEqual(['proof.claim.issued', 'proof.claim.aged', 'proof.claim.went_stale', 'claim.lapsed']);
    // a lapse is appealed
    const ap = await post('/v1/credentials/appeals', { claim_id: c.body.id, statement: 'I still do this work daily.' });
    expect(ap.body).toMatchObject({ ground: 'lapse', status: 'open', claim_id: c.body.id });
  });

  it('lapse before expiry: downgraded and listed; a second lapse 409; a current claim cannot be appealed (409)', async () => {
    const s = subjectRef();
    const c = await claim(s, 'ng-7126.drainage', { evidence_class: 'e5_demonstrated' });
    expect((await post('/v1/credentials/appeals', { claim_id: c.body.id, statement: 'x' })).status).toBe(409);
    const l = await post(`/v1/credentials/claims/${c.body.id}/lapse`, { reason: 'Observed unsafe practice.' });
    expect(l.body).toMatchObject({ decay_state: 'lapsed', evidence_class: 'e1_claimed', evidence_class_at_issue: 'e5_demonstrated', downgraded: true });
    expect((await post(`/v1/credentials/claims/${c.body.id}/lapse`, { reason: 'again' })).status).toBe(409);
  });

  it('re-attestation: the new claim supersedes the old, which stays; the old one cannot be re-attested twice', async () => {
    const s = subjectRef();
    const old = await claim(s, 'ng-5414.access_control', { evidence_class: 'e2_attested', level: 1 });
    const ra = await post('/v1/credentials/reattestations', { claim_id: old.body.id, evidence_class: 'e5_demonstrated', evidence_date: today(), attested_by: 'Site supervisor, Ikeja depot' });
    expect(ra.status).toBe(201);
    expect(ra.body).toMatchObject({ object: 'reattestation', claim_id: old.body.id, subject_ref: s, evidence_class: 'e5_demonstrated' });
    const fresh = (await get(`/v1/credentials/claims/${ra.body.new_claim_id}`)).body;
    expect(fresh).toMatchObject({ supersedes: old.body.id, evidence_class: 'e5_demonstrated', claim_code: 'ng-5414.access_control', level: 1 });
    expect((await get(`/v1/credentials/claims/${old.body.id}`)).body).toMatchObject({ superseded_by: ra.body.new_claim_id, evidence_class: 'e2_attested' });
    expect((await get(`/v1/credentials/reattestations/${ra.body.id}`)).body).toEqual(ra.body);
    const again = await post('/v1/credentials/reattestations', { claim_id: old.body.id, evidence_class: 'e3_documented', evidence_date: today(), attested_by: 'x' });
    expect(again.status).toBe(409);
    expect((await get(`/v1/credentials/claims?subject_ref=${s}`)).body.data).toHaveLength(2);
  });

  it('refuses bad input with a validation report naming the field', async () => {
    const r = await post('/v1/credentials/claims', { subject_ref: 's', claim_code: 'ng-7126.pipework', level: 0, evidence_class: 'e9', evidence_date: '2026-13-01' });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('validation_failed');
    const e4 = await claim('s', 'ng-7126.pipework', { evidence_class: 'e4_verified_with_issuer' });
    expect(e4.status).toBe(400);
    expect(e4.body.error.validation.entries[0]).toMatchObject({ code: 'evidence_class_reserved', field: '/evidence_class' });
    expect((await get('/v1/credentials/claims/proof_academic_claim_nope')).status).toBe(404);
    expect((await get('/v1/credentials/claims/not-an-id')).status).toBe(404);
  });
});

describe('wallets and disclosures (spec 1 rule 7, 4.4)', () => {
  it('a wallet holds a subject\u2019s claims, each read as it stands now; a claim of another subject is refused', async () => {
    const s = subjectRef();
    const a = await claim(s, 'ng-9621.parcel_handling', { level: 1 });
    const b = await claim(s, 'ng-9621.proof_of_delivery', { level: 1 });
    const other = await claim(subjectRef(), 'ng-9621.proof_of_delivery', { level: 1 });
    const bad = await post('/v1/credentials/wallets', { subject_ref: s, claim_ids: [a.body.id, other.body.id, 'proof_academic_claim_missing'] });
    expect(bad.status).toBe(400);
    expect(bad.body.error.validation.entries.map((e: { code: string; field: string }) => [e.code, e.field])).toEqual([['other_subject', '/claim_ids/1'], ['unknown_claim', '/claim_ids/2']]);
    const w = await post('/v1/credentials/wallets', { subject_ref: s, claim_ids: [a.body.id, b.body.id] });
    expect(w.status).toBe(201);
    expect(w.body).toMatchObject({ object: 'wallet', subject_ref: s, claim_ids: [a.body.id, b.body.id] });
    expect(w.body.claims.map((c: { id: string }) => c.id)).toEqual([a.body.id, b.body.id]);
    await post(`/v1/credentials/claims/${a.body.id}/lapse`, { reason: 'withdrawn' });
    const read = await get(`/v1/credentials/wallets/${w.body.id}`);
    expect(read.body.claims[0]).toMatchObject({ id: a.body.id, decay_state: 'lapsed' });
    expect((await get(`/v1/credentials/wallets?subject_ref=${s}`)).body.data.map((x: { id: string }) => x.id)).toEqual([w.body.id]);
  });

  it('no consent, no query: a disclosure needs an active consent token of the subject for a disclosure purpose (422 consent_token_missing); revoke once', async () => {
    const s = subjectRef();
    const a = await claim(s, 'ng-9112.surface_cleaning', { level: 1 });
    const w = await post('/v1/credentials/wallets', { subject_ref: s, claim_ids: [a.body.id] });
    const none = await post('/v1/credentials/disclosures', { subject_ref: s, wallet_id: w.body.id, recipient: 'Cleanco Ltd' });
    expect(none.status).toBe(422);
    expect(none.body.error.code).toBe('consent_token_missing');
    const verificationToken = await consent(h, s, 'credential_verification');
    const wrong = await post('/v1/credentials/disclosures', { subject_ref: s, wallet_id: w.body.id, recipient: 'Cleanco Ltd', consent_token_id: verificationToken });
    expect(wrong.status).toBe(422);
    const token = await consent(h, s, 'credential_disclosure', ['contactability']);
    const d = await post('/v1/credentials/disclosures', { subject_ref: s, wallet_id: w.body.id, recipient: 'Cleanco Ltd', consent_token_id: token });
    expect(d.status).toBe(201);
    expect(d.body).toMatchObject({ object: 'disclosure', status: 'active', claim_ids: [a.body.id], purpose: 'credential_disclosure', consent_token_id: token });
    const r = await post(`/v1/credentials/disclosures/${d.body.id}/revoke`, {});
    expect(r.body.status).toBe('revoked');
    expect((await post(`/v1/credentials/disclosures/${d.body.id}/revoke`, {})).status).toBe(409);
    expect((await get(`/v1/credentials/disclosures?subject_ref=${s}&status=revoked`)).body.data.map((x: { id: string }) => x.id)).toEqual([d.body.id]);
  });
});
