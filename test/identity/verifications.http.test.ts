/** Identity verifications (spec 1 rules 6-8, 2.4, 3 "Identity verification", 4.3, 7). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { identityGate } from '../../actors/identity/index.ts';
import { IDENTITY } from '../../actors/identity/service.ts';
import type { SandboxSource } from '../../actors/identity/providers/index.ts';
import { startHarness, type Harness } from '../../support/http.ts';
import { CLAIMS, consent, FULL_CHECKS, ik, livePassport, NIN, PHONE, subject, verify } from './support.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const calls = () => (h.platform.services.require(IDENTITY).sources as SandboxSource[]).reduce((a, s) => a + s.calls, 0);

describe('no consent, no query (spec rule 7, 3)', () => {
  it('a withdrawn token blocks with no_consent and no source is called', async () => {
    const s = subject();
    const t = await consent(h, s);
    expect((await h.request('POST', `/v1/identity/consent_tokens/${t.id}/revoke`, { idempotencyKey: ik('revoke') })).status).toBe(200);
    const before = calls();
    const r = await verify(h, { subject_ref: s, consent_token_id: t.id, claims: { ...CLAIMS, government_identifier: NIN.match } });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ object: 'identity_verification', outcome: 'blocked', blocked_because: 'no_consent', passport_id: null, evidence_bundle_id: null });
    expect(calls()).toBe(before);
  });

  it('an unknown token, or one of another organisation, is 422 consent_token_missing and nothing is queried', async () => {
    const s = subject();
    const before = calls();
    const r = await verify(h, { subject_ref: s, consent_token_id: 'anchor_pro_consent_doesnotexist', claims: { government_identifier: NIN.match } });
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe('consent_token_missing');
    const other = await h.register();
    const theirs = await consent(h, s, {}, { key: other.key });
    const r2 = await verify(h, { subject_ref: s, consent_token_id: theirs.id, claims: { government_identifier: NIN.match } });
    expect(r2.status).toBe(422);
    expect(r2.body.error.code).toBe('consent_token_missing');
    expect(calls()).toBe(before);
  });

  it('no consent_token_id at all is 422 consent_token_missing, not 400 required, and nothing is queried (spec 7)', async () => {
    const before = calls();
    const r = await verify(h, { subject_ref: subject(), claims: { government_identifier: NIN.match } });
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe('consent_token_missing');
    expect(calls()).toBe(before);
  });

  it('a token for another subject, another purpose or without the check is consent_scope_insufficient, nothing queried', async () => {
    const s = subject();
    const before = calls();
    const forOther = await consent(h, subject());
    const narrow = await consent(h, s, { checks: ['contactability'] });
    const marketing = await consent(h, s, { purpose: 'marketing' });
    const wrongPurpose = await consent(h, s, { purpose: 'onboarding' });
    for (const [token, extra] of [[forOther, {}], [narrow, {}], [marketing, {}], [wrongPurpose, { purpose: 'employment_verification' }]] as const) {
      const r = await verify(h, { subject_ref: s, consent_token_id: token.id, claims: { ...CLAIMS, government_identifier: NIN.match }, ...extra });
      expect(r.body).toMatchObject({ outcome: 'blocked', blocked_because: 'consent_scope_insufficient' });
    }
    expect(calls()).toBe(before);
  });

  it('a blocklisted subject is blocked with subject_blocklisted, nothing queried', async () => {
    const s = subject();
    const t = await consent(h, s);
    const b = await h.request('POST', '/v1/identity/blocklist_entries', { body: { subject_ref: s, reason: 'fraud ring' }, idempotencyKey: ik('bl') });
    expect(b.status).toBe(201);
    const before = calls();
    const r = await verify(h, { subject_ref: s, consent_token_id: t.id, claims: { ...CLAIMS, government_identifier: NIN.match } });
    expect(r.body).toMatchObject({ outcome: 'blocked', blocked_because: 'subject_blocklisted' });
    expect(calls()).toBe(before);
  });
});

describe('outcomes (spec 3)', () => {
  it('evidence established: resolved at dal_2 with a live passport and an evidence bundle', async () => {
    const { subjectRef, verification, passportId } = await livePassport(h);
    expect(verification).toMatchObject({ outcome: 'resolved', assurance_reached: 'dal_2', target_assurance: 'dal_2', unresolved_source: null, retry_after: null, blocked_because: null });
    expect(passportId.startsWith('anchor_pro_passport_')).toBe(true);
    const p = await h.request('GET', `/v1/identity/passports/${passportId}`);
    expect(p.body).toMatchObject({ object: 'passport', live: true, status: 'live', subject_ref: subjectRef, assurance_level: 'dal_2' });
    expect(identityGate(h.platform).isLive(h.org, subjectRef)).toBe(true);
    const bundle = await h.request('GET', `/v1/identity/verifications/${verification.id}/evidence_bundle`);
    expect(bundle.status).toBe(200);
    const nin = bundle.body.sources.find((x: { check: string }) => x.check === 'government_identifier');
    expect(nin).toMatchObject({ source: 'sandbox_nimc_nin', status: 'passed', said: 'found', identifier_shown: '*******6789' });
    expect(bundle.body.sources.map((x: { check: string }) => x.check).sort()).toEqual(['contactability', 'date_of_birth_match', 'government_identifier', 'name_match']);
  });

  it('assurance reached may be below the target: contactability only reaches dal_1', async () => {
    const s = subject();
    const t = await consent(h, s);
    const r = await verify(h, { subject_ref: s, consent_token_id: t.id, claims: { phone: PHONE.reachable } });
    expect(r.body).toMatchObject({ outcome: 'resolved', target_assurance: 'dal_2', assurance_reached: 'dal_1' });
    expect(r.body.passport_id).not.toBeNull();
  });

  it('silence is never a pass: unresolved names the source and sets retry_after (spec rule 8)', async () => {
    const s = subject();
    const t = await consent(h, s);
    const r = await verify(h, { subject_ref: s, consent_token_id: t.id, claims: { ...CLAIMS, government_identifier: NIN.silent, phone: PHONE.reachable } });
    expect(r.body).toMatchObject({ outcome: 'unresolved', unresolved_source: 'sandbox_nimc_nin', passport_id: null, assurance_reached: null });
    expect(Date.parse(r.body.retry_after)).toBeGreaterThan(h.clock.now());
    expect(identityGate(h.platform).isLive(h.org, s)).toBe(false);
  });

  it('not found is an answer, not silence: the government check fails and the level stays below dal_2', async () => {
    const s = subject();
    const t = await consent(h, s);
    const r = await verify(h, { subject_ref: s, consent_token_id: t.id, claims: { ...CLAIMS, government_identifier: NIN.notFound, phone: PHONE.reachable } });
    expect(r.body).toMatchObject({ outcome: 'resolved', assurance_reached: 'dal_1', unresolved_source: null });
    expect(r.body.findings).toContain('not_found');
  });

  it('a record that contradicts the claims goes to a person (pending, review_required), and resolve decides it', async () => {
    const s = subject();
    const t = await consent(h, s);
    const r = await verify(h, { subject_ref: s, consent_token_id: t.id, claims: { ...CLAIMS, government_identifier: NIN.nameDiffers, phone: PHONE.reachable } });
    expect(r.body).toMatchObject({ outcome: 'pending', pending_reason: 'review_required', passport_id: null });
    expect(r.body.findings).toContain('name_no_match');
    const resolved = await h.request('POST', `/v1/identity/verifications/${r.body.id}/resolve`, { body: { reason: 'Name changed on marriage; certificate seen.' }, idempotencyKey: ik('resolve') });
    expect(resolved.status).toBe(200);
    expect(resolved.body).toMatchObject({ outcome: 'resolved', assurance_reached: 'dal_1', decision: { operation: 'resolve', reason: 'Name changed on marriage; certificate seen.' } });
    expect(identityGate(h.platform).isLive(h.org, s)).toBe(true);
    const again = await h.request('POST', `/v1/identity/verifications/${r.body.id}/resolve`, { body: { reason: 'x' }, idempotencyKey: ik('resolve') });
    expect(again.status).toBe(409);
  });

  it('a slow source keeps the verification pending until its answer is collected by the clock', async () => {
    const s = subject();
    const t = await consent(h, s);
    const r = await verify(h, { subject_ref: s, consent_token_id: t.id, claims: { ...CLAIMS, government_identifier: NIN.slow } });
    expect(r.body).toMatchObject({ outcome: 'pending', pending_reason: 'awaiting_source' });
    await h.clock.advance(60_000);
    await h.platform.system.settle();
    expect((await h.request('GET', `/v1/identity/verifications/${r.body.id}`)).body.outcome).toBe('pending');
    await h.clock.advance(60_000);
    await h.platform.system.settle();
    const after = await h.request('GET', `/v1/identity/verifications/${r.body.id}`);
    expect(after.body).toMatchObject({ outcome: 'resolved', assurance_reached: 'dal_2' });
    expect(identityGate(h.platform).isLive(h.org, s)).toBe(true);
  });

  it('dal_3 and dal_4 are documented and not delivered: asking for them is a 400 naming why (spec 2.4, 9)', async () => {
    const s = subject();
    const t = await consent(h, s);
    for (const level of ['dal_3', 'dal_4']) {
      const r = await verify(h, { subject_ref: s, consent_token_id: t.id, target_assurance: level, claims: { government_identifier: NIN.match } });
      expect(r.status).toBe(400);
      expect(JSON.stringify(r.body)).toContain('not delivered');
    }
  });

  it('a malformed identifier is refused before any source is asked (reference 1.4)', async () => {
    const s = subject();
    const t = await consent(h, s);
    const before = calls();
    const r = await verify(h, { subject_ref: s, consent_token_id: t.id, claims: { government_identifier: '1234', bank_identifier: 'abc', phone: '12' } });
    expect(r.status).toBe(400);
    expect(r.body.error.validation.error_count).toBe(3);
    expect(calls()).toBe(before);
  });
});

describe('consent tokens (spec 2.4, 3 "Consent token")', () => {
  it('expire by the clock with an event, not when read; revoke twice is 409', async () => {
    const s = subject();
    const expires = new Date(h.clock.now() + 3_600_000).toISOString();
    const t = await consent(h, s, { expires_at: expires });
    expect(t).toMatchObject({ status: 'active', collected_channel: 'api', checks: FULL_CHECKS });
    await h.clock.advance(3_600_000);
    await h.platform.system.settle();
    const read = await h.request('GET', `/v1/identity/consent_tokens/${t.id}`);
    expect(read.body.status).toBe('expired');
    const events = await h.request('GET', '/v1/identity/events?limit=100');
    expect(events.body.data.some((e: { type: string; data: { id: string } }) => e.type === 'anchor.consent_token.expired' && e.data.id === t.id)).toBe(true);
    expect((await h.request('POST', `/v1/identity/consent_tokens/${t.id}/revoke`, { idempotencyKey: ik('revoke') })).status).toBe(409);
    const t2 = await consent(h, s);
    expect((await h.request('POST', `/v1/identity/consent_tokens/${t2.id}/revoke`, { idempotencyKey: ik('revoke') })).body.status).toBe('withdrawn');
    expect((await h.request('POST', `/v1/identity/consent_tokens/${t2.id}/revoke`, { idempotencyKey: ik('revoke') })).status).toBe(409);
  });

  it('an expires_at in the past is refused; the list holds withdrawn and expired tokens', async () => {
    const r = await h.request('POST', '/v1/identity/consent_tokens', { body: { subject_ref: subject(), purpose: 'employment_verification', checks: ['contactability'], wording_version: 'v1', expires_at: '2020-01-01T00:00:00Z' }, idempotencyKey: ik('c') });
    expect(r.status).toBe(400);
    const empty = await h.request('POST', '/v1/identity/consent_tokens', { body: { subject_ref: subject(), purpose: 'employment_verification', checks: [], wording_version: 'v1' }, idempotencyKey: ik('c') });
    expect(empty.status).toBe(400);
    const list = await h.request('GET', '/v1/identity/consent_tokens?limit=100');
    const statuses = new Set(list.body.data.map((x: { status: string }) => x.status));
    expect(statuses.has('withdrawn')).toBe(true);
    expect(statuses.has('expired')).toBe(true);
  });
});
