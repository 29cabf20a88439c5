/**
 * `npm run operator -- move-to-cluster` (DESIGN "Stores": "a user who outgrows one machine moves a
 * local data directory into a cluster with an operator command"; issue 33 "Outgrowing one
 * machine": "without losing a record ... reads everything back through a cluster node with the
 * same API keys"). A platform on local stores is populated through its HTTP API and stopped; the
 * real CLI process moves its directory into a fresh namespace of the real NATS and Redis; a
 * platform on that namespace answers for every record.
 */
import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/http.ts';
import { clusterTestStores, localTestStores, natsUrl, redisUrl, storeFamily, tempDir, testNamespace } from '../../support/stores.ts';
import { ManualClock } from '../../runtime/index.ts';
import type { FeedEntry, Journal, LocalStores, Reminder, Stores } from '../../stores/index.ts';
import { parseArgs } from '../../operator/cli.ts';
import { consent, subject } from '../identity/support.ts';
import { fullBody, ngn } from '../sourcing/support.ts';
import { cli, expectPopulated, listAll, populate } from './support.ts';

const cleanup: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

async function feed(journal: Journal): Promise<FeedEntry[]> {
  const out: FeedEntry[] = [];
  for (let after = 0; ; ) {
    const page = await journal.readFeed(after, 1000);
    if (page.length === 0) return out;
    out.push(...page);
    after = page[page.length - 1].position;
  }
}

const move = (dir: string, ns: string) => cli(['move-to-cluster', '--data-dir', dir, '--nats', natsUrl(), '--redis', redisUrl(), '--namespace', ns]);

/** The CLI's failure: exit code 1 and the reason on stderr. */
async function refused(p: Promise<unknown>): Promise<string> {
  const e = await p.then(
    () => expect.fail('the move was not refused'),
    (err: { code: number; stderr: string }) => err,
  );
  expect(e.code).toBe(1);
  return e.stderr;
}

// Refused before NATS or Redis is asked: the local family's project runs these.
describe.runIf(storeFamily() === 'local')('move-to-cluster runs only on a stopped platform (DESIGN "Stores": one process serves a data directory)', () => {
  it('move-to-cluster - refused while a platform holds the data directory, naming its pid; nothing is read', async () => {
    const clock = new ManualClock();
    const serving = localTestStores(clock);
    cleanup.push(() => serving.close());
    const stderr = await refused(move(serving.dir, testNamespace()));
    expect(stderr).toContain(`is in use by another platform process (pid ${process.pid})`);
  });

  it('move-to-cluster - refused for a directory that is not a platform data directory', async () => {
    const empty = tempDir();
    cleanup.push(() => rmSync(empty, { recursive: true, force: true }));
    expect(await refused(move(empty, testNamespace()))).toContain('is not a platform data directory');
  });
});

describe.runIf(storeFamily() === 'local')('move-to-cluster arguments', () => {
  const env = { NATS_URL: 'nats.example:4222', REDIS_URL: 'redis://redis.example:6379', DATA_DIR: '/srv/wf/data' };
  it('the flags name the directory and namespace; absent ones default to the platform\'s own variables', () => {
    expect(parseArgs(['move-to-cluster', '--namespace', 'prod'], env)).toEqual({ op: 'move-to-cluster', dataDir: '/srv/wf/data', natsUrl: 'nats.example:4222', redisUrl: 'redis://redis.example:6379', namespace: 'prod', replicas: undefined, readingRetentionMs: undefined });
    expect(parseArgs(['move-to-cluster', '--data-dir=/d', '--nats', 'n:1', '--redis', 'redis://r', '--replicas', '3'], {})).toMatchObject({ dataDir: '/d', natsUrl: 'n:1', redisUrl: 'redis://r', namespace: 'wf', replicas: 3 });
  });

  it.each([
    [['--namespce', 'prod'], 'does not know --namespce'],
    [['--replicas', 'three'], 'must be a positive whole number'],
    [['stray'], 'unexpected argument stray'],
  ])('a mistyped flag is refused rather than falling back to a default namespace or directory: %j', (args, message) => {
    expect(() => parseArgs(['move-to-cluster', ...args], env)).toThrow(message);
  });

  it('move-to-cluster needs NATS and Redis', () => {
    expect(() => parseArgs(['move-to-cluster'], {})).toThrow('needs --nats and --redis');
  });
});

