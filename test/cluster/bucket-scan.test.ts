/**
 * Reading a KV bucket whole while it is written (stores/cluster/bucket-scan.ts): the reminders'
 * index rebuild and the buckets' sweep run on buckets other nodes keep writing, and a bucket keeps
 * one entry per key, so the entry a scan counted on when it began may be gone before it arrives.
 * Over the shared NATS, on a namespace of this file's own.
 */
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scanBucket, type BucketEntry } from '../../stores/cluster/bucket-scan.ts';
import { natsUrl, testNamespace } from '../../support/stores.ts';

let nc: NatsConnection;
let js: JetStreamClient;
let jsm: JetStreamManager;
const bucket = `${testNamespace('scan')}_b`;
let kv: KV;

beforeAll(async () => {
  nc = await connect({ servers: natsUrl() });
  js = jetstream(nc);
  jsm = await jetstreamManager(nc);
  kv = await new Kvm(nc).create(bucket, { history: 1 });
}, 30_000);

afterAll(async () => {
  await jsm?.streams.delete(`KV_${bucket}`).catch(() => false);
  await nc?.close();
});

async function scan(): Promise<Map<string, BucketEntry>> {
  const seen = new Map<string, BucketEntry>();
  await scanBucket(js, jsm, bucket, (e) => seen.set(e.key, e), 20_000);
  return seen;
}

describe('scanning a bucket whole (DESIGN "Stores": reminders rebuilt from JetStream)', () => {
  it('an empty bucket is read at once', async () => {
    expect((await scan()).size).toBe(0);
  });

  it('every key of the bucket is seen once, with its operation and revision', async () => {
    for (let i = 0; i < 50; i++) await kv.put(`k${i}`, new TextEncoder().encode(`v${i}`));
    await kv.delete('k7');
    const seen = await scan();
    expect(seen.size).toBe(50);
    expect(seen.get('k7')!.operation).toBe('DEL');
    expect(new TextDecoder().decode(seen.get('k3')!.value)).toBe('v3');
    expect(seen.get('k3')!.revision).toBe((await kv.get('k3'))!.revision);
  });

  it('a scan ends while the newest entry is replaced at every step, and sees every key not written meanwhile', async () => {
    let writing = true;
    let n = 0;
    // One key rewritten again and again: the entry at the stream's last sequence when a scan
    // begins is replaced (a bucket keeps one entry per key) before the scan reaches it.
    const writer = (async () => {
      while (writing) await kv.put('hot', new TextEncoder().encode(`w${n++}`));
    })();
    try {
      for (let round = 0; round < 10; round++) {
        const seen = await scan();
        for (let i = 0; i < 50; i++) expect(seen.has(`k${i}`)).toBe(true);
      }
    } finally {
      writing = false;
      await writer;
    }
    expect(n).toBeGreaterThan(10);
  }, 60_000);
});
