/**
 * The cluster family's key-value buckets (DESIGN "Stores"; stores/cluster/kv-routes.ts): where a
 * key lives, how a key becomes a NATS KV key, and the sweep the 2.9 server's lack of per-key TTLs
 * calls for. Over the shared NATS and a redis-server of this file's own; time is a ManualClock.
 */
import { jetstreamManager } from '@nats-io/jetstream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../runtime/index.ts';
import { kvKeyOf } from '../../stores/cluster/names.ts';
import { createClusterStores, type ClusterStores } from '../../stores/index.ts';
import { natsUrl, testNamespace } from '../../support/stores.ts';
import { OwnRedis } from '../../support/chaos/redis-server.ts';

const VALID_KV_KEY = /^[-/_=.A-Za-z0-9]+$/;
let redis: OwnRedis;
let stores: ClusterStores;
const clock = new ManualClock();

beforeAll(async () => {
  redis = await OwnRedis.start();
  stores = await createClusterStores({ natsUrl: natsUrl(), redisUrl: redis.url, now: () => clock.now(), namespace: testNamespace('kvb'), ephemeral: true });
}, 60_000);

afterAll(async () => {
  await stores?.close().catch(() => {});
  await redis?.stop();
});

async function messages(bucket: string): Promise<number> {
  return (await (await jetstreamManager(stores.nats)).streams.info(`KV_${bucket}`)).state.messages;
}

describe('kv keys as NATS KV keys (docs/cluster.md "Names")', () => {
  const cases = ['cred:ab12', 'account_email:ada.obi+x@example.ng', 'idem:org_1:a key with spaces/and*wild>cards', 'a::b', ':', '', 'runtime:reactions:cursor', 'ünïcode:名前', `idem:org:${'k'.repeat(600)}`];
  it('every key maps to a valid KV key of bounded length, and distinct keys never meet', () => {
    const mapped = cases.map(kvKeyOf);
    for (const k of mapped) {
      expect(k).toMatch(VALID_KV_KEY);
      expect(k.startsWith('.') || k.endsWith('.') || k.includes('..')).toBe(false);
      expect(k.length).toBeLessThanOrEqual(300);
    }
    expect(new Set(mapped).size).toBe(cases.length);
    expect(kvKeyOf('cred:ab12')).toBe('cred.ab12');
  });

  it('a key that would pass the limit keeps its first part and hashes the rest; a key that fits is never hashed', () => {
    expect(kvKeyOf(`idem:org:${'k'.repeat(600)}`)).toMatch(/^idem\.=H[A-Za-z0-9_-]{43}$/);
    expect(kvKeyOf(`idem:org:${'k'.repeat(200)}`)).toBe(`idem.org.${'k'.repeat(200)}`);
  });
});

describe('where a record lives (stores/cluster/kv-routes.ts)', () => {
  it('credentials, reservations and idempotency records survive FLUSHALL; derived records are Redis\'s and go with it', async () => {
    await stores.kv.set('cred:feed', { type: 'api_key' });
    await stores.kv.set('account_email:ada@example.ng', { account: 'acct_1' });
    await stores.kv.set('idem:org_1:k1', { state: 'done' }, 7 * 86_400_000);
    await stores.kv.set('derived:audit_entry:aud_1', { org: 'org_1' });
    await redis.flushAll();
    expect(await stores.kv.get('cred:feed')).toEqual({ type: 'api_key' });
    expect(await stores.kv.get('account_email:ada@example.ng')).toEqual({ account: 'acct_1' });
    expect(await stores.kv.get('idem:org_1:k1')).toEqual({ state: 'done' });
    expect(await stores.kv.get('derived:audit_entry:aud_1')).toBeUndefined();
  });
});

describe('records larger than a NATS message (max_payload, 1 MiB by default)', () => {
  it('a 3 MB record is kept in chunks and read back whole, through set and setIfAbsent, and the sweep keeps the chunks a record names', async () => {
    const lines = Array.from({ length: 30_000 }, (_, i) => ({ payee_ref: `p${i}`, account: String(1_000_000_000 + i), amount: i * 100, note: 'x'.repeat(50) }));
    await stores.kv.set('payouts:document:big', { lines });
    expect(await stores.kv.setIfAbsent('payouts:document:big2', { lines })).toBe(true);
    await stores.sweep();
    expect(await stores.kv.get('payouts:document:big')).toEqual({ lines });
    expect(await stores.kv.get('payouts:document:big2')).toEqual({ lines });
    await stores.kv.set('payouts:document:big', { lines: [] });
    expect(await stores.kv.get('payouts:document:big')).toEqual({ lines: [] });
  });
});

