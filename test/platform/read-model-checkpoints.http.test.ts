/**
 * Read models kept between a stop and a start (kernel/read-model-checkpoints.ts; docs/architecture.md
 * "What a restart costs"): on the local stores a graceful stop writes what every read model a node
 * keeps took from the journal (the identity gate, engagement standing, credential eligibility, the
 * revoked API keys and device credentials, the sandbox counts), and a start of the same build takes
 * it back and reads the journal only past it. What a model holds then is what a start that reads the
 * whole journal gives: each start's own stop writes its models again, and the two are compared.
 * Run in the local project only: it restarts on one directory.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pack, unpack } from 'msgpackr';
import { afterAll, describe, expect, it } from 'vitest';
import { credentialEligibility } from '../../actors/credentials/index.ts';
import { engagementStanding } from '../../actors/engagements/index.ts';
import { identityGate } from '../../actors/identity/index.ts';
import { areas } from '../../actors/index.ts';
import { createPlatform, type Platform, sandboxCaps, stopPlatform } from '../../kernel/index.ts';
import { ManualClock } from '../../runtime/index.ts';
import { startHarness, type Harness } from '../../support/http.ts';
import { localTestStores, tempDir } from '../../support/stores.ts';
import { dispatchKit } from '../allocation/dispatch-support.ts';
import { verify } from '../credentials/support.ts';

const FILE = 'read-models.checkpoint';
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

interface Kept {
  build: string;
  position: number;
  models: Record<string, { cursor: number; data: unknown }>;
}
const kept = (dir: string): Kept => unpack(readFileSync(join(dir, FILE))) as Kept;

/** Each model's data, its collections in one order (a start that read the feed and one that took a checkpoint may have met records in another). */
function canonical(k: Kept): Record<string, unknown> {
  const sorted = (x: unknown): unknown => (Array.isArray(x) ? x.map((e) => JSON.stringify(e)).sort() : x);
  return Object.fromEntries(
    Object.entries(k.models).map(([name, { data }]) => [name, Array.isArray(data) ? sorted(data) : Object.fromEntries(Object.entries(data as object).map(([f, v]) => [f, sorted(v)]))]),
  );
}

let n = 0;
const ik = (what: string) => `ckpt-${what}-${process.pid}-${++n}`;

/**
 * The local stores on `dir`; `readFrom` records the positions feed readers read from, and `entries`
 * how many entries they were given (a one-entry read excepted). `every`: the readers' `only` is
 * dropped, so every record is read.
 */
function storesOn(dir: string, clock: ManualClock, every = false) {
  const stores = localTestStores(clock, { dir });
  const readFrom: number[] = [];
  const got = { entries: 0 };
  const readFeed = stores.journal.readFeed.bind(stores.journal);
  stores.journal.readFeed = async (after, limit, only) => {
    const out = await readFeed(after, limit, every ? undefined : only);
    if (limit > 1) {
      readFrom.push(after);
      got.entries += out.length;
    }
    return out;
  };
  return { stores, readFrom, got };
}

/** The platform and its gateway on `dir` as the build `build` (it registers an organisation of its own). */
async function serve(dir: string, clock: ManualClock, build: string): Promise<Harness> {
  return startHarness({ clock, stores: storesOn(dir, clock).stores, config: { WORKFORCE_BUILD_ID: build } });
}

/** The platform alone on `dir` as the build `build`: it writes nothing of its own, so two such starts keep the same models. */
async function start(dir: string, clock: ManualClock, build: string, every = false) {
  const { stores, readFrom, got } = storesOn(dir, clock, every);
  const platform = await createPlatform({ areas, stores, clock, config: { WORKFORCE_BUILD_ID: build } });
  return { platform, readFrom, got, close: () => stopPlatform(platform) };
}

interface World {
  org: string;
  eligible: string;
  unverified: string;
  licensed: string;
}

