/**
 * Early refusals held (gateway/holds.ts; docs/gaps.md#rate-limits): a credential refused from its
 * request's head gets its 429 only after a hold, its connection's reading paused meanwhile, so a
 * flood waits on its own connections while others are served; nothing is held past MAX_HELD, and
 * a close answers every held refusal at once.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Holds, HOLD_MAX_MS, MAX_HELD, type Pausable } from '../../gateway/holds.ts';
import { startHarness, type Harness } from '../../support/http.ts';
import { tempDir } from '../../support/stores.ts';

const rule = (per_second: number, burst: number) => ({ per_second, burst });
const PACK = {
  name: 'gateway_rate_policy',
  version: '2026.11.1',
  credential: { api_key: rule(0.01, 2), access_token: rule(0.01, 2), session: rule(0.01, 2), device: rule(0.01, 2) },
  organisation: { sandbox: rule(100, 100), live: rule(100, 100) },
  unauthenticated: { address: rule(100, 100) },
  buckets_kept: 1_000,
};

function pausable(): Pausable & { log: string[] } {
  const log: string[] = [];
  return { log, pause: () => log.push('pause'), resume: () => log.push('resume') };
}

describe('holds (gateway/holds.ts)', () => {
  it('a held answer pauses its connection, and on release resumes it before answering', () => {
    const holds = new Holds();
    const res = pausable();
    const answered: string[] = [];
    expect(holds.hold(500, res, () => answered.push('429'))).toBe(true);
    expect(res.log).toEqual(['pause']);
    expect(holds.size).toBe(1);
    holds.releaseAll();
    expect(res.log).toEqual(['pause', 'resume']);
    expect(answered).toEqual(['429']);
    expect(holds.size).toBe(0);
    holds.releaseAll(); // a second release answers nothing twice
    expect(answered).toEqual(['429']);
  });

  it('nothing is held for no time, over MAX_HELD, or on a connection already gone', () => {
    const holds = new Holds();
    expect(holds.hold(0, pausable(), () => {})).toBe(false);
    for (let i = 0; i < MAX_HELD; i++) expect(holds.hold(HOLD_MAX_MS, pausable(), () => {})).toBe(true);
    expect(holds.hold(HOLD_MAX_MS, pausable(), () => {})).toBe(false);
    holds.releaseAll();
    const gone: Pausable = { pause: () => { throw new Error('Invalid access of discarded response'); }, resume: () => {} };
    expect(holds.hold(HOLD_MAX_MS, gone, () => {})).toBe(false);
  });
});

describe('a flooding credential is held on its own connection (docs/gaps.md#rate-limits)', () => {
  let h: Harness;
  beforeAll(async () => {
    const file = join(tempDir('wf-hold-'), 'pack.json');
    writeFileSync(file, JSON.stringify(PACK));
    h = await startHarness({ config: { RATE_POLICY_FILE: file, RATE_LIMIT_HOLD_MS: String(HOLD_MAX_MS) } });
  });
  afterAll(async () => h?.close());

  it('while the refused key waits for its held 429, another organisation is answered; the 429 says how long is left', async () => {
    await h.clock.advance(60_000);
    const flooder = await h.register();
    const other = await h.register();
    await h.clock.advance(60_000);
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await h.request('GET', '/v1/api_keys', { key: flooder.key })).status);
    expect(statuses).toEqual([200, 200, 429]); // the third is refused by the pipeline, and noted
    let heldAnswered = false;
    const held = h.request('GET', '/v1/api_keys', { key: flooder.key }).then((r) => ((heldAnswered = true), r));
    const served = await h.request('GET', '/v1/api_keys', { key: other.key });
    expect(served.status).toBe(200);
    expect(heldAnswered).toBe(false);
    const refused = await held;
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({ code: 'rate_limited', retryable: true });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });
});