describe('credential reads kept on the node (stores/cluster/index.ts CREDENTIAL_READS)', () => {
  it('bucket puts (set, a claim, a compare-and-set, a chunked record, a reminder) are acknowledged through the node\'s inbox, never a request of the client, and keep their revisions (publish-acks.ts)', async () => {
    const requests = vi.spyOn(stores.nats, 'request');
    try {
      await stores.kv.set('cred:acked', { key: 1 });
      expect(await stores.kv.setIfAbsent('idem:org_a:acked', 'claim')).toBe(true);
      expect(await stores.kv.setIfAbsent('idem:org_a:acked', 'other')).toBe(false);
      expect(await stores.kv.compareAndSet('account_email:acked', undefined, 'ada')).toBe(true);
      expect(await stores.kv.compareAndSet('account_email:acked', undefined, 'obi')).toBe(false);
      expect(await stores.kv.compareAndSet('account_email:acked', 'ada', 'obi')).toBe(true);
      await stores.kv.set('payout_doc:acked', 'x'.repeat(600_000));
      await stores.reminders.put({ key: 'probe.prb_9.acked', kind: 'probe', id: 'prb_9', org: 'org_1', name: 'acked', dueAt: clock.now() + 60_000, command: 'tick', payload: {}, generation: 'g-acked' });
      expect(requests.mock.calls.map(([subject]) => String(subject)).filter((subject) => subject.startsWith('$KV.'))).toEqual([]);
    } finally {
      requests.mockRestore();
    }
    expect(await stores.kv.get('cred:acked')).toEqual({ key: 1 });
    expect(await stores.kv.get('idem:org_a:acked')).toBe('claim');
    expect(await stores.kv.get('account_email:acked')).toBe('obi');
    expect(await stores.kv.get('payout_doc:acked')).toBe('x'.repeat(600_000));
    expect(await stores.reminders.get('probe.prb_9.acked')).toMatchObject({ dueAt: clock.now() + 60_000, generation: 'g-acked' });
  });

  it('a credential issued through another node is found at once, and one deleted through this node is gone at once', async () => {
    const other = await createClusterStores({ natsUrl: natsUrl(), redisUrl: redis.url, now: () => clock.now(), namespace: stores.namespace });
    try {
      expect(await stores.kv.get('cred:cafe')).toBeUndefined();
      await other.kv.set('cred:cafe', { type: 'api_key' });
      expect(await stores.kv.get('cred:cafe')).toEqual({ type: 'api_key' }); // a miss is never kept
      await stores.kv.delete('cred:cafe');
      expect(await stores.kv.get('cred:cafe')).toBeUndefined();
      await other.kv.set('cred:cafe', { type: 'session' }, 1_000);
      expect(await stores.kv.get('cred:cafe')).toEqual({ type: 'session' });
      await clock.advance(1_000);
      expect(await stores.kv.get('cred:cafe')).toBeUndefined(); // a kept record's own expiry still decides
    } finally {
      await other.close();
    }
  });
});

describe('reminders kept in JetStream, indexed in Redis (stores/cluster/jetstream-reminders.ts)', () => {
  const reminder = (name: string, dueAt: number) => ({ key: `probe.prb_1.${name}`, kind: 'probe', id: 'prb_1', org: 'org_1', name, dueAt, command: 'tick', payload: {}, generation: `g-${name}` });

  it('an index emptied with Redis is rebuilt from the bucket before the next read; one that lost an entry while Redis kept its data gets it back at the sweep', async () => {
    const t = clock.now();
    await stores.reminders.put(reminder('flushed', t + 10));
    await redis.flushAll();
    expect((await stores.reminders.due(t + 10, 10)).map((r) => r.name)).toContain('flushed');
    await stores.reminders.put(reminder('unindexed', t + 20));
    await stores.redis.zrem(`${stores.namespace}:rem:due`, 'probe.prb_1.unindexed'); // the put's index write lost
    expect((await stores.reminders.due(t + 20, 10)).map((r) => r.name)).not.toContain('unindexed');
    expect((await stores.sweep()).reminders).toBeGreaterThanOrEqual(2);
    expect((await stores.reminders.due(t + 20, 10)).map((r) => r.name)).toEqual(['flushed', 'unindexed']);
  });

  it('one claim per generation; complete keeps a replacement put meanwhile, cancel removes it', async () => {
    const t = clock.now();
    const first = reminder('claimed', t);
    await stores.reminders.put(first);
    expect(await stores.reminders.claim(first, 30_000)).toBe(true);
    expect(await stores.reminders.claim(first, 30_000)).toBe(false);
    const replacement = { ...first, generation: 'g-claimed-2', dueAt: t + 5 };
    await stores.reminders.put(replacement);
    await stores.reminders.complete(first);
    expect(await stores.reminders.get(first.key)).toEqual(replacement);
    expect((await stores.reminders.due(t + 5, 10)).map((r) => r.generation)).toContain('g-claimed-2');
    await stores.reminders.cancel(first.key);
    expect(await stores.reminders.get(first.key)).toBeUndefined();
    expect((await stores.reminders.due(t + 5, 10)).map((r) => r.generation)).not.toContain('g-claimed-2');
  });
});

describe('the sweep (NATS 2.9 keeps no per-key TTL)', () => {
  it('deletes the records expired on the clock, keeps live ones and one written again, and purges delete markers', async () => {
    await stores.kv.set('sweep:expired', 1, 1_000);
    await stores.kv.set('sweep:live', 2, 60_000);
    await stores.kv.set('sweep:forever', 3);
    await stores.kv.set('sweep:deleted', 4);
    await stores.kv.delete('sweep:deleted');
    await clock.advance(1_000);
    expect(await stores.kv.get('sweep:expired')).toBeUndefined(); // expired when read, before any sweep
    const before = await messages(stores.buckets[0]);
    const swept = await stores.sweep();
    expect(swept.expired).toBeGreaterThanOrEqual(1);
    expect(swept.markers).toBeGreaterThanOrEqual(1);
    expect(await stores.kv.get('sweep:live')).toBe(2);
    expect(await stores.kv.get('sweep:forever')).toBe(3);
    // the expired record's delete marker goes at the next sweep; then neither key holds a message
    await stores.sweep();
    expect(await messages(stores.buckets[0])).toBeLessThanOrEqual(before - 2);
    expect(await stores.kv.setIfAbsent('sweep:expired', 5)).toBe(true);
    expect(await stores.kv.compareAndSet('sweep:deleted', undefined, 6)).toBe(true);
    expect(await stores.kv.get('sweep:deleted')).toBe(6);
  });
});
