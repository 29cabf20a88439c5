/**
 * Adding a second person to an organisation (docs/gaps.md#accounts): an invitation by email with a
 * token shown once, accepted with a password; single-use, expiring, scoped (iam) and idempotent;
 * through the real gateway.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/http.ts';

let h: Harness;
let n = 0;
const ik = () => `ik-inv-${process.pid}-${++n}`;
const email = () => `person${++n}.${process.pid}@example.ng`;
const PASSWORD = 'harbour-kestrel-58-lantern';

const invite = (body: unknown, key?: string, idempotencyKey: string | null = ik()) => h.request('POST', '/v1/invitations', { body, ...(key ? { key } : {}), ...(idempotencyKey ? { idempotencyKey } : {}) });
const accept = (body: unknown) => h.request('POST', '/v1/invitations/accept', { body, key: null });

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

describe('invitations (docs/gaps.md#accounts)', { timeout: 60_000 }, () => {
  it('docs/gaps.md#accounts: an invited person accepts with the token and a password, is signed in, and signs in again with POST /v1/sessions as a person of the inviting organisation', async () => {
    const who = email();
    const made = await invite({ email: who, name: 'Bisi Checker' });
    expect(made.status, made.text).toBe(200);
    expect(made.body).toMatchObject({ object: 'invitation', email: who, name: 'Bisi Checker', status: 'pending', token: expect.stringMatching(/^invt_/), accepted_at: null });
    expect(made.body.id).toMatch(/^inv_/);
    // the key's person: the registering account (persons.ts), never the key itself
    expect(made.body.invited_by).toMatch(/^acct_/);

    const joined = await accept({ token: made.body.token, password: PASSWORD });
    expect(joined.status, joined.text).toBe(200);
    expect(joined.body).toMatchObject({ object: 'invitation_acceptance', organisation: { id: h.org }, account: { email: who, name: 'Bisi Checker' }, session: { object: 'session' } });
    const me = await h.request('GET', '/v1/me', { key: null, session: joined.body.session.token });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ account: { email: who }, organisation: { id: h.org } });

    const again = await h.request('POST', '/v1/sessions', { key: null, body: { email: who, password: PASSWORD } });
    expect(again.status, again.text).toBe(200);
    // a key the person makes from their session is theirs, not the inviter's (maker-checker compares persons)
    const key = await h.request('POST', '/v1/account/api_keys', { key: null, session: again.body.token, idempotencyKey: ik(), body: { name: 'checker' } });
    expect(key.status, key.text).toBe(200);
    expect(key.body.person).toMatch(/^acct_/);
    expect(key.body.person).not.toBe(made.body.invited_by);

    const listed = await h.request('GET', '/v1/invitations');
    expect(listed.status).toBe(200);
    const row = listed.body.data.find((i: { id: string }) => i.id === made.body.id);
    expect(row).toMatchObject({ status: 'accepted', accepted_at: expect.any(String) });
    expect(row.token).toBeUndefined();
  });

  it('docs/gaps.md#accounts: the token is single-use, and an unknown one is refused alike (401)', async () => {
    const made = await invite({ email: email(), name: 'Chidi Once' });
    expect((await accept({ token: made.body.token, password: PASSWORD })).status).toBe(200);
    const second = await accept({ token: made.body.token, password: PASSWORD });
    expect(second.status).toBe(401);
    expect(second.body.error.code).toBe('unauthenticated');
    const unknown = await accept({ token: 'invt_not_a_token', password: PASSWORD });
    expect(unknown.status).toBe(401);
    expect(unknown.body.error.message).toBe(second.body.error.message);
  });

  it('docs/gaps.md#accounts: an invitation is not accepted after seven days', async () => {
    const made = await invite({ email: email(), name: 'Dayo Late' });
    await h.clock.advance(7 * 24 * 3600_000 + 1000);
    const late = await accept({ token: made.body.token, password: PASSWORD });
    expect(late.status).toBe(401);
    expect((await h.request('GET', '/v1/invitations')).body.data.find((i: { id: string }) => i.id === made.body.id).status).toBe('pending');
  });

  it('spec 4.1: an email that already has an account cannot be invited (409 conflict), nor accepted when it registered meanwhile', async () => {
    const taken = await invite({ email: h.registration.email, name: 'Ada Again' });
    expect(taken.status).toBe(409);
    expect(taken.body.error.code).toBe('conflict');
    const who = email();
    const made = await invite({ email: who, name: 'Efe Twice' });
    const reg = await h.register({ email: who });
    expect(reg.email).toBe(who);
    const late = await accept({ token: made.body.token, password: PASSWORD });
    expect(late.status).toBe(409);
  });

  it('spec 4.1: a weak password is refused with a showable reason and the invitation stays open for a better one', async () => {
    const who = email();
    const made = await invite({ email: who, name: 'Funmi Strong' });
    const weak = await accept({ token: made.body.token, password: 'short' });
    expect(weak.status).toBe(400);
    expect(JSON.stringify(weak.body)).toContain('weak_password');
    expect((await accept({ token: made.body.token, password: PASSWORD })).status).toBe(200);
  });

  it('spec 5.6, 8: inviting needs iam:write (403 naming it) and an Idempotency-Key; the same key and body replay the same invitation with its token withheld', async () => {
    const narrow = await h.request('POST', '/v1/api_keys', { idempotencyKey: ik(), body: { name: 'reader', scopes: ['iam:read'] } });
    expect(narrow.status, narrow.text).toBe(200);
    const refused = await invite({ email: email(), name: 'Gbenga Nope' }, narrow.body.key);
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toContain('iam:write');
    expect((await h.request('GET', '/v1/invitations', { key: narrow.body.key })).status).toBe(200);

    expect((await invite({ email: email(), name: 'No Key' }, undefined, null)).status).toBe(400);

    const key = ik();
    const body = { email: email(), name: 'Halima Replay' };
    const first = await invite(body, undefined, key);
    const replay = await invite(body, undefined, key);
    expect(replay.status).toBe(200);
    expect(replay.headers['service-idempotent-replay']).toBe('true');
    expect(replay.body.id).toBe(first.body.id);
    expect(replay.body.token).toBeNull();
    expect((await accept({ token: first.body.token, password: PASSWORD })).status).toBe(200);
  });

  it('spec 1 rule 2: another organisation lists none of these invitations, and a person joins only the organisation that invited them', async () => {
    const other = await h.register();
    const mine = await invite({ email: email(), name: 'Ife Mine' });
    const theirs = await h.request('GET', '/v1/invitations', { key: other.key });
    expect(theirs.status).toBe(200);
    expect(theirs.body.data.map((i: { id: string }) => i.id)).not.toContain(mine.body.id);
    const joined = await accept({ token: mine.body.token, password: PASSWORD });
    expect(joined.body.organisation.id).toBe(h.org);
  });
});
