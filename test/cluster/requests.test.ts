/**
 * A node's requests to other nodes (runtime/cluster/requests.ts; DESIGN "Sharding": a call to an
 * actor another node owns travels as a NATS request to the owner), over the real NATS: answers
 * come back to the request that asked, however many are in flight; a subject nobody serves fails
 * at once, so the caller can wait for a new owner; a request nobody answers fails at its deadline
 * or as soon as its target's membership lapses, and one still waiting when the node stops fails.
 */
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterEach, describe, expect, it } from 'vitest';
import { batchOf, decodeBatch, NoResponders, Requests, RequestsStopped, RequestTimedOut, TargetLapsed } from '../../runtime/cluster/requests.ts';
import { decodeReply, decodeRequest, encode, replyOf } from '../../runtime/cluster/wire.ts';
import { natsUrl, testNamespace } from '../../support/stores.ts';

const opened: NatsConnection[] = [];
afterEach(async () => {
  for (const nc of opened.splice(0)) await nc.close();
});

async function setup(): Promise<{ requests: Requests; server: NatsConnection; subject: string; clock: { now: number } }> {
  const [client, server] = await Promise.all([connect({ servers: natsUrl() }), connect({ servers: natsUrl() })]);
  opened.push(client, server);
  const clock = { now: 1_000 };
  const requests = new Requests(client, () => clock.now);
  requests.start();
  await client.flush();
  return { requests, server, subject: `${testNamespace('requests')}.node.b`, clock };
}

const bytes = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array) => new TextDecoder().decode(b);

it("each answer reaches the request that asked, with many in flight through one inbox (DESIGN 'Sharding')", async () => {
  const { requests, server, subject } = await setup();
  // answered out of order: the later requests first
  const held: Array<() => void> = [];
  server.subscribe(subject, { callback: (_e, m) => void held.push(() => m.respond(bytes(`re:${text(m.data)}`))) });
  await server.flush();
  const asked = Array.from({ length: 50 }, (_, i) => requests.send(subject, 'b', bytes(`q${i}`), 5_000));
  while (held.length < 50) await new Promise((r) => setTimeout(r, 5));
  for (const answer of held.reverse()) answer();
  expect((await Promise.all(asked)).map(text)).toEqual(Array.from({ length: 50 }, (_, i) => `re:q${i}`));
  expect(requests.size).toBe(0);
});

it("a subject nobody serves fails at once with no responders, not at the deadline (DESIGN 'Sharding': the caller waits for a new owner)", async () => {
  const { requests, subject } = await setup();
  await expect(requests.send(subject, 'b', bytes('q'), 60_000)).rejects.toBeInstanceOf(NoResponders);
  expect(requests.size).toBe(0);
});

it('a request nobody answers fails at its deadline, on the sweep after it', async () => {
  const { requests, server, subject, clock } = await setup();
  server.subscribe(subject, { callback: () => {} });
  await server.flush();
  const asked = requests.send(subject, 'b', bytes('q'), 5_000);
  const settled = asked.then(() => 'answered', (e: Error) => e);
  await new Promise((r) => setTimeout(r, 20));
  clock.now += 4_999;
  requests.sweep(() => false);
  expect(requests.size).toBe(1);
  clock.now += 1;
  requests.sweep(() => false);
  expect(await settled).toBeInstanceOf(RequestTimedOut);
});

it("a request whose target's membership lapsed fails on the next sweep, before its deadline (the owner died mid-request)", async () => {
  const { requests, server, subject } = await setup();
  server.subscribe(subject, { callback: () => {} });
  await server.flush();
  const toB = requests.send(subject, 'b', bytes('q'), 60_000).catch((e: Error) => e);
  const toC = requests.send(subject, 'c', bytes('q'), 60_000).catch((e: Error) => e);
  await new Promise((r) => setTimeout(r, 20));
  requests.sweep((target) => target === 'b');
  expect(await toB).toBeInstanceOf(TargetLapsed);
  expect(requests.size).toBe(1);
  requests.stop();
  expect(await toC).toBeInstanceOf(RequestsStopped);
  expect(await toC).toMatchObject({ sent: true }); // it reached the target, which may act on it
});

it('an answer after the deadline is dropped; a stopped node sends nothing more', async () => {
  const { requests, server, subject, clock } = await setup();
  let answer: (() => void) | undefined;
  server.subscribe(subject, { callback: (_e, m) => void (answer = () => m.respond(bytes('late'))) });
  await server.flush();
  const asked = requests.send(subject, 'b', bytes('q'), 100).catch((e: Error) => e);
  while (!answer) await new Promise((r) => setTimeout(r, 5));
  clock.now += 100;
  requests.sweep(() => false);
  expect(await asked).toBeInstanceOf(RequestTimedOut);
  answer();
  await server.flush();
  await new Promise((r) => setTimeout(r, 20));
  expect(requests.size).toBe(0);
  requests.stop();
  await expect(requests.send(subject, 'b', bytes('q'), 100)).rejects.toBeInstanceOf(RequestsStopped);
  await expect(requests.send(subject, 'b', bytes('q'), 100)).rejects.toMatchObject({ sent: false });
});

