/**
 * Which URLs and addresses a webhook may reach (spec 4.11; DESIGN "Delivery"; docs/gaps.md#delivery).
 * A webhook POSTs signed bytes wherever its URL points, so a URL naming this machine, a private
 * network or a cloud metadata service would let any API key holder make the platform call inside
 * its own network. One rule, used when an endpoint is created and again on every attempt (for the
 * addresses its host name resolves to, resolve.ts). Pure: no DNS, no sockets.
 */
import { BlockList, isIP, isIPv4 } from 'node:net';

/** Why an address is not public. `cloud metadata` stays refused even in development. */
export type InternalRange = 'cloud metadata' | 'broadcast' | 'unspecified' | 'loopback' | 'private' | 'shared (CGNAT)' | 'link-local' | 'multicast' | 'reserved';

/** Most specific first: 169.254.169.254 is metadata before it is link-local. */
const RANGES: ReadonlyArray<[InternalRange, readonly string[]]> = [
  ['cloud metadata', ['169.254.169.254/32', 'fd00:ec2::254/128']],
  ['broadcast', ['255.255.255.255/32']],
  ['unspecified', ['0.0.0.0/8', '::/128']],
  ['loopback', ['127.0.0.0/8', '::1/128']],
  // fec0::/10 is the deprecated IPv6 site-local range: private by intent.
  ['private', ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7', 'fec0::/10']],
  ['shared (CGNAT)', ['100.64.0.0/10']],
  ['link-local', ['169.254.0.0/16', 'fe80::/10']],
  ['multicast', ['224.0.0.0/4', 'ff00::/8']],
  // IETF protocol assignments (192.0.0.192 is a cloud metadata address), benchmarking, class E.
  ['reserved', ['192.0.0.0/24', '198.18.0.0/15', '240.0.0.0/4']],
];

const LISTS: ReadonlyArray<[InternalRange, BlockList]> = RANGES.map(([range, cidrs]) => {
  const list = new BlockList();
  for (const cidr of cidrs) {
    const [net, bits] = cidr.split('/');
    list.addSubnet(net, Number(bits), isIPv4(net) ? 'ipv4' : 'ipv6');
  }
  return [range, list];
});

/** Names that are internal whatever DNS says: RFC 6761 localhost, and the GCP metadata name. */
function internalName(host: string): InternalRange | null {
  if (host === 'localhost' || host.endsWith('.localhost')) return 'loopback';
  if (host === 'metadata.google.internal') return 'cloud metadata';
  return null;
}

/** The eight 16-bit groups of an IPv6 address (a dotted IPv4 tail included). */
function groups(v6: string): number[] {
  const parse = (s: string): number[] => (s === '' ? [] : s.split(':').flatMap((p) => {
    if (!p.includes('.')) return [parseInt(p, 16)];
    const [a, b, c, d] = p.split('.').map(Number);
    return [(a << 8) | b, (c << 8) | d];
  }));
  const [head, tail] = v6.split('::');
  if (tail === undefined) return parse(head);
  const h = parse(head);
  const t = parse(tail);
  return [...h, ...new Array<number>(8 - h.length - t.length).fill(0), ...t];
}

/**
 * The IPv4 addresses an IPv6 address may carry to the IPv4 network: mapped (::ffff:0:0/96),
 * translated (::ffff:0:0:0/96), compatible (::/96), NAT64 well-known (64:ff9b::/96), NAT64
 * local-use (64:ff9b:1::/48, RFC 8215), 6to4 (2002::/16) and Teredo (2001::/32: the server's
 * address and the client's, stored inverted, RFC 4380 4). The local-use prefix may be split at any
 * RFC 6052 2.2 length from 48 to 96, which the address does not say, so each reading is a candidate.
 */
function embeddedIPv4(v6: string): string[] {
  const g = groups(v6);
  const quad = (a: number, b: number, c: number, d: number) => `${a & 255}.${b & 255}.${c & 255}.${d & 255}`;
  const at96 = quad(g[6] >> 8, g[6], g[7] >> 8, g[7]);
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (g[0] === 0x2002) return [quad(g[1] >> 8, g[1], g[2] >> 8, g[2])];
  if (g[0] === 0x2001 && g[1] === 0) return [quad(g[2] >> 8, g[2], g[3] >> 8, g[3]), quad(~g[6] >> 8, ~g[6], ~g[7] >> 8, ~g[7])];
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) {
    // RFC 6052 2.2: the prefix lengths 96, 64, 56 and 48 (bits 64-71 are the zero "u" octet); the
    // common /96 first, so a refusal names what most translators would reach.
    return [at96, quad(g[4], g[5] >> 8, g[5], g[6] >> 8), quad(g[3], g[4], g[5] >> 8, g[5]), quad(g[3] >> 8, g[3], g[4], g[5] >> 8)];
  }
  const mapped = zeros(0, 5) && g[5] === 0xffff;
  const translated = zeros(0, 4) && g[4] === 0xffff && g[5] === 0;
  const compatible = zeros(0, 6);
  const nat64 = g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6);
  return mapped || translated || compatible || nat64 ? [at96] : [];
}