/** Records behind every kept model: workers with and without a passport and an engagement, a licence, a revoked API key and device credential. */
async function populate(h: Harness): Promise<World> {
  const kit = dispatchKit(h);
  const p = kit.centre();
  const eligible = (await kit.worker(p, 100)).worker;
  const unverified = (await kit.worker(p, 200, { passport: false })).worker;
  const licensed = (await kit.worker(p, 300)).worker;
  const token = await h.request('POST', '/v1/identity/consent_tokens', { body: { subject_ref: licensed, purpose: 'credential_verification', checks: ['government_identifier', 'name_match', 'date_of_birth_match'], wording_version: 'cv-2026-11' }, idempotencyKey: ik('consent') });
  expect(token.status, token.text).toBe(201);
  const v = await verify(h, { subject_ref: licensed, issuer_id: 'proof_issuer_nemsa', credential_kind: 'nemsa_competency_certificate', consent_token_id: token.body.id, credential_reference: `NEMSA-${process.pid}${n}` }, ik('cv'));
  expect(v.status, v.text).toBe(201);
  await h.clock.advance(72 * 3_600_000); // the portal answers after 72 hours
  await revokeKey(h);
  const dc = await h.request('POST', '/v1/allocation/device_credentials', { body: { worker_id: eligible, name: 'phone' }, idempotencyKey: ik('dc') });
  expect(dc.status, dc.text).toBe(201);
  expect((await h.request('POST', `/v1/allocation/device_credentials/${dc.body.id}/revoke`, { idempotencyKey: ik('dcr') })).status).toBe(200);
  await h.platform.system.settle();
  return { org: h.org, eligible, unverified, licensed };
}

async function revokeKey(h: Harness): Promise<void> {
  const k = await h.request('POST', '/v1/api_keys', { body: { name: 'kept', scopes: ['iam:read'] }, idempotencyKey: ik('key') });
  expect(k.status, k.text).toBe(200);
  expect((await h.request('POST', `/v1/api_keys/${k.body.id}/revoke`, { idempotencyKey: ik('rv') })).status).toBe(200);
}

/** What the kept models answer about the world. */
function answers(platform: Platform, w: World) {
  const licence = { occupation_code: 'ng-7412', claim_codes: [] as string[] };
  return {
    live: [identityGate(platform).isLive(w.org, w.eligible), identityGate(platform).isLive(w.org, w.unverified)],
    current: [engagementStanding(platform).isCurrent(w.org, w.eligible), engagementStanding(platform).isCurrent(w.org, w.unverified)],
    licensed: [credentialEligibility(platform).check(w.org, w.licensed, licence).eligible, credentialEligibility(platform).check(w.org, w.eligible, licence).eligible],
    records: sandboxCaps(platform).recordsOf(w.org),
  };
}

function newDir(): string {
  const d = tempDir('wf-read-model-ckpt-');
  dirs.push(d);
  return d;
}

/** A new directory that a platform of `build` populated and then stopped: what it answered before the stop. */
async function populated(clock: ManualClock, build = 'build-1'): Promise<{ dir: string; w: World; before: ReturnType<typeof answers> }> {
  const dir = newDir();
  const h = await serve(dir, clock, build);
  const w = await populate(h);
  const before = answers(h.platform, w);
  await h.close();
  return { dir, w, before };
}

/** A start on `dir` that answers as `before` did, stopped again: where its readers read from, how many entries they were given, what its stop kept. */
async function restart(dir: string, clock: ManualClock, build: string, world: { w: World; before: ReturnType<typeof answers> }, every = false) {
  const s = await start(dir, clock, build, every);
  // no settle(): createPlatform has taken the models back, or read the journal, before serving
  expect(answers(s.platform, world.w)).toEqual(world.before);
  await s.close();
  return { from: Math.min(...s.readFrom), entries: s.got.entries, kept: kept(dir) };
}

