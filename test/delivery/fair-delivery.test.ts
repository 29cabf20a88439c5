/**
 * No organisation can slow another's webhooks (docs/gaps.md#delivery "Fair outbound work"):
 * hosts resolve through c-ares against a DNS server of the test's own (dns-server.ts), with a
 * time limit inside the attempt's budget, answers kept for their TTL, one query per name at a
 * time and a share of lookups per organisation; attempts take turns across organisations under
 * caps in all, per organisation and per endpoint. The assertions are on order and counts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { call, startPlatform, startReceiver, type Receiver, type Respond, type TestPlatform } from './support.ts';
import { startDnsServer, type DnsServer } from './dns-server.ts';

const A = { org: 'org_Aaaaaaaaaaaaaaaaaaaaaa' };
const B = { org: 'org_Bbbbbbbbbbbbbbbbbbbbbb' };

let tp: TestPlatform | undefined;
let dns: DnsServer | undefined;
const receivers: Receiver[] = [];
afterEach(async () => {
  for (const name of ['slow.a.test', 'slow1.a.test', 'slow2.a.test', 'slow3.a.test', 'slow4.a.test', 'slow5.a.test']) dns?.release(name);
  for (const r of receivers.splice(0)) await r.close();
  await tp?.stop();
  await dns?.close();
  tp = dns = undefined;
});

/** Arrivals at every receiver of a test, in order, as `<label>:<event id>`. */
const arrivals: string[] = [];
const counted = new Map<string, { n: number; wanted: number; then: () => void }>();

async function receiver(label: string, respond: Respond = () => 200): Promise<Receiver> {
  const r = await startReceiver((rec, n) => {
    arrivals.push(`${label}:${rec.body.id}`);
    const c = counted.get(label);
    if (c && n >= c.wanted) c.then();
    return respond(rec, n);
  });
  receivers.push(r);
  return r;
}

/** Resolves once `label`'s receiver has taken `n` requests (no sleep: the receiver says so). */
const received = (label: string, r: Receiver, n: number) =>
  r.received.length >= n ? Promise.resolve() : new Promise<void>((then) => counted.set(label, { n: 0, wanted: n, then }));

/** The receiver's URL with its host replaced by a name the test's DNS server answers. */
const named = (r: Receiver, host: string) => r.url.replace('127.0.0.1', host);
const createEndpoint = (url: string, who: { org: string }) => call(tp!.platform, 'POST', '/v1/webhook_endpoints', who, { body: { url } });
const sendTest = (id: string, who: { org: string }) => call(tp!.platform, 'POST', `/v1/webhook_endpoints/${id}/test`, who, { body: {} });
const delivery = (id: string, who: { org: string }) => call(tp!.platform, 'GET', `/v1/webhook_deliveries/${id}`, who);

async function start(config: Record<string, string>, zone: Parameters<typeof startDnsServer>[0]) {
  arrivals.length = 0;
  counted.clear();
  dns = await startDnsServer(zone);
  // A long receiver budget, so the held answer cannot time out while the test looks (the DNS budget is half of it).
  tp = await startPlatform({ config: { WEBHOOK_DNS_SERVERS: dns.address, WEBHOOK_RECEIVER_TIMEOUT_MS: '60000', ...config } });
}

