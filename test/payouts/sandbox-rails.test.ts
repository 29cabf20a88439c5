/**
 * The sandbox rails' documented test accounts (docs/gaps.md#payouts; the table in
 * actors/payouts/providers/sandbox.ts): what GET /v1/payouts/rails lists for a rail is what the
 * rail does with an account of that serial.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../runtime/index.ts';
import type { Stores } from '../../stores/index.ts';
import { testStores } from '../../support/stores.ts';
import { nuban, PAYOUTS_POLICY, sandboxRails } from '../../actors/payouts/index.ts';

let stores: Stores;
beforeAll(async () => {
  stores = await testStores(new ManualClock(Date.parse('2026-11-02T09:00:00Z')));
});
afterAll(async () => {
  await stores?.close();
});

describe('sandbox rails document their test accounts (docs/gaps.md#payouts)', () => {
  it('every rail lists the serials every rail treats alike (90, 92, 98) with its own, in serial order, and the rest settle', () => {
    const rails = sandboxRails(PAYOUTS_POLICY.pack.rails, stores.kv, stores.indexes, { resolveAfterMs: 1, latencyMs: 0 });
    expect(rails.length).toBeGreaterThan(1);
    for (const rail of rails) {
      const serials = rail.testAccounts.map((a) => a.serial_ends_with);
      expect(serials, rail.id).toEqual(expect.arrayContaining(['90', '92', '98']));
      expect(serials.slice(0, -1), rail.id).toEqual([...serials.slice(0, -1)].sort());
      expect(serials.at(-1), rail.id).toBe('any other');
    }
  });

  it('serial 90: name enquiry answers another name on every rail, as each rail documents', async () => {
    const rails = sandboxRails(PAYOUTS_POLICY.pack.rails, stores.kv, stores.indexes, { resolveAfterMs: 1, latencyMs: 0 });
    for (const rail of rails) {
      const answer = await rail.nameEnquiry('058', nuban('058', '123456790'), 0, 'Ada Obi');
      expect(answer, rail.id).toMatchObject({ status: 'found', account_name: 'A. N. Other' });
      const other = await rail.nameEnquiry('058', nuban('058', '123456700'), 0, 'Ada Obi');
      expect(other.account_name, rail.id).toBe('Ada Obi');
    }
  });
});
