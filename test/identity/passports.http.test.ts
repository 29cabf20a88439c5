/** Passports and the live-passport gate (spec 2.4, 4.3; spec 6: revocation removes a worker from cascades). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { identityGate, PASSPORT_ENDED, PASSPORT_KIND } from '../../actors/identity/index.ts';
import { startHarness, type Harness } from '../../support/http.ts';
import { CLAIMS, consent, ik, livePassport, NIN, subject, verify } from './support.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const passport = async (id: string) => (await h.request('GET', `/v1/identity/passports/${id}`)).body;
const eventsOf = async (type: string) => ((await h.request('GET', '/v1/identity/events?limit=100')).body.data as { type: string; data: { id: string } }[]).filter((e) => e.type === type);
const post = (path: string, body: unknown) => h.request('POST', path, { body, idempotencyKey: ik('post') });

describe('blocklisting (spec 3, 4.3)', () => {
  it('blocklisting ends a live passport at once, emits anchor.passport.ended, and reversing restores it', async () => {
    const { subjectRef, passportId } = await livePassport(h);
    const seen: string[] = [];
    const off = h.platform.system.onCommit((c) => {
      if (c.kind === PASSPORT_KIND) seen.push(...c.events.map((e) => e.type));
    });
    const b = await post('/v1/identity/blocklist_entries', { subject_ref: subjectRef, reason: 'Identity fraud confirmed by the site manager.' });
    expect(b.status).toBe(201);
    expect(b.body).toMatchObject({ object: 'blocklist_entry', status: 'active', subject_ref: subjectRef, passport_id: passportId, origin: 'staff' });
    await h.platform.system.settle();
    off();
    expect(seen).toContain(PASSPORT_ENDED);
    expect(identityGate(h.platform).isLive(h.org, subjectRef)).toBe(false);
    expect(identityGate(h.platform).livePassport(h.org, subjectRef)).toBeNull();
    expect(await passport(passportId)).toMatchObject({ live: false, status: 'ended', ended_because: ['blocklisted'] });
    expect((await eventsOf('anchor.passport.ended')).some((e) => e.data.id === passportId)).toBe(true);
    const rev = await post(`/v1/identity/blocklist_entries/${b.body.id}/reverse`, { reason: 'Mistaken identity.' });
    expect(rev.body.status).toBe('reversed');
    await h.platform.system.settle();
    expect(identityGate(h.platform).isLive(h.org, subjectRef)).toBe(true);
    expect((await eventsOf('anchor.passport.restored')).some((e) => e.data.id === passportId)).toBe(true);
    expect((await post(`/v1/identity/blocklist_entries/${b.body.id}/reverse`, { reason: 'again' })).status).toBe(409);
  });

  it('block on a verification with scope identifier blocklists every subject who presented the same NIN', async () => {
    const a = await livePassport(h, subject('twin_a'));
    const b = await livePassport(h, subject('twin_b'));
    const r = await post(`/v1/identity/verifications/${a.verification.id}/block`, { scope: 'identifier', reason: 'One NIN, two people.' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ outcome: 'blocked', blocked_because: 'subject_blocklisted', decision: { operation: 'block', scope: 'identifier' } });
    await h.platform.system.settle();
    expect(identityGate(h.platform).isLive(h.org, a.subjectRef)).toBe(false);
    expect(identityGate(h.platform).isLive(h.org, b.subjectRef)).toBe(false);
    expect((await post(`/v1/identity/verifications/${a.verification.id}/block`, { scope: 'subject', reason: 'again' })).status).toBe(409);
  });

  it('a withdrawn consent ends the passport when the policy pack says so; a new verification under a new token lifts it', async () => {
    const { subjectRef, token } = await livePassport(h);
    await post(`/v1/identity/consent_tokens/${token.id}/revoke`, {});
    await h.platform.system.settle();
    expect(identityGate(h.platform).isLive(h.org, subjectRef)).toBe(false);
    const t2 = await consent(h, subjectRef);
    const r = await verify(h, { subject_ref: subjectRef, consent_token_id: t2.id, claims: { ...CLAIMS, government_identifier: NIN.match } });
    expect(r.body.outcome).toBe('resolved');
    expect(identityGate(h.platform).isLive(h.org, subjectRef)).toBe(true);
  });
});

describe('merges (spec 4.3)', () => {
  it('the same identifier for two subjects is a merge candidate; a merge supersedes one passport and its reverse restores both', async () => {
    const a = await livePassport(h, subject('dup_a'));
    const b = await livePassport(h, subject('dup_b'));
    const list = await h.request('GET', '/v1/identity/merge_candidates?status=open&limit=100');
    const cand = list.body.data.find((c: { subject_refs: string[] }) => c.subject_refs.includes(a.subjectRef) && c.subject_refs.includes(b.subjectRef));
    expect(cand).toMatchObject({ object: 'merge_candidate', status: 'open', matched_on: ['government_identifier'] });
    expect(JSON.stringify(cand)).not.toContain(NIN.match);
    const m = await post('/v1/identity/merges', { merge_candidate_id: cand.id, survivor_passport_id: a.passportId, reason: 'Same person enrolled twice.' });
    expect(m.status).toBe(201);
    expect(m.body).toMatchObject({ object: 'merge', status: 'merged', survivor_passport_id: a.passportId, superseded_passport_id: b.passportId });
    await h.platform.system.settle();
    expect(await passport(b.passportId)).toMatchObject({ live: false, status: 'superseded', superseded_by: a.passportId });
    expect(await passport(a.passportId)).toMatchObject({ live: true, supersedes: [b.passportId] });
    expect(identityGate(h.platform).isLive(h.org, b.subjectRef)).toBe(false);
    expect((await h.request('GET', `/v1/identity/merge_candidates/${cand.id}`)).body.status).toBe('merged');
    const again = await post('/v1/identity/merges', { survivor_passport_id: b.passportId, superseded_passport_id: a.passportId, reason: 'x' });
    expect(again.status).toBe(409);
    const rev = await post(`/v1/identity/merges/${m.body.id}/reverse`, { reason: 'They are twins.' });
    expect(rev.body.status).toBe('reversed');
    await h.platform.system.settle();
    expect(await passport(b.passportId)).toMatchObject({ live: true, status: 'live', superseded_by: null });
    expect(await passport(a.passportId)).toMatchObject({ live: true, supersedes: [] });
    expect((await h.request('GET', `/v1/identity/merge_candidates/${cand.id}`)).body.status).toBe('open');
    expect((await post(`/v1/identity/merges/${m.body.id}/reverse`, { reason: 'again' })).status).toBe(409);
  });

  it('a passport cannot be merged into itself, and both must exist', async () => {
    const a = await livePassport(h);
    expect((await post('/v1/identity/merges', { survivor_passport_id: a.passportId, superseded_passport_id: a.passportId, reason: 'x' })).status).toBe(400);
    expect((await post('/v1/identity/merges', { survivor_passport_id: a.passportId, reason: 'x' })).status).toBe(400);
  });
});

describe('passports (spec 2.4, 4.3)', () => {
  it('POST passports from a resolved verification returns the subject\u2019s passport; from an unresolved one is 409', async () => {
    const { verification, passportId } = await livePassport(h);
    const r = await post('/v1/identity/passports', { verification_id: verification.id });
    expect(r.status).toBe(201);
    expect(r.body.id).toBe(passportId);
    const s = subject();
    const t = await consent(h, s);
    const silent = await verify(h, { subject_ref: s, consent_token_id: t.id, claims: { government_identifier: NIN.silent } });
    expect((await post('/v1/identity/passports', { verification_id: silent.body.id })).status).toBe(409);
    const live = await h.request('GET', '/v1/identity/passports?live=true&limit=100');
    expect(live.body.data.every((p: { live: boolean }) => p.live)).toBe(true);
  });

  it('another organisation reads nothing of ours (spec 5.5)', async () => {
    const { passportId, verification } = await livePassport(h);
    const other = await h.register();
    expect((await h.request('GET', `/v1/identity/passports/${passportId}`, { key: other.key })).status).toBe(403);
    expect((await h.request('GET', `/v1/identity/verifications/${verification.id}`, { key: other.key })).status).toBe(403);
    expect((await h.request('GET', '/v1/identity/passports', { key: other.key })).body.data).toEqual([]);
    expect(identityGate(h.platform).isLive(other.org, verification.subject_ref)).toBe(false);
  });
});