/** Records of several areas made through the API over the local stores, and what the platform served before it stopped. */
async function populateAndStop(clock: ManualClock, dir: string) {
  const local = localTestStores(clock, { dir, keep: true });
  const h = await startHarness({ clock, stores: local });
  let up = true;
  cleanup.push(() => (up ? h.close() : undefined));

  const p = await populate(h);
  const ceiling = await h.request('POST', '/v1/sourcing/spend_ceilings', { key: p.o.key, body: { amount: ngn(1_000_000) }, idempotencyKey: 'ik-move-ceiling' });
  expect(ceiling.status, ceiling.text).toBe(200);
  const requisition = await h.request('POST', '/v1/sourcing/requisitions', { key: p.o.key, body: fullBody(), idempotencyKey: 'ik-move-requisition' });
  expect(requisition.status, requisition.text).toBe(201);
  // A consent token keeps a durable reminder (its expiry).
  const token = await consent(h, subject('moved'), {}, { key: p.o.key });
  const signedIn = await h.request('POST', '/v1/sessions', { key: null, body: { email: p.o.email, password: p.o.password } });
  expect(signedIn.status, signedIn.text).toBe(200);
  const readings = {
    wkr_moved_a: [{ recordedAt: clock.now() - 1_000, data: { lat: 6.45, lng: 3.39 } }],
    wkr_moved_b: [{ recordedAt: clock.now() - 2_000, data: { lat: 9.07, lng: 7.49 } }, { recordedAt: clock.now() - 500, data: { lat: 9.08, lng: 7.5 } }],
  };
  for (const [worker, rs] of Object.entries(readings)) await local.readings.append(worker, rs);
  // A key past the local family's longest part is kept by its digest: its name cannot move.
  await local.kv.set(`hostile:${'x'.repeat(600)}`, 1);
  await h.platform.system.settle();

  // What the platform served before it stopped: derived lists (audit entries, events) included.
  const lists = ['/v1/api_keys', '/v1/identity/consent_tokens', '/v1/payroll/runs', '/v1/sourcing/requisitions', '/v1/sourcing/spend_ceilings', '/v1/payroll/events', '/v1/payroll/audit_entries', '/v1/sourcing/events'];
  const before = new Map<string, unknown[]>();
  for (const path of lists) before.set(path, await listAll(h, path, p.o.key));
  expect(before.get('/v1/payroll/audit_entries')!.length).toBeGreaterThan(0);
  const localFeed = await feed(local.journal);
  // The feed readers' cursors (reactions, the event feed, ...) have read the whole feed: each names its last entry.
  const cursors = [...(local as LocalStores).entries('kv')].map((e) => e.key as string).filter((k) => k.endsWith(':cursor'));
  expect(cursors).toEqual(expect.arrayContaining(['runtime:reactions:cursor', 'delivery:feed:cursor']));
  for (const k of cursors) expect(await local.kv.get(k), k).toBe(localFeed[localFeed.length - 1].position);
  const reminders = [...(local as LocalStores).entries('reminders')].map((e) => e.value as Reminder);
  expect(reminders.map((r) => r.id)).toContain(token.id);
  up = false;
  await h.close();
  return { p, ceiling, requisition, token, signedIn, readings, before, localFeed, cursors, reminders };
}

type Moved = Awaited<ReturnType<typeof populateAndStop>>;

