/**
 * Webhook endpoints cannot reach internal addresses (spec 4.11; DESIGN "Delivery";
 * docs/gaps.md#delivery): refused when an endpoint is created, and again when an attempt resolves
 * its host. The development setting WEBHOOK_ALLOW_PRIVATE_NETWORKS lets private networks through,
 * never a cloud metadata service. Host names resolve through a stand-in resolver: no DNS here.
 */
import type { LookupAddress } from 'node:dns';
import { afterEach, describe, expect, it } from 'vitest';
import { RETRY_SCHEDULE_SECONDS } from '../../actors/delivery/index.ts';
import { WEBHOOK_RESOLVER } from '../../actors/delivery/resolve.ts';
import { call, startPlatform, startReceiver, stopKeepingStores, type Receiver, type TestPlatform } from './support.ts';

const A = { org: 'org_Aaaaaaaaaaaaaaaaaaaaaa' };
const STRICT = { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false' };
const DEVELOPMENT = { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' };

let tp: TestPlatform | undefined;
let receiver: Receiver | undefined;
afterEach(async () => {
  await tp?.stop();
  await receiver?.close();
  tp = receiver = undefined;
});

const createEndpoint = (url: string) => call(tp!.platform, 'POST', '/v1/webhook_endpoints', A, { body: { url } });
const sendTest = (id: string) => call(tp!.platform, 'POST', `/v1/webhook_endpoints/${id}/test`, A, { body: {} });
const delivery = (id: string) => call(tp!.platform, 'GET', `/v1/webhook_deliveries/${id}`, A);
const resolveTo = (...addresses: string[]) => async (): Promise<LookupAddress[]> => addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
/** What the attempts recorded in the delivery's journal: the reason a refused one carries. */
async function refusals(deliveryId: string): Promise<string[]> {
  const events = await tp!.stores.journal.read(`webhook_delivery.${deliveryId}`, 0);
  return events.flatMap((e) => {
    const data = e.data as { type: string; outcome?: { refused?: string } | null };
    return data.outcome?.refused === undefined ? [] : [data.outcome.refused];
  });
}

/** [form, url, host as the URL parser normalises it, range named in the refusal] */
const INTERNAL: ReadonlyArray<[string, string, string, string]> = [
  ['loopback', 'http://127.0.0.1/hook', '127.0.0.1', 'loopback'],
  ['loopback, anywhere in 127/8', 'http://127.200.3.4:8080/hook', '127.200.3.4', 'loopback'],
  ['IPv6 loopback', 'http://[::1]/hook', '::1', 'loopback'],
  ['decimal IPv4', 'http://2130706433/hook', '127.0.0.1', 'loopback'],
  ['hex IPv4', 'http://0x7f000001/hook', '127.0.0.1', 'loopback'],
  ['octal IPv4', 'http://0177.0.0.1/hook', '127.0.0.1', 'loopback'],
  ['short IPv4', 'http://127.1/hook', '127.0.0.1', 'loopback'],
  ['mixed hex and short IPv4', 'http://0x7f.0.1/hook', '127.0.0.1', 'loopback'],
  ['percent-encoded IPv4', 'http://%31%32%37.0.0.1/hook', '127.0.0.1', 'loopback'],
  ['IPv4 with a final dot', 'http://127.0.0.1./hook', '127.0.0.1', 'loopback'],
  ['IPv4-mapped IPv6, dotted', 'http://[::ffff:127.0.0.1]/hook', '::ffff:7f00:1', 'loopback'],
  ['IPv4-mapped IPv6, hex', 'http://[::ffff:7f00:1]/hook', '::ffff:7f00:1', 'loopback'],
  ['IPv4-mapped IPv6, written out', 'http://[0:0:0:0:0:ffff:10.1.2.3]/hook', '::ffff:a01:203', 'private'],
  ['IPv4-compatible IPv6', 'http://[::127.0.0.1]/hook', '::7f00:1', 'loopback'],
  ['NAT64 IPv6', 'http://[64:ff9b::10.0.0.1]/hook', '64:ff9b::a00:1', 'private'],
  ['6to4 IPv6', 'http://[2002:c0a8:101::1]/hook', '2002:c0a8:101::1', 'private'],
  ['NAT64 IPv6, loopback', 'http://[64:ff9b::127.0.0.1]/hook', '64:ff9b::7f00:1', 'loopback'],
  ['RFC 8215 local-use NAT64, /96 layout', 'http://[64:ff9b:1::7f00:1]/hook', '64:ff9b:1::7f00:1', 'loopback'],
  ['RFC 8215 local-use NAT64, private', 'http://[64:ff9b:1::10.0.0.1]/hook', '64:ff9b:1::a00:1', 'private'],
  ['RFC 8215 local-use NAT64, /64 layout', 'http://[64:ff9b:1:0:7f:0:100:0]/hook', '64:ff9b:1:0:7f:0:100:0', 'loopback'],
  ['IPv4-translated IPv6', 'http://[::ffff:0:127.0.0.1]/hook', '::ffff:0:7f00:1', 'loopback'],
  ['IPv4-compatible IPv6, private', 'http://[::10.1.2.3]/hook', '::a01:203', 'private'],
  ['6to4 IPv6, loopback', 'http://[2002:7f00:1::1]/hook', '2002:7f00:1::1', 'loopback'],
  ['Teredo, client 127.0.0.1 (stored inverted)', 'http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/hook', '2001:0:4136:e378:8000:63bf:80ff:fffe', 'loopback'],
  ['Teredo, server 10.0.0.1', 'http://[2001:0:a00:1::1]/hook', '2001:0:a00:1::1', 'private'],
  ['private 10/8', 'http://10.0.0.1/hook', '10.0.0.1', 'private'],
  ['private 172.16/12', 'http://172.31.255.254/hook', '172.31.255.254', 'private'],
  ['private 192.168/16', 'http://192.168.1.1/hook', '192.168.1.1', 'private'],
  ['private fc00::/7', 'http://[fd12:3456::1]/hook', 'fd12:3456::1', 'private'],
  ['link-local 169.254/16', 'http://169.254.10.20/hook', '169.254.10.20', 'link-local'],
  ['link-local fe80::/10', 'http://[fe80::1]/hook', 'fe80::1', 'link-local'],
  ['multicast', 'http://224.0.0.251/hook', '224.0.0.251', 'multicast'],
  ['IPv6 multicast', 'http://[ff02::1]/hook', 'ff02::1', 'multicast'],
  ['unspecified', 'http://0.0.0.0/hook', '0.0.0.0', 'unspecified'],
  ['unspecified, short', 'http://0/hook', '0.0.0.0', 'unspecified'],
  ['IPv6 unspecified', 'http://[::]/hook', '::', 'unspecified'],
  ['CGNAT 100.64/10', 'http://100.100.100.200/hook', '100.100.100.200', 'shared (CGNAT)'],
  ['broadcast', 'http://255.255.255.255/hook', '255.255.255.255', 'broadcast'],
  ['reserved 240/4', 'http://240.0.0.1/hook', '240.0.0.1', 'reserved'],
  ['localhost', 'http://localhost:3000/hook', 'localhost', 'loopback'],
  ['localhost in capitals, with a final dot', 'http://LocalHost./hook', 'localhost', 'loopback'],
  ['a *.localhost name', 'http://hooks.dev.localhost/hook', 'hooks.dev.localhost', 'loopback'],
];

/** Refused with the development setting too. */
const METADATA: ReadonlyArray<[string, string, string]> = [
  ['cloud metadata IPv4', 'http://169.254.169.254/latest/meta-data/', '169.254.169.254'],
  ['cloud metadata, decimal', 'http://2852039166/latest/meta-data/', '169.254.169.254'],
  ['cloud metadata, IPv4-mapped', 'http://[::ffff:169.254.169.254]/latest/', '::ffff:a9fe:a9fe'],
  ['cloud metadata IPv6 (AWS)', 'http://[fd00:ec2::254]/latest/', 'fd00:ec2::254'],
  ['cloud metadata name (GCP)', 'http://metadata.google.internal/computeMetadata/v1/', 'metadata.google.internal'],
  ['cloud metadata name, final dot', 'http://metadata.google.internal./computeMetadata/v1/', 'metadata.google.internal'],
];

const PUBLIC = [
  'https://example.com/hooks',
  'http://93.184.216.34/hook',
  'http://[2606:2800:220:1:248:1893:25c8:1946]/hook',
  'http://100.63.255.255/hook', // just below 100.64/10
  'http://172.32.0.1/hook', // just above 172.16/12
  'http://[::ffff:8.8.8.8]/hook',
  'http://[64:ff9b::8.8.8.8]/hook', // NAT64 of a public address
  'http://[2002:808:808::1]/hook', // 6to4 of a public address
  'http://[2001:0:808:808:8000:63bf:f7f7:f7f7]/hook', // Teredo: server 8.8.8.8, client 8.8.8.8
  'https://localhost.example.com/hook', // localhost only as the last label
];

const refusal = (code: string, detail: string) => ({
  code: 'validation_failed',
  status: 400,
  details: { validation: { error_count: 1, entries: [expect.objectContaining({ field: '/url', code, detail: expect.stringContaining(detail) })] } },
});

describe('webhook endpoint url - internal addresses are refused (spec 4.11, docs/gaps.md#delivery)', () => {
  it.each(INTERNAL)('create - refuses %s (%s)', async (_form, url, host, range) => {
    expect(new URL(url).hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase()).toBe(host);
    tp = await startPlatform({ config: STRICT });
    await expect(createEndpoint(url)).rejects.toMatchObject(refusal('internal_address', `url host ${host} is ${range === 'unspecified' ? 'an' : 'a'} ${range} address`));
  });

  it.each(INTERNAL)('create - allows %s (%s) only with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true', async (_form, url) => {
    tp = await startPlatform({ config: DEVELOPMENT });
    expect(await createEndpoint(url)).toMatchObject({ object: 'webhook_endpoint', url });
  });

  it.each(METADATA)('create - refuses %s (%s), even with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true', async (_form, url, host) => {
    for (const config of [STRICT, DEVELOPMENT]) {
      tp = await startPlatform({ config });
      await expect(createEndpoint(url)).rejects.toMatchObject(refusal('internal_address', `url host ${host} is a cloud metadata address`));
      await tp.stop();
      tp = undefined;
    }
  });

  it.each(PUBLIC)('create - accepts the public address %s', async (url) => {
    tp = await startPlatform({ config: STRICT });
    expect(await createEndpoint(url)).toMatchObject({ url });
  });

  it.each([
    'https://user:pass@example.com/hooks',
    'https://user@example.com/hooks',
    'https://:secret@example.com/hooks',
    'http://example.com@127.0.0.1/hooks',
  ])('create - refuses a url with credentials, %s, with the development setting too', async (url) => {
    for (const config of [STRICT, DEVELOPMENT]) {
      tp = await startPlatform({ config });
      await expect(createEndpoint(url)).rejects.toMatchObject(refusal('credentials_not_allowed', 'must not carry credentials'));
      await tp.stop();
      tp = undefined;
    }
  });

  it.each(['ftp://example.com/hooks', 'file:///etc/passwd', 'data:text/plain,hi', 'javascript:alert(1)', '/relative/hook'])('create - refuses %s: only http and https', async (url) => {
    tp = await startPlatform({ config: DEVELOPMENT });
    await expect(createEndpoint(url)).rejects.toMatchObject(refusal('invalid_format', 'url must be an absolute http or https URL.'));
  });
});

describe('webhook delivery - an attempt reaches only a checked public address (spec 2.12, 6.1, docs/gaps.md#delivery)', () => {
  it('a public-looking name that resolves to 127.0.0.1 is refused at delivery time: a failed attempt, refused connection, on the usual ladder', async () => {
    tp = await startPlatform({ config: STRICT });
    tp.platform.services.provide(WEBHOOK_RESOLVER, resolveTo('127.0.0.1'));
    receiver = await startReceiver();
    const url = receiver.url.replace('127.0.0.1', 'hooks.example.test');
    const ep = await createEndpoint(url);
    const d = await sendTest(ep.id);
    await tp.platform.system.settle();
    expect(receiver.received).toHaveLength(0);
    expect(await delivery(d.id)).toMatchObject({ attempts: 1, last_status: null, last_fault: 'refused connection', delivered_at: null, next_attempt_at: new Date(tp.clock.now() + 10_000).toISOString() });
    expect(await refusals(d.id)).toEqual(['hooks.example.test resolves to 127.0.0.1, which is a loopback address; webhooks are only sent to public internet addresses.']);
  });

  it('the same name is delivered with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true (the resolver, not DNS, chose the address)', async () => {
    tp = await startPlatform({ config: DEVELOPMENT });
    tp.platform.services.provide(WEBHOOK_RESOLVER, resolveTo('127.0.0.1'));
    receiver = await startReceiver();
    const ep = await createEndpoint(receiver.url.replace('127.0.0.1', 'hooks.example.test'));
    const d = await sendTest(ep.id);
    await tp.platform.system.settle();
    expect(receiver.received).toHaveLength(1);
    expect(await delivery(d.id)).toMatchObject({ last_status: 200, last_fault: null });
  });

  it('a name resolving to cloud metadata is refused at delivery time even with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true', async () => {
    tp = await startPlatform({ config: DEVELOPMENT });
    tp.platform.services.provide(WEBHOOK_RESOLVER, resolveTo('169.254.169.254'));
    const ep = await createEndpoint('http://hooks.example.test/hook');
    const d = await sendTest(ep.id);
    await tp.platform.system.settle();
    expect(await delivery(d.id)).toMatchObject({ last_fault: 'refused connection', last_status: null });
    expect((await refusals(d.id))[0]).toContain('169.254.169.254, which is a cloud metadata address');
  });

  it('an endpoint stored while private networks were allowed is refused once they are not; the ladder ends in failed, not retried forever', async () => {
    tp = await startPlatform({ config: DEVELOPMENT });
    receiver = await startReceiver();
    const ep = await createEndpoint(receiver.url);
    await stopKeepingStores(tp.platform);
    tp = await startPlatform({ clock: tp.clock, stores: tp.stores, config: STRICT });
    const d = await sendTest(ep.id);
    await tp.platform.system.settle();
    for (const step of RETRY_SCHEDULE_SECONDS) {
      await tp.clock.advance(step * 1000);
      await tp.platform.system.settle();
    }
    expect(receiver.received).toHaveLength(0);
    expect(await delivery(d.id)).toMatchObject({ attempts: 9, last_fault: 'refused connection', next_attempt_at: null, failed_at: new Date(tp.clock.now()).toISOString() });
    expect(await refusals(d.id)).toHaveLength(9);
    expect((await refusals(d.id))[0]).toBe(`url host 127.0.0.1 is a loopback address; webhooks are only sent to public internet addresses.`);
    await tp.clock.advance(72_000_000);
    await tp.platform.system.settle();
    expect((await delivery(d.id)).attempts).toBe(9);
  });
});
