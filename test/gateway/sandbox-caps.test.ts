/**
 * Sandbox caps (docs/gaps.md#sandbox-caps; kernel/sandbox-caps.ts, gateway/sandbox-work.ts), from
 * a sandbox policy pack named in the platform's config, over a real socket:
 * - an organisation's sandbox makes records up to its cap; a request that would create one more
 *   is refused 403 sandbox_record_limit_reached, while the organisation still reads and acts on
 *   the records it has and another organisation creates as before;
 * - over the durable stores the count is rebuilt from the journal after a restart, and in a
 *   cluster every node counts the records made on the others;
 * - memory-heavy work runs at most the pack's share at once, per organisation and per node: past
 *   it, 429 sandbox_work_limit_reached with Retry-After, and served again once one has finished;
 * - a WebSocket frame of a sandbox credential is held to the record cap as a request is;
 * - the active pack names only declared operations (a platform starts with it).
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { areas as allAreas } from '../../actors/index.ts';
import { type Area, createPlatform, route, sandboxCaps, stopPlatform } from '../../kernel/index.ts';
import { ManualClock } from '../../runtime/index.ts';
import { type Harness, startHarness } from '../../support/http.ts';
import { clusterTestStores, localTestStores, storeFamily, tempDir, testNamespace } from '../../support/stores.ts';
import { until } from '../../support/until.ts';
import { connect } from '../../support/ws.ts';
import { Counter } from '../runtime/counter.ts';

const RECORDS = 12;
const PACK = {
  name: 'sandbox_policy',
  version: '2026.11.1',
  records: RECORDS,
  heavy_work: { per_organisation: 1, per_node: 2, retry_after_seconds: 1, operations: ['POST /v1/probe/heavy'] },
};

/** Heavy work a test holds in flight until it lets it go. */
const heavy = { started: 0, release: [] as Array<() => void> };
const heavyArea: Area = {
  name: 'heavy-probe',
  kinds: [Counter],
  sockets: [
    {
      path: '/v1/probe/counters',
      module: 'match',
      summary: 'probe: each frame names a counter, opened for the caller (a record made by a frame)',
      async onMessage(frame, ctx) {
        const id = Buffer.from(frame.data).toString('utf8');
        await ctx.platform.system.ask(Counter, id, 'open', {}, { org: ctx.org, requestId: ctx.requestId, principal: ctx.principal.id });
        return JSON.stringify({ opened: id });
      },
    },
  ],
  routes: [
    route({
      method: 'POST',
      path: '/v1/probe/heavy',
      auth: 'key',
      module: 'run',
      idempotent: false,
      summary: 'probe: memory-heavy work, held until the test lets it go',
      handler: async () => {
        heavy.started++;
        await new Promise<void>((r) => heavy.release.push(r));
        return { object: 'probe_heavy' };
      },
    }),
  ],
};

const packFile = join(tempDir('wf-sandbox-'), 'pack.json');
writeFileSync(packFile, JSON.stringify(PACK));
const config = { SANDBOX_POLICY_FILE: packFile };

/** Creates API keys until one is refused; the statuses of every answer. */
async function createKeysUntilRefused(h: Harness, key: string, most: number): Promise<{ created: number; refused: any }> {
  for (let n = 0; n < most; n++) {
    const r = await h.request('POST', '/v1/api_keys', { key, body: { name: `key ${n}` }, idempotencyKey: `cap-${key.slice(-8)}-${n}` });
    if (r.status !== 200) return { created: n, refused: r };
  }
  throw new Error(`no refusal after ${most} keys`);
}

describe('sandbox record cap (docs/gaps.md#sandbox-caps)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ areas: [...allAreas, heavyArea], config });
  });
  afterAll(async () => h?.close());

  it('a sandbox request that would create a record past the cap is refused 403 sandbox_record_limit_reached; the organisation still reads and acts on its records, and another organisation creates', async () => {
    const a = await h.register();
    await h.platform.system.settle(); // the records the platform makes after a registration (its event stream) count too
    const made = sandboxCaps(h.platform).recordsOf(a.org);
    expect(made).toBeGreaterThan(0);
    expect(made).toBeLessThan(RECORDS);
    const { created, refused } = await createKeysUntilRefused(h, a.key, RECORDS);
    expect(created).toBe(RECORDS - made);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: 'sandbox_record_limit_reached', retryable: false });
    expect(refused.body.error.message).toMatch(new RegExp(`holds ${RECORDS} records .*allows ${RECORDS}`));
    expect(sandboxCaps(h.platform).recordsOf(a.org)).toBe(RECORDS);
    // the same request again is the same refusal (kept for its Idempotency-Key), never a crash
    const again = await h.request('POST', '/v1/api_keys', { key: a.key, body: { name: `key ${created}` }, idempotencyKey: `cap-${a.key.slice(-8)}-${created}` });
    expect(again.body.error.code).toBe('sandbox_record_limit_reached');

    const list = await h.request('GET', '/v1/api_keys', { key: a.key });
    expect(list.status).toBe(200);
    const other = list.body.data.find((k: any) => k.id !== a.keyId && k.revoked_at === null);
    const revoked = await h.request('POST', `/v1/api_keys/${other.id}/revoke`, { key: a.key, idempotencyKey: 'cap-revoke' });
    expect(revoked.status).toBe(200);
    expect(revoked.body.revoked_at).not.toBeNull();

    // a frame of the organisation's sandbox credential is held to the cap as a request is
    const socket = await connect(`http://127.0.0.1:${h.port}/v1/probe/counters`, { 'service-api-key': a.key });
    try {
      socket.send(`ctr_cap_${a.org}`);
      const frame = JSON.parse((await socket.next()).text);
      expect(frame.error).toMatchObject({ code: 'sandbox_record_limit_reached', retryable: false });
    } finally {
      socket.close();
    }

    const b = await h.register();
    expect((await h.request('POST', '/v1/api_keys', { key: b.key, body: { name: 'b' }, idempotencyKey: 'cap-b' })).status).toBe(200);
    const socketOfB = await connect(`http://127.0.0.1:${h.port}/v1/probe/counters`, { 'service-api-key': b.key });
    try {
      socketOfB.send(`ctr_cap_${b.org}`);
      expect(JSON.parse((await socketOfB.next()).text)).toEqual({ opened: `ctr_cap_${b.org}` });
    } finally {
      socketOfB.close();
    }
    expect(await h.gateway.metrics.text()).toMatch(/^platform_sandbox_organisations_at_record_cap 1$/m);
  });
});

