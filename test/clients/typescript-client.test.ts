/**
 * The TypeScript client (clients/typescript) against a platform on a real socket: idempotent
 * retries (spec 5 Idempotency-Key; STYLE "Idempotency is a rule with three outcomes"), paging
 * (docs/gaps.md#gateway lists), typed refusals (spec 7) and webhook signature checks (spec 6.2).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ConnectionError, createClient, PlatformError, WebhookVerificationError, type ResponseInfo } from '../../clients/typescript/src/index.ts';
import { startHarness, type Harness } from '../../support/http.ts';
import { until } from '../../support/until.ts';

let h: Harness;
const received: Array<{ body: Buffer; signature: string }> = [];
const receiver = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    received.push({ body: Buffer.concat(chunks), signature: String(req.headers['service-signature'] ?? '') });
    res.writeHead(200).end();
  });
});

beforeAll(async () => {
  // the receiver listens on 127.0.0.1, which webhooks reach only with the development setting
  h = await startHarness({ config: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' } });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
});
afterAll(async () => {
  await h.close();
  await new Promise((r) => receiver.close(r));
});

it('client - a create whose answer was lost on the way is retried with the same Idempotency-Key and replays: one record (spec 5, 8 idempotency)', async () => {
  const seen: ResponseInfo[] = [];
  let dropped = 0;
  // the platform answers the first attempt, and the connection drops before the client reads it
  const dropFirst: typeof fetch = async (input, init) => {
    const res = await fetch(input, init);
    if (init?.method === 'POST' && dropped === 0) {
      dropped++;
      await res.arrayBuffer();
      throw new TypeError('fetch failed: socket hang up');
    }
    return res;
  };
  const client = createClient({ baseUrl: h.url, apiKey: h.key, fetch: dropFirst, retryBaseMs: 1, onResponse: (i) => seen.push(i) });
  const name = `retried-${Date.now()}`;
  const created = await client.apiKeys.create({ name });
  expect(dropped).toBe(1);
  // the one answer the client read is the platform's replay of the first execution
  expect(seen.map((s) => s.headers.get('service-idempotent-replay'))).toEqual(['true']);
  const all = [];
  for await (const k of client.apiKeys.list()) if (k.name === name) all.push(k.id);
  expect(all).toEqual([created.id]);
});

it('client - a dropped connection is not retried when retries are off, and surfaces as a ConnectionError', async () => {
  const refuse: typeof fetch = async () => {
    throw new TypeError('fetch failed: connect ECONNREFUSED');
  };
  const client = createClient({ baseUrl: h.url, apiKey: h.key, fetch: refuse, maxRetries: 0 });
  await expect(client.apiKeys.list()).rejects.toBeInstanceOf(ConnectionError);
});

it('client - iterating a list over 250 records returns each once, in the platform\'s order, page by page (docs/gaps.md#gateway lists)', async () => {
  const org = await h.register();
  const client = createClient({ baseUrl: h.url, apiKey: org.key });
  const made = new Set<string>();
  for (let i = 0; i < 250; i++) made.add((await client.identity.blocklistEntries.create({ subject_ref: `subject-${i}`, reason: 'paging test' })).id);
  const pages: number[] = [];
  const pagingClient = createClient({ baseUrl: h.url, apiKey: org.key, onResponse: (i) => i.method === 'GET' && pages.push(i.status) });
  const listed: string[] = [];
  for await (const e of pagingClient.identity.blocklistEntries.list({ limit: 100 })) listed.push(e.id);
  expect(listed).toHaveLength(250);
  expect(new Set(listed)).toEqual(made);
  expect(pages).toEqual([200, 200, 200]);
  // the same order as the platform's own pages, read by hand
  const byHand: string[] = [];
  for (let after: string | undefined; ; ) {
    const page = await client.identity.blocklistEntries.list({ limit: 37, starting_after: after });
    byHand.push(...page.data.map((e) => e.id));
    if (!page.has_more) break;
    after = page.data[page.data.length - 1].id;
  }
  expect(listed).toEqual(byHand);
});

it('client - a refusal is a PlatformError carrying its code, status, request id and retryable flag (spec 7)', async () => {
  const client = createClient({ baseUrl: h.url });
  const again = { organisation_name: 'Twice Ltd', name: 'Someone', email: h.registration.email, password: 'another-long-passphrase-42' };
  const e = await client.registrations.create(again).catch((x: unknown) => x);
  expect(e).toBeInstanceOf(PlatformError);
  expect(e).toMatchObject({ status: 409, code: 'conflict', retryable: false });
  expect((e as PlatformError).requestId).toMatch(/^req_/);
  const invalid = await createClient({ baseUrl: h.url, apiKey: h.key }).identity.blocklistEntries.create({ subject_ref: '', reason: 'x' }).catch((x: unknown) => x);
  expect(invalid).toMatchObject({ status: 400, code: 'validation_failed' });
  expect((invalid as PlatformError).validation).toBeDefined();
});

it('webhooks.verify - accepts a real delivery; refuses a tampered body, a stale timestamp and a rotated-away secret (spec 6.2, 8)', async () => {
  const client = createClient({ baseUrl: h.url, apiKey: h.key });
  const endpoint = await client.webhookEndpoints.create({ url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks` });
  const first = endpoint.secret as string;
  await client.webhookEndpoints.test(endpoint.id);
  await until(() => received.length >= 1, 10_000);
  const now = h.clock.now();
  const { body, signature } = received[0];
  await expect(client.webhooks.verify(body, signature, [first], { now })).resolves.toMatchObject({ type: expect.any(String) });
  await expect(client.webhooks.verify(body.toString('utf8'), signature, ['not-the-secret', first], { now })).resolves.toBeDefined();
  const tampered = Buffer.from(body.toString('utf8').replace('"livemode":false', '"livemode":true'));
  expect(tampered.equals(body)).toBe(false);
  await expect(client.webhooks.verify(tampered, signature, [first], { now })).rejects.toMatchObject({ reason: 'no_matching_signature' });
  await expect(client.webhooks.verify(body, signature, [first], { now: now + 301_000 })).rejects.toMatchObject({ reason: 'timestamp_outside_tolerance' });
  await expect(client.webhooks.verify(body, 'v1=abc', [first], { now })).rejects.toBeInstanceOf(WebhookVerificationError);
  // rotated, and a day later the first secret no longer signs: it must not verify the new delivery
  const rotated = await client.webhookEndpoints.rotateSecret(endpoint.id);
  await h.clock.advance(25 * 3600_000);
  await client.webhookEndpoints.test(endpoint.id);
  await until(() => received.length >= 2, 10_000);
  const later = received[1];
  const laterNow = h.clock.now();
  await expect(client.webhooks.verify(later.body, later.signature, [first], { now: laterNow })).rejects.toMatchObject({ reason: 'no_matching_signature' });
  await expect(client.webhooks.verify(later.body, later.signature, [rotated.secret as string], { now: laterNow })).resolves.toBeDefined();
});
