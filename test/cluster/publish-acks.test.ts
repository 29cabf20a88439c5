/**
 * Journal appends' acknowledgements through one inbox (stores/cluster/publish-acks.ts), over the
 * real NATS and JetStream: each acknowledgement reaches the publish that asked, however many are
 * in flight; a refused expectation carries the server's code; a subject no stream holds and an
 * acknowledgement that never comes fail as store faults (a retryable 503, DESIGN "Stores").
 */
import { jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterEach, describe, expect, it } from 'vitest';
import { isStoreFault } from '../../stores/index.ts';
import { PublishAcks, storedSeq } from '../../stores/cluster/publish-acks.ts';
import { natsUrl, testNamespace } from '../../support/stores.ts';

const opened: Array<{ nc: NatsConnection; streams: string[] }> = [];
afterEach(async () => {
  for (const { nc, streams } of opened.splice(0)) {
    const jsm = await jetstreamManager(nc);
    for (const s of streams) await jsm.streams.delete(s).catch(() => false);
    await nc.close();
  }
});

async function setup(): Promise<{ nc: NatsConnection; prefix: string; clock: { now: number }; acks: PublishAcks }> {
  const nc = await connect({ servers: natsUrl() });
  const ns = testNamespace('acks');
  const jsm = await jetstreamManager(nc);
  await jsm.streams.add({ name: `${ns}_s`, subjects: [`${ns}.s.>`] });
  opened.push({ nc, streams: [`${ns}_s`] });
  const clock = { now: 1_000 };
  return { nc, prefix: `${ns}.s`, clock, acks: new PublishAcks(nc, () => clock.now, 5_000) };
}

const bytes = (s: string) => new TextEncoder().encode(s);

it('each acknowledgement reaches the publish that asked, with many in flight through one inbox', async () => {
  const { acks, prefix } = await setup();
  const acked = await Promise.all(Array.from({ length: 50 }, (_, i) => acks.publish(`${prefix}.a${i % 5}`, bytes(`m${i}`))));
  expect(acked.map((a) => a.seq)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1)); // published in call order
  expect(acks.size).toBe(0);
});

it("an append expecting another last sequence of its subject is refused with the server's code (a stale writer cannot write over a new one)", async () => {
  const { acks, prefix } = await setup();
  const first = await acks.publish(`${prefix}.x`, bytes('1'), 0);
  await acks.publish(`${prefix}.y`, bytes('other subject'), 0);
  expect((await acks.publish(`${prefix}.x`, bytes('2'), first.seq)).seq).toBe(3);
  const stale = await acks.publish(`${prefix}.x`, bytes('again'), first.seq).catch((e: Error) => e);
  expect(stale).toMatchObject({ name: 'JetStreamApiError', code: 10071 });
  expect(isStoreFault(stale)).toBe(true);
});

it('a subject no stream holds fails at once as a store fault, not at the deadline', async () => {
  const { acks } = await setup();
  const err = await acks.publish(`${testNamespace('nobody')}.x`, bytes('q')).catch((e: Error) => e);
  expect(err).toMatchObject({ name: 'NoRespondersError' });
  expect(isStoreFault(err)).toBe(true);
  expect(acks.size).toBe(0);
});

it('a publish whose acknowledgement never comes fails at its deadline, on the sweep after it, as a store fault', async () => {
  const { acks, nc, clock } = await setup();
  const silent = testNamespace('silent');
  nc.subscribe(`${silent}.x`, { callback: () => {} }); // served, never acknowledged
  await nc.flush();
  const sent = acks.publish(`${silent}.x`, bytes('q')).catch((e: Error) => e);
  await nc.flush();
  clock.now += 4_999;
  acks.sweep();
  expect(acks.size).toBe(1);
  clock.now += 1;
  acks.sweep();
  const err = await sent;
  expect(err).toMatchObject({ name: 'TimeoutError' });
  expect(isStoreFault(err)).toBe(true);
});

