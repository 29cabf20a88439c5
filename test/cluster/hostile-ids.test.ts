/**
 * Nothing a caller sends reaches a NATS subject unbounded (docs/cluster.md "Names"). A subject past
 * the server's 4,096-byte control line makes NATS close the whole connection: every request,
 * lease renewal and subscription of the node with it. Ids that fit keep the subjects they always
 * had (stored journals stay readable); longer ones become one hashed token; a call between nodes
 * is bounded by max_payload both ways.
 */
import type { NatsConnection } from '@nats-io/transport-node';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../kernel/index.ts';
import { defineActor, ManualClock } from '../../runtime/index.ts';
import { isHashedSubject, nameOf, SUBJECT_TAIL_MAX, subjectOf } from '../../stores/cluster/names.ts';
import { clusterTestStores, testNamespace } from '../../support/stores.ts';
import { Counter } from '../runtime/counter.ts';
import { type Member, TestCluster } from './nodes.ts';

const ORG = 'org_alpha';
const PREFIX = 'wf.journal';

/** A record as large as a caller makes it: an answer about it can outgrow max_payload. */
const Blob = defineActor({
  kind: 'test_blob',
  prefix: 'blb_',
  creates: ['put'],
  initial: (id: string) => ({ id, parts: [] as string[] }),
  decide: { put: (_s: { parts: string[] }, cmd: { text: string }) => [{ type: 'blob.put' as const, text: cmd.text }] },
  evolve: (s: { id: string; parts: string[] }, e: { type: 'blob.put'; text: string }) => ({ ...s, parts: [...s.parts, e.text] }),
  view: (s: { id: string; parts: string[] }) => ({ id: s.id, parts: s.parts }),
});

/** Seeded base62 ids, as the kernel makes them (1..64 symbols after a prefix). */
function base62Ids(n: number, seed: number): string[] {
  const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  let x = seed >>> 0;
  const next = () => (x = (Math.imul(x, 1664525) + 1013904223) >>> 0);
  return Array.from({ length: n }, () => Array.from({ length: 1 + (next() % 64) }, () => alphabet[next() % 62]).join(''));
}

/** Ids no path check lets through, sent straight to the runtime. */
const HOSTILE = {
  '5,000 letters': `ctr_${'a'.repeat(5000)}`,
  'spaces, *, > and dots': 'ctr_ a*b >c.d  e',
  'a wildcard alone': '>',
  '300 dots': `ctr_${'.'.repeat(300)}`,
  '200 emoji': `ctr_${'\u{1F600}'.repeat(200)}`,
};

/** A connection's losses as they happen: a disconnect means the server dropped it. */
function statusesOf(nc: NatsConnection): string[] {
  const seen: string[] = [];
  void (async () => {
    for await (const s of nc.status()) if (s.type === 'disconnect' || s.type === 'reconnecting' || s.type === 'error') seen.push(s.type);
  })();
  return seen;
}

describe('subject names (docs/cluster.md "Names")', () => {
  it('every name that fits maps exactly as before: stored journals keep their subjects', () => {
    const kinds = ['payroll_run', 'test_counter', 'allocation_worker', 'payslip'];
    const safe = base62Ids(500, 7).map((suffix, i) => `${kinds[i % kinds.length]}.run_enterprise_${suffix}`);
    for (const name of safe) expect(subjectOf(PREFIX, name)).toBe(`${PREFIX}.${name}`);
    // Names with characters a subject cannot hold were escaped, and still are.
    const escaped: Record<string, string> = {
      'thing.a b*>.%x': 'p.thing.a%20b%2A%3E.%25x',
      'k.': 'p.k.%',
      'k.a..b': 'p.k.a.%.b',
      'test_counter.ctr_\u00e9': 'p.test_counter.ctr_%C3%A9',
      'worker.wrk_1 2': 'p.worker.wrk_1%202',
      'k.\u{1F600}': 'p.k.%F0%9F%98%80',
    };
    for (const [name, subject] of Object.entries(escaped)) {
      expect(subjectOf('p', name)).toBe(subject);
      expect(nameOf('p', subject)).toBe(name);
    }
    const longestExact = `k.${'a'.repeat(SUBJECT_TAIL_MAX - 2)}`;
    expect(subjectOf('p', longestExact)).toBe(`p.${longestExact}`);
  });

  it('a name too long for a subject is one bounded token of safe characters, distinct per name', () => {
    const names = [...Object.values(HOSTILE).map((id) => `test_counter.${id}`), `k.${'a'.repeat(SUBJECT_TAIL_MAX - 1)}`, `k.${'a'.repeat(SUBJECT_TAIL_MAX)}`];
    const hashed = names.filter((n) => isHashedSubject(PREFIX, subjectOf(PREFIX, n)));
    expect(hashed.length).toBe(5); // the short spaces-and-dots name and the wildcard are escaped exactly
    for (const name of names) {
      const subject = subjectOf(PREFIX, name);
      expect(subject.length).toBeLessThanOrEqual(PREFIX.length + 1 + SUBJECT_TAIL_MAX);
      expect(subject).toMatch(/^[A-Za-z0-9_%.-]+$/);
      expect(subjectOf(PREFIX, name)).toBe(subject);
    }
    expect(new Set(names.map((n) => subjectOf(PREFIX, n))).size).toBe(names.length);
    // Two names that differ only in a lone surrogate (same UTF-8 once replaced) stay apart.
    expect(subjectOf('p', `k.${'\uD800'.repeat(300)}`)).not.toBe(subjectOf('p', `k.${'\uD801'.repeat(300)}`));
  });
});