describe('webhook delivery - one organisation cannot slow another (docs/gaps.md#delivery)', () => {
  it("A's burst to a host whose DNS answer hangs leaves B's deliveries to go first, with one query for A's name; A's go once it answers", async () => {
    await start({ WEBHOOK_CONCURRENCY: '6', WEBHOOK_CONCURRENCY_PER_ORGANISATION: '3' }, { 'slow.a.test': { a: ['127.0.0.1'] }, 'hooks.b.test': { a: ['127.0.0.1'] } });
    dns!.hold('slow.a.test');
    const ra = await receiver('A');
    const rb = await receiver('B');
    const epA = await createEndpoint(named(ra, 'slow.a.test'), A);
    const epB = await createEndpoint(named(rb, 'hooks.b.test'), B);
    const burst = [];
    for (let i = 0; i < 30; i++) burst.push(await sendTest(epA.id, A));
    await dns!.seen('slow.a.test');
    const bs = [];
    for (let i = 0; i < 5; i++) bs.push(await sendTest(epB.id, B));
    await received('B', rb, 5);

    // B's five go at once, so among themselves in any order; none of A's before them
    expect([...arrivals].sort()).toEqual(bs.map((d) => `B:${d.event_id}`).sort());
    expect(ra.received).toHaveLength(0);
    // 30 attempts, one query per record type: the burst waits on one answer.
    expect(dns!.queries.filter((q) => q.name === 'slow.a.test' && q.type === 'A')).toHaveLength(1);
    for (const d of burst) expect(await delivery(d.id, A)).toMatchObject({ attempts: 1, last_fault: null, last_status: null, delivered_at: null, next_attempt_at: null });

    dns!.release('slow.a.test');
    await tp!.platform.system.settle();
    expect(ra.received).toHaveLength(30);
    expect(arrivals.slice(0, 5).every((a) => a.startsWith('B:'))).toBe(true);
    for (const d of [...burst, ...bs]) expect(await delivery(d.id, d.endpoint_id === epA.id ? A : B)).toMatchObject({ last_status: 200, last_fault: null });
  });

  it("an organisation resolves only its share of new names at once: A's other names wait while B's is resolved and delivered", async () => {
    const zone = Object.fromEntries([...['slow1', 'slow2', 'slow3', 'slow4', 'slow5'].map((n) => [`${n}.a.test`, { a: ['127.0.0.1'] }]), ['hooks.b.test', { a: ['127.0.0.1'] }]]);
    await start({ WEBHOOK_LOOKUPS_PER_ORGANISATION: '2' }, zone);
    const names = ['slow1', 'slow2', 'slow3', 'slow4', 'slow5'].map((n) => `${n}.a.test`);
    for (const n of names) dns!.hold(n);
    const ra = await receiver('A');
    const rb = await receiver('B');
    const sent = [];
    for (const n of names) sent.push(await sendTest((await createEndpoint(named(ra, n), A)).id, A));
    await Promise.all([dns!.seen(names[0]), dns!.seen(names[1])]);
    const b = await sendTest((await createEndpoint(named(rb, 'hooks.b.test'), B)).id, B);
    await received('B', rb, 1);

    expect(new Set(dns!.queries.filter((q) => q.name.endsWith('.a.test')).map((q) => q.name))).toEqual(new Set(names.slice(0, 2)));
    expect(arrivals).toEqual([`B:${b.event_id}`]);
    for (const n of names) dns!.release(n);
    await tp!.platform.system.settle();
    expect(ra.received).toHaveLength(5);
    expect(new Set(dns!.queries.filter((q) => q.name.endsWith('.a.test')).map((q) => q.name))).toEqual(new Set(names));
    for (const d of sent) expect(await delivery(d.id, A)).toMatchObject({ last_status: 200 });
  });

  it("an organisation's attempts in flight are capped: A's hanging receiver holds its share, B's deliveries are made", async () => {
    await start({ WEBHOOK_CONCURRENCY_PER_ORGANISATION: '3', WEBHOOK_RECEIVER_TIMEOUT_MS: '60000' }, { 'hooks.b.test': { a: ['127.0.0.1'] } });
    const ra = await receiver('A', () => 'hang');
    const rb = await receiver('B');
    const epA = await createEndpoint(ra.url, A);
    for (let i = 0; i < 10; i++) await sendTest(epA.id, A);
    await received('A', ra, 3);
    const epB = await createEndpoint(named(rb, 'hooks.b.test'), B);
    for (let i = 0; i < 3; i++) await sendTest(epB.id, B);
    await received('B', rb, 3);
    expect(ra.received).toHaveLength(3);
    expect(arrivals.filter((a) => a.startsWith('B:'))).toHaveLength(3);
  });

  it('answers are kept for their TTL on the platform clock: no query within it, a new one after it', async () => {
    await start({}, { 'ttl.b.test': { a: ['127.0.0.1'], ttl: 60 } });
    const rb = await receiver('B');
    const ep = await createEndpoint(named(rb, 'ttl.b.test'), B);
    const aQueries = () => dns!.queries.filter((q) => q.name === 'ttl.b.test' && q.type === 'A').length;
    await sendTest(ep.id, B);
    await tp!.platform.system.settle();
    await sendTest(ep.id, B);
    await tp!.platform.system.settle();
    expect([rb.received.length, aQueries()]).toEqual([2, 1]);
    await tp!.clock.advance(61_000);
    await sendTest(ep.id, B);
    await tp!.platform.system.settle();
    expect([rb.received.length, aQueries()]).toEqual([3, 2]);
  });

  it('a lookup that gets no answer within its budget is a DNS failure on the retry ladder, and never holds the attempt past its time limit', async () => {
    await start({ WEBHOOK_RECEIVER_TIMEOUT_MS: '600' }, { 'slow.a.test': { a: ['127.0.0.1'] } });
    dns!.hold('slow.a.test');
    const ra = await receiver('A');
    const d = await sendTest((await createEndpoint(named(ra, 'slow.a.test'), A)).id, A);
    await tp!.platform.system.settle();
    expect(ra.received).toHaveLength(0);
    expect(await delivery(d.id, A)).toMatchObject({ attempts: 1, last_fault: 'DNS failure', last_status: null, next_attempt_at: new Date(tp!.clock.now() + 10_000).toISOString() });
  });

  it('a name with no address is a DNS failure', async () => {
    await start({}, {});
    const d = await sendTest((await createEndpoint('http://nowhere.b.test:9/hook', B)).id, B);
    await tp!.platform.system.settle();
    expect(await delivery(d.id, B)).toMatchObject({ attempts: 1, last_fault: 'DNS failure', last_status: null });
  });
});
