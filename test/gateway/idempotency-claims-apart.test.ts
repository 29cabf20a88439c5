/**
 * Claims held apart from records (spec 8; STYLE "Idempotency is a rule with three outcomes";
 * stores/types.ts Stores.claims): over the local stores an execution's claim lives in the
 * process's memory and only its finished record goes to disk. The three outcomes hold as they do
 * with both in one store, a record kept while a second request was about to claim is replayed
 * rather than run again, and after a restart on the same directory a key whose first execution
 * never finished runs at once instead of waiting out a claim's lease.
 */
import { describe, expect, it } from 'vitest';
import { type Executed, Idempotency } from '../../gateway/idempotency.ts';
import { ApiError } from '../../kernel/index.ts';
import { ManualClock } from '../../runtime/index.ts';
import type { KeyValueStore } from '../../stores/index.ts';
import { MemoryKeyValue } from '../../stores/memory/kv.ts';
import { localTestStores, tempDir, testStores } from '../../support/stores.ts';

const ORG = 'org_apart';
const FP = 'fp_same_request';

const answer = (body: string, status = 201): Executed => ({ response: { status, headers: { 'content-type': 'application/json' }, body } });

/** A key-value store that remembers every value written to it. */
function recording(kv: KeyValueStore): { kv: KeyValueStore; written: unknown[] } {
  const written: unknown[] = [];
  const wrapped: KeyValueStore = Object.create(kv);
  wrapped.set = (key, value, ttl) => (written.push(value), kv.set(key, value, ttl));
  wrapped.setIfAbsent = (key, value, ttl) => (written.push(value), kv.setIfAbsent(key, value, ttl));
  wrapped.compareAndSet = (key, expected, value, ttl) => (written.push(value), kv.compareAndSet(key, expected, value, ttl));
  return { kv: wrapped, written };
}

describe('idempotency claims held apart from records (spec 8, Stores.claims)', () => {
  it('a second request with the key waits for the first and replays it; another request is refused; the records store never holds a claim', async () => {
    const clock = new ManualClock();
    const stores = await testStores(clock);
    try {
      const { kv, written } = recording(stores.kv);
      const claims = new MemoryKeyValue(() => clock.now());
      const idem = new Idempotency(kv, undefined, claims);
      let executed = 0;
      let finish!: (e: Executed) => void;
      let started!: () => void;
      const running = new Promise<void>((r) => (started = r));
      const first = idem.run(ORG, 'k1', FP, () => (executed++, started(), new Promise<Executed>((r) => (finish = r))));
      await running; // the first holds its claim (the records store answers over the network in a cluster)
      const second = idem.run(ORG, 'k1', FP, async () => (executed++, answer('"second"')));
      await expect(idem.run(ORG, 'k1', 'fp_other', async () => answer('"other"'))).rejects.toMatchObject({ code: 'idempotency_key_reused' });
      finish(answer('"first"'));
      expect((await first).replay).toBe(false);
      const again = await second;
      expect(again).toMatchObject({ replay: true, response: { status: 201, body: '"first"' } });
      expect(executed).toBe(1);
      expect(written.every((v) => typeof v === 'object' && (v as { state: string }).state === 'done')).toBe(true);
      expect(await claims.get(`idem:${ORG}:k1`)).toBeUndefined(); // the claim ended with the record kept
      await expect(idem.run(ORG, 'k1', 'fp_other', async () => answer('"other"'))).rejects.toBeInstanceOf(ApiError);
    } finally {
      await stores.close();
    }
  });

  it('a record kept just before the claim is won is replayed, not run again, and the claim is let go', async () => {
    const clock = new ManualClock();
    const stores = await testStores(clock);
    try {
      const claims = new MemoryKeyValue(() => clock.now());
      const racing: KeyValueStore = Object.create(claims);
      // another execution keeps its record just as this request claims
      racing.setIfAbsent = async (key, value, ttl) => {
        await stores.kv.set(key, { state: 'done', fp: FP, status: 201, headers: { 'content-type': 'application/json' }, body: '"kept"' }, 60_000);
        return claims.setIfAbsent(key, value, ttl);
      };
      let executed = 0;
      const got = await new Idempotency(stores.kv, undefined, racing).run(ORG, 'k2', FP, async () => (executed++, answer('"ran"')));
      expect(got).toMatchObject({ replay: true, response: { body: '"kept"' } });
      expect(executed).toBe(0);
      expect(await claims.get(`idem:${ORG}:k2`)).toBeUndefined();
    } finally {
      await stores.close();
    }
  });

  it('after a restart on the same directory, a key whose first execution never finished runs at once (local stores)', async () => {
    const clock = new ManualClock();
    const dir = tempDir();
    const before = localTestStores(clock, { dir });
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    void new Idempotency(before.kv, undefined, before.claims).run(ORG, 'k3', FP, () => (started(), new Promise<Executed>(() => undefined)));
    await running;
    await before.flushed!();
    await before.close();
    const after = localTestStores(clock, { dir });
    try {
      // the manual clock never ends a claim's lease: a claim kept on disk would keep this waiting
      const got = await new Idempotency(after.kv, undefined, after.claims).run(ORG, 'k3', FP, async () => answer('"ran after restart"'));
      expect(got).toMatchObject({ replay: false, response: { body: '"ran after restart"' } });
    } finally {
      await after.close();
    }
  });
});
