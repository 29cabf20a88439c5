/**
 * An Idempotency-Key in progress belongs to the member running it (spec 8; STYLE "Idempotency is
 * a rule with three outcomes"; docs/cluster.md "Idempotency claims"): a claim whose member has
 * lapsed is taken over by exactly one survivor, which executes; a claim of a live member, or one
 * made without a membership (embedded), is waited on and its answer replayed. Membership here is a
 * table the test sets; test/cluster/idempotency-takeover.test.ts runs it over real node leases.
 */
import { describe, expect, it } from 'vitest';
import { type Executed, Idempotency } from '../../gateway/idempotency.ts';
import type { Membership } from '../../kernel/index.ts';
import { ManualClock } from '../../runtime/index.ts';
import type { KeyValueStore } from '../../stores/index.ts';
import { until } from '../../support/until.ts';
import { testStores } from '../../support/stores.ts';

const ORG = 'org_claims';
const FP = 'fp_same_request';

const answer = (body: string, status = 201): Executed => ({ response: { status, headers: { 'content-type': 'application/json' }, body } });

function deferred<T>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  return { promise: new Promise<T>((r) => (resolve = r)), resolve };
}

/** A key-value store whose reads are counted, so a test knows a waiter has looked and waited. */
function counted(kv: KeyValueStore): { kv: KeyValueStore; looks: () => number } {
  let n = 0;
  const wrapped: KeyValueStore = Object.create(kv);
  wrapped.get = <T>(key: string) => {
    n++;
    return kv.get<T>(key);
  };
  return { kv: wrapped, looks: () => n };
}

/** Members and the set of those gone, as a node's lease table would tell them. */
function table() {
  const gone = new Set<string>();
  return { gone, member: (member: string): Membership => ({ member, hasLapsed: (m) => gone.has(m) }) };
}

/** A first request that has claimed the key and runs until the test lets it answer. */
async function claimed(idem: Idempotency, key: string) {
  const finish = deferred<Executed>();
  const started = deferred<void>();
  const run = idem.run(ORG, key, FP, () => {
    started.resolve();
    return finish.promise;
  });
  await started.promise;
  return { finish, run };
}

async function setup() {
  const stores = await testStores(new ManualClock());
  return { stores, ...counted(stores.kv), ...table() };
}

describe('idempotency claims name their member (docs/cluster.md "Idempotency claims")', () => {
  it('a claim whose member lapsed is taken over: a survivor executes and answers; later requests replay it', async () => {
    const { stores, kv, looks, gone, member } = await setup();
    const dead = await claimed(new Idempotency(kv, member('a/1')), 'k-dead');
    let executed = 0;
    const retry = new Idempotency(kv, member('b/1')).run(ORG, 'k-dead', FP, async () => (executed++, answer('"b"')));
    await until(() => looks() >= 3, 5_000); // waiting on a live claim
    expect(executed).toBe(0);
    gone.add('a/1');
    const r = await retry;
    expect([r.replay, r.response.body, executed]).toEqual([false, '"b"', 1]);
    const again = await new Idempotency(kv, member('c/1')).run(ORG, 'k-dead', FP, async () => answer('"c"'));
    expect([again.replay, again.response.body]).toEqual([true, '"b"']);
    dead.finish.resolve(answer('"a"', 503)); // the presumed-dead execution ends after all: it keeps nothing
    await dead.run;
    const last = await new Idempotency(kv, member('c/1')).run(ORG, 'k-dead', FP, async () => answer('"c"'));
    expect([last.replay, last.response.body]).toEqual([true, '"b"']);
    await stores.close();
  });

  for (const [label, first] of [
    ['of a live member', 'a/1'],
    ['made without a membership (embedded)', undefined],
  ] as const) {
    it(`a claim ${label} is waited on, then its answer replayed`, async () => {
      const { stores, kv, looks, gone, member } = await setup();
      gone.add('zzz/9'); // some other member is gone; not this claim's
      const live = await claimed(new Idempotency(kv, first === undefined ? undefined : member(first)), 'k-live');
      let executed = 0;
      let settled = false;
      const waiter = new Idempotency(kv, member('b/1')).run(ORG, 'k-live', FP, async () => (executed++, answer('"b"')));
      void waiter.then(() => (settled = true));
      await until(() => looks() >= 20, 5_000);
      expect({ settled, executed }).toEqual({ settled: false, executed: 0 });
      live.finish.resolve(answer('"a"'));
      await live.run;
      const r = await waiter;
      expect([r.replay, r.response.body, executed]).toEqual([true, '"a"', 0]);
      await stores.close();
    });
  }

  it('two survivors race for a lapsed claim: exactly one executes, the other replays its answer', async () => {
    const { stores, kv, gone, member } = await setup();
    await claimed(new Idempotency(kv, member('a/1')), 'k-race');
    gone.add('a/1');
    let executed = 0;
    const run = (m: string) => new Idempotency(kv, member(m)).run(ORG, 'k-race', FP, async () => (executed++, answer(`"${m}"`)));
    const [b, c] = await Promise.all([run('b/1'), run('c/1')]);
    expect(executed).toBe(1);
    expect([b.replay, c.replay].sort()).toEqual([false, true]);
    expect(b.response.body).toBe(c.response.body);
    await stores.close();
  });

  it('a first holder that was taken over does not end the new holder\'s claim', async () => {
    const { stores, kv, looks, gone, member } = await setup();
    const first = await claimed(new Idempotency(kv, member('a/1')), 'k-keep');
    gone.add('a/1');
    const second = await claimed(new Idempotency(kv, member('b/1')), 'k-keep');
    first.finish.resolve(answer('"a"', 503)); // a retryable failure releases only its own claim
    await first.run;
    let executed = 0;
    let settled = false;
    const third = new Idempotency(kv, member('c/1')).run(ORG, 'k-keep', FP, async () => (executed++, answer('"c"')));
    void third.then(() => (settled = true));
    const seen = looks();
    await until(() => looks() >= seen + 20, 5_000);
    expect({ settled, executed }).toEqual({ settled: false, executed: 0 });
    second.finish.resolve(answer('"b"'));
    await second.run;
    const r = await third;
    expect([r.replay, r.response.body, executed]).toEqual([true, '"b"', 0]);
    await stores.close();
  });
});