describe.runIf(process.env.TEST_STORES === 'local')('read models kept between a stop and a start (docs/architecture.md "What a restart costs")', { timeout: 120_000 }, () => {
  it('a graceful stop keeps every read model; a start of the same build takes them back, reads the journal only past them, and holds what a start reading the whole journal holds', async () => {
    const clock = new ManualClock();
    const { dir, w, before } = await populated(clock);
    expect(before).toMatchObject({ live: [true, false], current: [true, false], licensed: [true, false] });
    expect(before.records).toBeGreaterThan(5);
    const stopped = kept(dir);
    expect(stopped.build).toBe('build-1');
    expect(Object.keys(stopped.models).sort()).toEqual(['accounts-revoked-keys', 'allocation-device-revocations', 'credentials-eligibility', 'engagements-standing', 'identity-gate', 'sandbox-records'].sort());

    const again = await restart(dir, clock, 'build-1', { w, before });
    expect(again.from).toBe(stopped.position);

    // another build takes nothing back: it reads the whole journal, and its models are the same
    const whole = await restart(dir, clock, 'build-2', { w, before });
    expect(whole.from).toBe(0);
    expect(whole.kept.build).toBe('build-2');
    expect(canonical(again.kept)).toEqual(canonical(whole.kept));
    expect(canonical(again.kept)).toEqual(canonical(stopped));
  });

  it('records committed after the last checkpoint, as a kill -9 leaves them, are read from the journal past it at the next start', async () => {
    const clock = new ManualClock();
    const { dir, w } = await populated(clock);
    const old = readFileSync(join(dir, FILE));
    const oldPosition = kept(dir).position;

    const second = await serve(dir, clock, 'build-1');
    const kit = dispatchKit(second);
    const late = (await kit.worker(kit.centre(), 100)).worker;
    await revokeKey(second);
    await second.platform.system.settle();
    const after = { ...answers(second.platform, w), org: second.org, late: identityGate(second.platform).isLive(second.org, late) };
    await second.close();
    expect(kept(dir).position).toBeGreaterThan(oldPosition);
    // the checkpoint a kill -9 of the second process would have left: the first one's
    writeFileSync(join(dir, FILE), old);

    const third = await start(dir, clock, 'build-1');
    expect(Math.min(...third.readFrom)).toBe(oldPosition);
    expect({ ...answers(third.platform, w), org: after.org, late: identityGate(third.platform).isLive(after.org, late) }).toEqual(after);
    expect(after.late).toBe(true);
    await third.close();
    const resumed = kept(dir);

    const whole = await start(dir, clock, 'build-2');
    expect(Math.min(...whole.readFrom)).toBe(0);
    await whole.close();
    expect(canonical(resumed)).toEqual(canonical(kept(dir)));
  });

  it('a start reading the whole journal reads the events of the records some read model reads, and its models are those of a start reading every record', async () => {
    const clock = new ManualClock();
    const { dir, w, before } = await populated(clock);

    const every = await restart(dir, clock, 'build-2', { w, before }, true);
    const some = await restart(dir, clock, 'build-3', { w, before });
    expect(some.from).toBe(0);
    expect(canonical(some.kept)).toEqual(canonical(every.kept));
    // workers' later records (availability, presence), verifications, consents and the rest are not read
    expect(some.entries).toBeLessThan(every.entries * 0.8);
  });

  it('a checkpoint a model cannot take back stops the start, naming the file to remove; without it the start reads the whole journal', async () => {
    const clock = new ManualClock();
    const { dir, w, before } = await populated(clock);
    const good = kept(dir);
    const bad = { ...good, models: { ...good.models, 'credentials-eligibility': { cursor: good.position, data: [[w.org, w.licensed, 5, []]] } } };
    writeFileSync(join(dir, FILE), pack(bad));
    const { stores } = storesOn(dir, clock);
    try {
      await expect(createPlatform({ areas, stores, clock, config: { WORKFORCE_BUILD_ID: 'build-1' } })).rejects.toThrow(`remove ${join(dir, FILE)} and start again`);
    } finally {
      await stores.close();
    }
    rmSync(join(dir, FILE));
    expect((await restart(dir, clock, 'build-1', { w, before })).from).toBe(0);
  });

  it('a checkpoint written from another journal is left, and the whole journal is read', async () => {
    const clock = new ManualClock();
    const other = (await populated(clock)).dir;
    const { dir, w, before } = await populated(clock);
    writeFileSync(join(dir, FILE), readFileSync(join(other, FILE)));

    expect((await restart(dir, clock, 'build-1', { w, before })).from).toBe(0);
  });
});