/** The internal range an IP address lies in, directly or through an IPv4 address it embeds; null when public. */
export function internalRange(ip: string): InternalRange | null {
  const address = ip.replace(/%.*$/, ''); // a zone id (fe80::1%eth0) names an interface, not an address
  const family = isIP(address);
  if (family === 0) return null;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  for (const [range, list] of LISTS) if (list.check(address, type)) return range;
  if (family === 4) return null;
  for (const inner of embeddedIPv4(address)) {
    const range = internalRange(inner);
    if (range !== null) return range;
  }
  return null;
}

/** Whether the range is refused: the development setting lets every range through but cloud metadata. */
export const isRefused = (range: InternalRange, allowPrivate: boolean): boolean => range === 'cloud metadata' || !allowPrivate;

const article = (range: InternalRange) => (/^[aeiou]/.test(range) ? 'an' : 'a');

/** The clear reason an address or name is refused (shown in a 400 and kept with a refused attempt). */
export const internalDetail = (what: string, range: InternalRange): string =>
  `${what} is ${article(range)} ${range} address; webhooks are only sent to public internet addresses.`;

/** The operator setting (README "Configuration"): off unless exactly `true`. */
export const allowsPrivateNetworks = (config: Readonly<Record<string, string | undefined>>): boolean =>
  config.WEBHOOK_ALLOW_PRIVATE_NETWORKS === 'true';

export interface UrlRefusal {
  code: 'invalid_format' | 'credentials_not_allowed' | 'internal_address';
  detail: string;
}

/** The host of a parsed URL as an address or a name: brackets, case and a final dot removed. */
const hostOf = (u: URL): string => u.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase();

/**
 * Why a webhook URL is refused, or null. The WHATWG parser has already turned every IPv4 spelling
 * (2130706433, 0x7f000001, 0177.0.0.1, 127.1) into dotted form and compressed IPv6, so an IP
 * literal is checked as the address the socket would use.
 */
export function urlRefusal(url: string, allowPrivate: boolean): UrlRefusal | null {
  const u = URL.canParse(url) ? new URL(url) : null;
  if (!u || (u.protocol !== 'http:' && u.protocol !== 'https:') || !u.hostname) {
    return { code: 'invalid_format', detail: 'url must be an absolute http or https URL.' };
  }
  if (u.username || u.password) {
    return { code: 'credentials_not_allowed', detail: 'url must not carry credentials (user:password@); a receiver checks the signature header instead (spec 6.2).' };
  }
  const host = hostOf(u);
  const range = isIP(host) ? internalRange(host) : internalName(host);
  if (range === null || !isRefused(range, allowPrivate)) return null;
  return { code: 'internal_address', detail: internalDetail(`url host ${host}`, range) };
}
