/**
 * GET /v1/people/{person_id} (docs/gaps.md#accounts): a person of the caller's organisation by the
 * id records name them with (a key's person, a run's prepared_by) or a key they act with, their
 * name and email; an id of no person, another organisation's person or a key without iam:read are
 * refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../../support/http.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const personOfKey = async (key = h.key) => {
  const keys = (await h.request('GET', '/v1/api_keys?limit=100', { key })).body.data as { id: string; person: string | null }[];
  return keys.find((k) => k.person)!.person!;
};

describe('GET /v1/people/{person_id}', () => {
  it('answers the person\'s name and email for the id a record names them with', async () => {
    const id = await personOfKey();
    const r = await h.request('GET', `/v1/people/${id}`);
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({ id, object: 'person', name: h.registration.body.account.name, email: h.registration.email, livemode: false, mocked: false });
  });

  it('an API key id answers the person behind the key (an audit entry names the key it acted with); an id of no person is 404', async () => {
    const r = await h.request('GET', `/v1/people/${h.registration.keyId}`);
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ id: await personOfKey(), name: h.registration.body.account.name });
    const none = await h.request('GET', '/v1/people/oauth_client_not_a_person');
    expect({ status: none.status, code: none.body.error.code }).toEqual({ status: 404, code: 'not_found' });
  });

  it('another organisation\'s person is not shown', async () => {
    const other = await h.register();
    const id = await personOfKey(other.key);
    const r = await h.request('GET', `/v1/people/${id}`);
    expect(r.status).toBeGreaterThanOrEqual(403);
    expect(r.status).toBeLessThan(405);
    expect(r.text).not.toContain(other.email);
  });

  it('needs iam:read', async () => {
    const made = await h.request('POST', '/v1/api_keys', { idempotencyKey: `people-${process.pid}`, body: { name: 'runs only', scopes: ['run:read'] } });
    expect(made.status, made.text).toBe(200);
    const r = await h.request('GET', `/v1/people/${await personOfKey()}`, { key: made.body.key });
    expect({ status: r.status, code: r.body.error.code }).toEqual({ status: 403, code: 'forbidden' });
  });
});