describe('hostile ids through the cluster runtime keep the node connected', { timeout: 120_000 }, () => {
  let cluster: TestCluster | undefined;

  afterEach(async () => {
    await cluster?.close();
    cluster = undefined;
  }, 60_000);

  async function start(): Promise<{ ms: Member[]; statuses: string[][] }> {
    cluster = new TestCluster(testNamespace('hostile'), new ManualClock(), [Counter, Blob]);
    const ms = await cluster.grow(2);
    return { ms, statuses: ms.map((m) => statusesOf(m.stores.nats)) };
  }

  async function expectConnected(ms: Member[], statuses: string[][]): Promise<void> {
    for (const [i, m] of ms.entries()) {
      expect({ node: m.id, closed: m.stores.nats.isClosed(), statuses: statuses[i] }).toEqual({ node: m.id, closed: false, statuses: [] });
      await m.system.ask(Counter, `ctr_after${i}`, 'open', {}, { org: ORG });
      expect(await ms[(i + 1) % ms.length].system.get(Counter, `ctr_after${i}`, ORG)).toMatchObject({ status: 'open' });
    }
  }

  it('get and ask of an unknown hostile id answer not_found on every node; a create works', async () => {
    const { ms, statuses } = await start();
    for (const [what, id] of Object.entries(HOSTILE)) {
      for (const m of ms) {
        const got = await m.system.get(Counter, id, ORG).catch((e: unknown) => e);
        expect({ what, node: m.id, code: (got as ApiError).code }).toEqual({ what, node: m.id, code: 'not_found' });
        const asked = await m.system.ask(Counter, id, 'add', { n: 1 }, { org: ORG }).catch((e: unknown) => e);
        expect({ what, node: m.id, code: (asked as ApiError).code }).toEqual({ what, node: m.id, code: 'not_found' });
      }
      await ms[0].system.ask(Counter, id, 'open', {}, { org: ORG });
      await ms[1].system.ask(Counter, id, 'add', { n: 3 }, { org: ORG });
      for (const m of ms) expect({ what, view: await m.system.get(Counter, id, ORG) }).toMatchObject({ what, view: { status: 'open', total: 3 } });
    }
    // The feed names every stream, hashed subjects included.
    const streams = new Set((await ms[0].stores.journal.readFeed(0, 100)).map((f) => f.stream));
    for (const id of Object.values(HOSTILE)) expect(streams.has(`test_counter.${id}`)).toBe(true);
    await expectConnected(ms, statuses);
  });

  it('a call or an answer larger than max_payload is refused between nodes, and the connection stays up', async () => {
    const { ms, statuses } = await start();
    const max = ms[0].stores.nats.info!.max_payload;
    const id = Array.from({ length: 200 }, (_, i) => `blb_${i}`).find((x) => !ms[0].node.isLocal(Blob.kind, x))!;
    const owner = ms.find((m) => m.node.isLocal(Blob.kind, id))!;
    const caller = ms.find((m) => m !== owner)!;
    const call = await caller.system.ask(Blob, id, 'put', { text: 'x'.repeat(max + 1) }, { org: ORG }).catch((e: unknown) => e);
    expect(call).toBeInstanceOf(ApiError);
    expect(call).toMatchObject({ code: 'payload_too_large' });
    // Made on its owner (no hop), the record's answer then outgrows what a node may send back.
    const half = 'y'.repeat(Math.ceil(max / 2) + 1);
    await owner.system.ask(Blob, id, 'put', { text: half }, { org: ORG });
    await owner.system.ask(Blob, id, 'put', { text: half }, { org: ORG });
    const answer = await caller.system.get(Blob, id, ORG).catch((e: unknown) => e);
    expect(answer).toBeInstanceOf(Error);
    expect((answer as Error).message).toMatch(/^The answer is \d+ bytes; at most \d+ travel between nodes\.$/);
    expect(((await owner.system.get(Blob, id, ORG)) as { parts: string[] }).parts.length).toBe(2);
    await expectConnected(ms, statuses);
  });
});

describe('journal over NATS with a hashed subject', () => {
  it('append, read and feed give back the events and the name', async () => {
    const stores = await clusterTestStores(new ManualClock());
    const statuses = statusesOf(stores.nats);
    const name = `test_counter.${HOSTILE['5,000 letters']}`;
    const ev = (version: number) => ({ version, id: `evt_${version}`, type: 'x.happened', data: {}, at: 0, org: ORG });
    await stores.journal.append(name, 0, [ev(1), ev(2)]);
    await stores.journal.append('test_counter.ctr_1', 0, [ev(1)]);
    await stores.journal.append(name, 2, [ev(3)]);
    expect((await stores.journal.read(name, 1)).map((e) => e.version)).toEqual([2, 3]);
    expect((await stores.journal.readFeed(0, 10)).map((f) => `${f.stream.slice(0, 20)}@${f.event.version}`)).toEqual([
      'test_counter.ctr_aaa@1',
      'test_counter.ctr_aaa@2',
      'test_counter.ctr_1@1',
      'test_counter.ctr_aaa@3',
    ]);
    expect((await stores.journal.readFeed(0, 10))[0].stream).toBe(name);
    expect({ closed: stores.nats.isClosed(), statuses }).toEqual({ closed: false, statuses: [] });
    await stores.close();
  });
});