describe('sandbox heavy work (docs/gaps.md#sandbox-caps)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ areas: [...allAreas, heavyArea], config });
  });
  afterAll(async () => {
    for (const r of heavy.release.splice(0)) r();
    await h?.close();
  });

  it('memory-heavy work past its share is refused 429 sandbox_work_limit_reached with Retry-After, per organisation and per node, and served once one has finished', async () => {
    const [a, b, c] = [await h.register(), await h.register(), await h.register()];
    const first = h.request('POST', '/v1/probe/heavy', { key: a.key });
    await until(() => heavy.started === 1, 10_000);
    const second = await h.request('POST', '/v1/probe/heavy', { key: a.key });
    expect(second.status).toBe(429);
    expect(second.body.error).toMatchObject({ code: 'sandbox_work_limit_reached', retryable: true });
    expect(second.body.error.message).toMatch(/this organisation runs 1 memory-heavy/);
    expect(second.headers['retry-after']).toBe('1');
    // other work of the same organisation goes on
    expect((await h.request('GET', '/v1/api_keys', { key: a.key })).status).toBe(200);

    const fromB = h.request('POST', '/v1/probe/heavy', { key: b.key });
    await until(() => heavy.started === 2, 10_000);
    const fromC = await h.request('POST', '/v1/probe/heavy', { key: c.key });
    expect(fromC.status).toBe(429);
    expect(fromC.body.error.message).toMatch(/this node runs 2 memory-heavy operations of sandbox organisations/);

    for (const r of heavy.release.splice(0)) r();
    expect((await first).status).toBe(200);
    expect((await fromB).status).toBe(200);
    const later = h.request('POST', '/v1/probe/heavy', { key: a.key });
    await until(() => heavy.started === 3, 10_000);
    heavy.release.splice(0).forEach((r) => r());
    expect((await later).status).toBe(200);
    const text = await h.gateway.metrics.text();
    expect(text).toMatch(/^platform_sandbox_heavy_work_refused_total\{cap="organisation"\} 1$/m);
    expect(text).toMatch(/^platform_sandbox_heavy_work_refused_total\{cap="node"\} 1$/m);
    expect(text).toMatch(/^platform_sandbox_heavy_work_running 0$/m);
  });

  it('the active sandbox policy names only declared operations: a platform starts with it', async () => {
    const active = await startHarness({ config: { SANDBOX_POLICY_FILE: '' } });
    try {
      expect(sandboxCaps(active.platform).policy.pack.heavy_work.operations).toContain('POST /v1/payroll/imports');
      expect((await active.request('GET', '/v1/api_keys')).status).toBe(200);
    } finally {
      await active.close();
    }
  });
});

describe.runIf(storeFamily() !== 'memory')('the record count over durable stores', () => {
  const clock = new ManualClock();
  const dir = tempDir('wf-sandbox-restart-');
  const namespace = testNamespace('caps');
  const stores = () => (storeFamily() === 'local' ? Promise.resolve(localTestStores(clock, { dir })) : clusterTestStores(clock, { namespace, ephemeral: false }));
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    if (storeFamily() === 'cluster') await (await clusterTestStores(clock, { namespace, ephemeral: true })).close();
  });

  it('is rebuilt from the journal after a restart, so an organisation at its cap stays refused', async () => {
    let h = await startHarness({ clock, stores: await stores(), areas: [...allAreas, heavyArea], config });
    const a = await h.register();
    await createKeysUntilRefused(h, a.key, RECORDS);
    await h.close();

    h = await startHarness({ clock, stores: await stores(), areas: [...allAreas, heavyArea], config });
    try {
      // no settle(): createPlatform has read the journal into the count before serving
      expect(sandboxCaps(h.platform).recordsOf(a.org)).toBe(RECORDS);
      const r = await h.request('POST', '/v1/api_keys', { key: a.key, body: { name: 'after restart' }, idempotencyKey: 'cap-after-restart' });
      expect(r.status).toBe(403);
      expect(r.body.error.code).toBe('sandbox_record_limit_reached');
    } finally {
      await h.close();
    }
  });

  it.runIf(storeFamily() === 'cluster')('is shared in the cluster: another node counts the records made on this one', async () => {
    const h = await startHarness({ clock, stores: await stores(), areas: [...allAreas, heavyArea], config });
    const other = await createPlatform({ areas: [], stores: await stores(), clock, config });
    try {
      const a = await h.register();
      await createKeysUntilRefused(h, a.key, RECORDS);
      await until(() => sandboxCaps(other).recordsOf(a.org) === RECORDS, 10_000);
    } finally {
      await stopPlatform(other);
      await h.close();
    }
  });
});
