/**
 * A request under the sandbox record cap is all or nothing (docs/gaps.md#sandbox-caps;
 * kernel/sandbox-caps.ts, gateway/sandbox-work.ts), over a real socket in each store project:
 * - an operation the sandbox policy counts up front (an import: its rows) whose records would pass
 *   the cap is refused 403 sandbox_record_limit_reached before it makes any, and one that fits is
 *   made whole;
 * - any other request is decided at its first create: admitted, none of its creates is refused;
 *   refused, it made nothing;
 * - requests in flight at once hold what they make, so together they do not pass the cap.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { areas as allAreas } from '../../actors/index.ts';
import { ApiError, type Area, route, sandboxCaps } from '../../kernel/index.ts';
import { type Harness, startHarness } from '../../support/http.ts';
import { tempDir } from '../../support/stores.ts';
import { until } from '../../support/until.ts';
import { Counter } from '../runtime/counter.ts';

const RECORDS = 40;
const PACK = {
  name: 'sandbox_policy',
  version: '2026.11.2',
  records: RECORDS,
  heavy_work: { per_organisation: 10, per_node: 10, retry_after_seconds: 1, operations: [] },
  counted_up_front: { 'POST /v1/payroll/imports': { fixed: 2, per_row: 2, rows: 'rows', csv: 'csv' } },
};

/** Requests a test holds between their first create and their second. */
const gate = { waiting: [] as Array<() => void> };
const probe: Area = {
  name: 'whole-probe',
  kinds: [Counter],
  routes: [
    route({
      method: 'POST',
      path: '/v1/probe/counter_sets',
      auth: 'key',
      module: 'match',
      idempotent: false,
      summary: 'probe: opens `n` counters one after another (several records from one request); `hold`: says so up front, then waits for the test before the first',
      handler: async (req) => {
        const { n, hold } = req.body as { n: number; hold?: boolean };
        if (hold) {
          // as the gateway does for an operation the policy counts up front (gateway/sandbox-work.ts)
          await sandboxCaps(req.platform).prepare(req.requestId, n);
          const why = sandboxCaps(req.platform).admit(req.requestId, n);
          if (why !== undefined) throw new ApiError('sandbox_record_limit_reached', why);
          await new Promise<void>((r) => gate.waiting.push(r));
        }
        const opts = { org: req.org, requestId: req.requestId, principal: req.principal!.id };
        for (let i = 0; i < n; i++) await req.platform.system.ask(Counter, `ctr_set_${req.requestId}_${i}`, 'open', {}, opts);
        return { object: 'probe_counter_set', opened: n };
      },
    }),
  ],
};

const packFile = join(tempDir('wf-sandbox-whole-'), 'pack.json');
writeFileSync(packFile, JSON.stringify(PACK));

const payee = (n: number) => ({ payee_ref: `whole-${n}`, monthly_basic: { amount: 30_000_000, currency: 'NGN' }, state_of_residence: 'NG-LA', starts_on: '2026-01-01' });