describe('batched (a node\'s requests of one turn to one owner travel as one message, its answers to one node as one)', () => {
  async function pair(): Promise<{ client: Requests; server: Requests; serverNc: NatsConnection; subject: string; messages: () => number; held: Array<() => void> }> {
    const [a, b] = await Promise.all([connect({ servers: natsUrl() }), connect({ servers: natsUrl() })]);
    opened.push(a, b);
    const client = new Requests(a, () => 1_000, () => {}, undefined, () => true);
    const server = new Requests(b, () => 1_000, () => {}, undefined, () => true);
    client.start();
    server.start();
    const subject = `${testNamespace('requests')}.node.b`;
    let count = 0;
    const held: Array<() => void> = [];
    // the owner's side as ClusterNode serves it: each request of a batch answered on its own
    b.subscribe(subject, {
      callback: (_e, m) => {
        count++;
        const batch = batchOf(m.reply!);
        if (!batch) return void held.push(() => server.reply(m, bytes(`re:${text(m.data)}`)));
        for (const [token, data] of decodeBatch(m.data)) held.push(() => server.replyTo({ inbox: batch.inbox, token }, bytes(`re:${text(data)}`)));
      },
    });
    await Promise.all([a.flush(), b.flush()]);
    return { client, server, serverNc: b, subject, messages: () => count, held };
  }

  it('each answer reaches the request that asked: a turn of fifty asks is one message, answered out of order', async () => {
    const { client, subject, messages, held } = await pair();
    const asked = Array.from({ length: 50 }, (_, i) => client.send(subject, 'b', bytes(`q${i}`), 5_000));
    while (held.length < 50) await new Promise((r) => setTimeout(r, 5));
    expect(messages()).toBe(1);
    const answers = held.splice(0);
    for (const answer of answers.slice(0, 25).reverse()) answer(); // half now, newest first
    await new Promise((r) => setTimeout(r, 20));
    for (const answer of answers.slice(25)) answer();
    expect((await Promise.all(asked)).map(text)).toEqual(Array.from({ length: 50 }, (_, i) => `re:q${i}`));
    expect(client.size).toBe(0);
  });

  it('a single ask in a turn travels as before, answered through its own subject', async () => {
    const { client, subject, messages, held } = await pair();
    const asked = client.send(subject, 'b', bytes('only'), 5_000);
    while (held.length < 1) await new Promise((r) => setTimeout(r, 5));
    held[0]();
    expect(text(await asked)).toBe('re:only');
    expect(messages()).toBe(1);
  });

  it('a batch to a subject nobody serves fails every ask in it at once with no responders', async () => {
    const { client } = await pair();
    const nobody = `${testNamespace('requests')}.node.gone`;
    const asked = Array.from({ length: 5 }, (_, i) => client.send(nobody, 'gone', bytes(`q${i}`), 60_000).catch((e: Error) => e));
    for (const r of await Promise.all(asked)) expect(r).toBeInstanceOf(NoResponders);
    expect(client.size).toBe(0);
  });

  it("a batch read as one ask by a node that does not speak batches (answered with one fault on the batch's subject, nothing served) is sent again ask by ask, and each ask is served once", async () => {
    const [a, b] = await Promise.all([connect({ servers: natsUrl() }), connect({ servers: natsUrl() })]);
    opened.push(a, b);
    // the sender still holds the membership of the target's previous, upgraded process: it batches
    const client = new Requests(a, () => 1_000, () => {}, undefined, () => true);
    client.start();
    const subject = `${testNamespace('requests')}.node.old`;
    // the target as a node from before batches serves a message: every message is one ask
    const served: string[] = [];
    let messages = 0;
    b.subscribe(subject, {
      callback: (_e, m) => {
        messages++;
        try {
          const req = decodeRequest(m.data);
          const op = req.call.op;
          served.push(req.id);
          m.respond(encode({ t: 'ok', value: `${op}:${req.id}` }));
        } catch (e) {
          m.respond(encode(replyOf(e)));
        }
      },
    });
    await Promise.all([a.flush(), b.flush()]);
    const ids = Array.from({ length: 5 }, (_, i) => `ctr_${i}`);
    const asked = ids.map((id) => client.send(subject, 'old', encode({ kind: 'test_counter', id, call: { op: 'get', org: 'org_alpha' } }), 5_000));
    expect((await Promise.all(asked)).map(decodeReply)).toEqual(ids.map((id) => ({ t: 'ok', value: `get:${id}` })));
    expect(served).toEqual(ids);
    expect(messages).toBe(1 + ids.length);
    expect(client.size).toBe(0);
  });
});
