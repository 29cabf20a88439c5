/**
 * An acknowledgement is a promise (STYLE; DESIGN "Stores"): keyed writes through the real gateway
 * of a cluster platform while its Redis (a redis-server of this file's own) is killed -9 and started
 * empty mid-load. Each write is retried with its Idempotency-Key until it is answered 2xx; after
 * the load, every acknowledged API key authenticates, and every key's retry replays the record it
 * was first answered with: none lost, none issued twice. Time is the harness's ManualClock.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ManualClock } from '../../runtime/index.ts';
import { createClusterStores, type ClusterStores } from '../../stores/index.ts';
import { startHarness, type Harness } from '../../support/http.ts';
import { natsUrl, testNamespace } from '../../support/stores.ts';
import { OwnRedis } from '../../support/chaos/redis-server.ts';

const WRITES = 120;
const IN_FLIGHT = 8;

let redis: OwnRedis;
let stores: ClusterStores;
let h: Harness;

beforeAll(async () => {
  redis = await OwnRedis.start();
  const clock = new ManualClock();
  stores = await createClusterStores({ natsUrl: natsUrl(), redisUrl: redis.url, now: () => clock.now(), namespace: testNamespace('redisload'), ephemeral: true });
  h = await startHarness({ clock, stores });
}, 60_000);

afterAll(async () => {
  await h?.close();
  await stores?.close().catch(() => {});
  await redis?.stop();
});

it('Redis killed -9 and started empty under keyed load: every acknowledged key authenticates and replays its first answer, none issued twice', { timeout: 120_000 }, async () => {
  const answered = new Map<string, { id: string; key: string }>();
  const failures = new Map<number, number>();
  let next = 0;
  let killed = false;
  const worker = async () => {
    for (let i = next++; i < WRITES; i = next++) {
      const ik = `load-${process.pid}-${i}`;
      for (let attempt = 0; ; attempt++) {
        if (attempt > 10_000) throw new Error(`${ik}: never answered 2xx`);
        const r = await h.request('POST', '/v1/api_keys', { body: { name: `load ${i}` }, idempotencyKey: ik }).catch(() => undefined);
        if (r && r.status === 200) {
          // a replay shows no secret; the first answer's is the one that must work
          if (!answered.has(ik)) answered.set(ik, { id: r.body.id, key: r.body.key });
          break;
        }
        failures.set(r?.status ?? 0, (failures.get(r?.status ?? 0) ?? 0) + 1);
        await new Promise((res) => setImmediate(res));
      }
      if (i === WRITES / 3 && !killed) {
        killed = true;
        await redis.restartEmpty();
      }
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  expect(killed).toBe(true);
  expect(answered.size).toBe(WRITES);
  console.log(`[redis-loss-load] non-2xx answers while Redis was away, by status: ${JSON.stringify(Object.fromEntries(failures))}`);
  const ids = new Set<string>();
  for (const [ik, first] of answered) {
    expect(first.key, ik).toMatch(/^sk_test_/);
    expect((await h.request('GET', '/v1/api_keys?limit=1', { key: first.key })).status, ik).toBe(200);
    const replay = await h.request('POST', '/v1/api_keys', { body: { name: `load ${ik.split('-').at(-1)}` }, idempotencyKey: ik });
    expect(replay.headers['service-idempotent-replay'], ik).toBe('true');
    expect(replay.body.id, ik).toBe(first.id);
    ids.add(first.id);
  }
  expect(ids.size).toBe(WRITES);
});