describe('a request under the sandbox record cap is all or nothing (docs/gaps.md#sandbox-caps)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ areas: [...allAreas, probe], config: { SANDBOX_POLICY_FILE: packFile } });
  });
  afterAll(async () => {
    for (const r of gate.waiting.splice(0)) r();
    await h?.close();
  });

  /** An organisation whose sandbox holds `left` records fewer than the cap (counters opened by the probe). */
  async function orgWithRoom(left: number): Promise<{ key: string; org: string }> {
    const a = await h.register();
    await h.platform.system.settle();
    const fill = RECORDS - left - sandboxCaps(h.platform).recordsOf(a.org);
    expect(fill).toBeGreaterThan(0);
    expect((await h.request('POST', '/v1/probe/counter_sets', { key: a.key, body: { n: fill } })).status).toBe(200);
    await h.platform.system.settle();
    expect(sandboxCaps(h.platform).recordsOf(a.org)).toBe(RECORDS - left);
    return a;
  }

  it('an import whose rows would pass the cap is refused 403 sandbox_record_limit_reached before it makes any record; one that fits is made whole', async () => {
    const a = await orgWithRoom(9);
    // 4 rows: the import, the employer and two records a row, 10 > 9
    const refused = await h.request('POST', '/v1/payroll/imports', { key: a.key, idempotencyKey: 'whole-import-4', body: { format: 'json', rows: [1, 2, 3, 4].map(payee) } });
    expect(refused.status, refused.text).toBe(403);
    expect(refused.body.error).toMatchObject({ code: 'sandbox_record_limit_reached', retryable: false });
    expect(refused.body.error.message).toMatch(/the 10 records this request would create would pass it, so nothing was created/);
    await h.platform.system.settle();
    expect(sandboxCaps(h.platform).recordsOf(a.org)).toBe(RECORDS - 9);
    expect((await h.request('GET', '/v1/pay_profiles', { key: a.key })).body.data).toEqual([]);
    // the same import in CSV is counted by its data lines
    const csv = ['payee_ref,monthly_basic,state_of_residence,starts_on', ...[1, 2, 3, 4].map((n) => `whole-${n},30000000,NG-LA,2026-01-01`)].join('\n');
    const refusedCsv = await h.request('POST', '/v1/payroll/imports', { key: a.key, idempotencyKey: 'whole-import-csv', body: { format: 'csv', csv } });
    expect(refusedCsv.status, refusedCsv.text).toBe(403);
    expect((await h.request('GET', '/v1/pay_profiles', { key: a.key })).body.data).toEqual([]);

    const made = await h.request('POST', '/v1/payroll/imports', { key: a.key, idempotencyKey: 'whole-import-3', body: { format: 'json', rows: [1, 2, 3].map(payee) } });
    expect(made.status, made.text).toBe(201);
    expect(made.body.rows).toHaveLength(3);
    expect((await h.request('GET', '/v1/pay_profiles', { key: a.key })).body.data).toHaveLength(3);
  });

  it('a request not counted up front is decided at its first create: admitted, every create it asks is made; refused, it made nothing', async () => {
    const a = await orgWithRoom(1);
    const whole = await h.request('POST', '/v1/probe/counter_sets', { key: a.key, body: { n: 3 } });
    expect(whole.status, whole.text).toBe(200);
    await h.platform.system.settle();
    expect(sandboxCaps(h.platform).recordsOf(a.org)).toBe(RECORDS + 2);
    const refused = await h.request('POST', '/v1/probe/counter_sets', { key: a.key, body: { n: 3 } });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('sandbox_record_limit_reached');
    await h.platform.system.settle();
    expect(sandboxCaps(h.platform).recordsOf(a.org)).toBe(RECORDS + 2);
  });

  it('requests in flight at once hold what they make: with room for three, one making two holds them until it ends, so another making two is refused meanwhile', async () => {
    const a = await orgWithRoom(3);
    const first = h.request('POST', '/v1/probe/counter_sets', { key: a.key, body: { n: 2, hold: true } });
    await until(() => gate.waiting.length === 1, 10_000);
    expect(sandboxCaps(h.platform).recordsOf(a.org)).toBe(RECORDS - 3); // admitted, nothing made yet
    const second = await h.request('POST', '/v1/probe/counter_sets', { key: a.key, body: { n: 2, hold: true } });
    expect(second.status).toBe(403);
    expect(second.body.error.message).toMatch(/and 2 more that requests in flight are making/);
    gate.waiting.splice(0).forEach((r) => r());
    expect((await first).status).toBe(200);
    await h.platform.system.settle();
    expect(sandboxCaps(h.platform).recordsOf(a.org)).toBe(RECORDS - 1);
    const third = h.request('POST', '/v1/probe/counter_sets', { key: a.key, body: { n: 1, hold: true } });
    await until(() => gate.waiting.length === 1, 10_000);
    gate.waiting.splice(0).forEach((r) => r());
    expect((await third).status).toBe(200);
    await h.platform.system.settle();
    expect(sandboxCaps(h.platform).recordsOf(a.org)).toBe(RECORDS);
  });
});