it("a turn's publishes are stored whole and in order, each with its header, and counted in the client's messages; one over max_payload is refused alone", async () => {
  const { acks, nc, prefix } = await setup();
  const before = nc.stats().outMsgs;
  const max = nc.info!.max_payload;
  const big = new Uint8Array(max + 1);
  const sent = [
    acks.publish(`${prefix}.f`, bytes('one'), 0),
    acks.publish(`${prefix}.g`, bytes('two \r\n PUB x 3\r\n')),
    acks.publish(`${prefix}.f`, big, 1).catch((e: Error) => e),
    acks.publish(`${prefix}.h`, bytes(''), 0),
  ];
  const [a, b, refused, c] = await Promise.all(sent);
  expect([a, b, c]).toEqual([{ seq: 1 }, { seq: 2 }, { seq: 3 }]);
  expect(refused).toMatchObject({ name: 'InvalidArgumentError' });
  expect(nc.stats().outMsgs - before).toBe(3);
  const jsm = await jetstreamManager(nc);
  const stream = `${prefix.slice(0, -2)}_s`;
  const stored = await Promise.all([1, 2, 3].map((seq) => jsm.streams.getMessage(stream, { seq })));
  expect(stored.map((m) => [m!.subject, new TextDecoder().decode(m!.data)])).toEqual([
    [`${prefix}.f`, 'one'],
    [`${prefix}.g`, 'two \r\n PUB x 3\r\n'],
    [`${prefix}.h`, ''],
  ]);
  // the header was the expectation: a second append expecting nothing before it is refused
  expect(await acks.publish(`${prefix}.h`, bytes('stale'), 0).catch((e: Error) => e)).toMatchObject({ code: 10071 });
});

it('through a client without the frame queue, publishes go one by one through publish() and read the same', async () => {
  const { nc, prefix, clock } = await setup();
  const bare = new Proxy(nc, {
    get: (target, key) => {
      if (key === 'protocol') return undefined;
      const v = Reflect.get(target, key) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  const acks = new PublishAcks(bare, () => clock.now, 5_000);
  const first = await acks.publish(`${prefix}.x`, bytes('1'), 0);
  expect(first).toEqual({ seq: 1 });
  expect(await acks.publish(`${prefix}.x`, bytes('2'), 0).catch((e: Error) => e)).toMatchObject({ name: 'JetStreamApiError', code: 10071 });
  expect(await acks.publish(`${prefix}.x`, bytes('2'), first.seq)).toEqual({ seq: 2 });
});

describe("an acknowledgement's sequence is read from its bytes in the server's usual form; any other form is left to the JSON reading", () => {
  const ack = (s: string) => new TextEncoder().encode(s);
  it.each([
    ['{"stream":"wf_journal", "seq":1}', 1],
    ['{"stream":"wf_journal","seq":1}', 1],
    ['{"stream":"wf_journal","seq":9007199254740991}', 9007199254740991],
    ['{"stream":"wf_journal", "seq":12, "duplicate":true}', undefined],
    ['{"stream":"wf_journal","domain":"hub","seq":12}', undefined],
    ['{"error":{"code":400,"err_code":10071,"description":"wrong last sequence: 3"}}', undefined],
    ['{"stream":"wf_journal","seq":}', undefined],
    ['{"stream":"wf_journal","seq":1x}', undefined],
    ['{"stream":"wf_journal"}', undefined],
    ['', undefined],
  ])('%s -> %s', (body, seq) => expect(storedSeq(ack(body))).toBe(seq));

  it('the real server acknowledges a stored message in that form', async () => {
    const { nc, prefix } = await setup();
    for (let i = 1; i <= 3; i++) {
      const m = await nc.request(`${prefix}.raw`, bytes(`m${i}`));
      expect(storedSeq(m.data)).toBe(i);
      expect(m.json<{ seq: number }>().seq).toBe(i);
    }
  });
});