/** The cluster platform over the moved namespace serves what the local one did: records, lists, credentials, replays, reactions not run again. */
async function expectServedAsBefore(c: Harness, m: Moved): Promise<void> {
  const { p, before } = m;
  await expectPopulated(c, p, [p.o.key, p.second.key]);
  for (const [path, records] of before) expect(await listAll(c, path, p.o.key), path).toEqual(records);
  expect((await c.request('GET', `/v1/sourcing/requisitions/${m.requisition.body.id}`, { key: p.o.key })).body).toEqual(m.requisition.body);
  expect((await c.request('GET', `/v1/sourcing/spend_ceilings/${m.ceiling.body.id}`, { key: p.o.key })).status).toBe(200);
  expect((await c.request('GET', `/v1/identity/consent_tokens/${m.token.id}`, { key: p.o.key })).body).toMatchObject({ id: m.token.id, status: 'active' });

  // Credentials: the registration's session, a new sign-in with the same password, the email still taken.
  expect((await c.request('GET', '/v1/me', { key: null, session: p.o.session })).status).toBe(200);
  expect((await c.request('GET', '/v1/me', { key: null, session: m.signedIn.body.token })).status).toBe(200);
  expect((await c.request('POST', '/v1/sessions', { key: null, body: { email: p.o.email, password: p.o.password } })).status).toBe(200);
  expect((await c.request('POST', '/v1/sessions', { key: null, body: { email: p.o.email, password: 'not-the-password-9' } })).status).toBe(401);
  const again = await c.request('POST', '/v1/registrations', { key: null, body: { organisation_name: 'Again Ltd', name: 'Ada Again', email: p.o.email, password: 'violet-harmattan-7-kettle' } });
  expect(again.status, again.text).toBe(409);

  // An idempotency record moved with its remaining time: the same key and body replay the first answer.
  const replay = await c.request('POST', '/v1/sourcing/spend_ceilings', { key: p.o.key, body: { amount: ngn(1_000_000) }, idempotencyKey: 'ik-move-ceiling' });
  expect(replay.headers['service-idempotent-replay']).toBe('true');
  expect(replay.body).toEqual(m.ceiling.body);

  // Reactions neither ran again nor skipped: after settling, the derived lists are as they were.
  await c.platform.system.settle();
  for (const path of ['/v1/payroll/events', '/v1/payroll/audit_entries']) expect(await listAll(c, path, p.o.key), path).toEqual(before.get(path));
}

describe.runIf(storeFamily() === 'cluster')('move-to-cluster (DESIGN "Stores", issue 33 "Outgrowing one machine")', () => {
  it('a moved directory is served by a cluster platform: every record by id, lists whole, the same API keys, sign-in, sessions, email reservations, idempotent replays, feed cursors', async () => {
    const dir = tempDir();
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    // The CLI reads expiries on the system clock; the platforms' clocks start there too.
    const m = await populateAndStop(new ManualClock(Date.now()), dir);

    const ns = testNamespace('move');
    // The namespace goes with the test, whatever it stops at.
    cleanup.push(async () => (await clusterTestStores(new ManualClock(), { namespace: ns, ephemeral: true })).close());
    const { stdout } = await move(dir, ns);
    const counts = JSON.parse(stdout);
    expect(counts).toMatchObject({ namespace: ns, events: m.localFeed.length, reminders: m.reminders.length, readings: 3, cursors: m.cursors.length, unnamed: 1 });
    expect(counts.kv_records).toBeGreaterThan(0);

    // The namespace now holds a journal: a second move into it is refused.
    expect(await refused(move(dir, ns))).toContain(`namespace ${ns} already has a journal`);

    const cclock = new ManualClock(Date.now());
    const stores: Stores = await clusterTestStores(cclock, { namespace: ns, ephemeral: true });
    // The cluster feed holds the same events in the same order, and each cursor names the same entry there.
    const clusterFeed = await feed(stores.journal);
    expect(clusterFeed.map((e) => [e.stream, e.event.id])).toEqual(m.localFeed.map((e) => [e.stream, e.event.id]));
    for (const k of m.cursors) expect(await stores.kv.get(k)).toBe(clusterFeed[clusterFeed.length - 1].position);
    for (const r of m.reminders) expect(await stores.reminders.get(r.key)).toEqual(r);
    for (const [worker, rs] of Object.entries(m.readings)) expect(await stores.readings.range(worker, 0, cclock.now()), worker).toEqual(rs);

    const c = await startHarness({ clock: cclock, stores });
    cleanup.push(() => c.close());
    await expectServedAsBefore(c, m);
  });
});
