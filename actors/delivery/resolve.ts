/**
 * Resolving a webhook host at delivery time (docs/gaps.md#delivery "Fair outbound work").
 *
 * Lookups go through c-ares (`dns.promises.Resolver`), not `dns.lookup`: getaddrinfo runs on
 * libuv's small thread pool, shared with password hashing and file I/O, and a lookup there can
 * neither be timed out nor cancelled, so one organisation's slowly resolving host used to hold
 * every thread while other organisations' lookups queued behind it. A c-ares query is a socket
 * on the event loop; it gets its own time limit inside the attempt's budget, answers are kept
 * for their TTL, lookups of one name share one query, and each organisation has a few lookups
 * of new names at a time (the rest wait their turn, within their attempt's budget).
 *
 * Every address a name resolves to is checked with the address policy; the attempt then
 * connects to the checked address itself (sender.ts), so no second lookup at connect time can
 * lead it inward (DNS rebinding).
 */
import dns, { type LookupAddress } from 'node:dns';
import { BoundedMap } from '../../runtime/index.ts';
import { serviceKey } from '../../kernel/index.ts';
import { internalDetail, internalRange, isRefused } from './address-policy.ts';

/** Every address of `host`; `org` is whose attempt asks (a lookup share is per organisation). */
export type Resolve = (host: string, org?: string) => Promise<LookupAddress[]>;

/** A resolver in place of DNS on one platform: tests that need no DNS server. */
export const WEBHOOK_RESOLVER = serviceKey<Resolve>('delivery.webhook_resolver');

/** A host resolved to an address webhooks may not reach. */
export class InternalAddressError extends Error {
  readonly code = 'ERR_WEBHOOK_INTERNAL_ADDRESS';
}

/** The host could not be resolved (no such name, no answer in time, a server fault): spec 2.12 `DNS failure`. */
export class LookupError extends Error {
  constructor(message: string, readonly code: string) {
    super(message);
  }
}

const notFound = (host: string) => new LookupError(`${host} has no address`, 'ENOTFOUND');

/** Every address of `host`, or a refusal naming the first internal one (a mix of public and internal is refused). */
export async function checkedAddresses(host: string, allowPrivate: boolean, resolve: Resolve, org?: string): Promise<LookupAddress[]> {
  const all = await resolve(host, org);
  if (all.length === 0) throw notFound(host);
  for (const { address } of all) {
    const range = internalRange(address);
    if (range !== null && isRefused(range, allowPrivate)) throw new InternalAddressError(internalDetail(`${host} resolves to ${address}, which`, range));
  }
  return all;
}

/** The address an attempt connects to: the first IPv4 answer, else the first (IPv6 is often unroutable where IPv4 works). */
export const pinned = (all: readonly LookupAddress[]): LookupAddress => all.find((a) => a.family === 4) ?? all[0];

export interface HostResolverOptions {
  /** `ip` or `ip:port` of the DNS servers (WEBHOOK_DNS_SERVERS); the system's when empty. */
  servers: readonly string[];
  /** The longest a lookup may take, retries included: inside the attempt's budget. */
  budgetMs: number;
  /** New names resolved at once per organisation. */
  perOrganisation: number;
  now: () => number;
}

/** Answers are kept for their TTL within these bounds; a failure for NEGATIVE_TTL_MS (RFC 2308: a short negative cache). */
const MIN_TTL_MS = 1_000;
const MAX_TTL_MS = 300_000;
const NEGATIVE_TTL_MS = 5_000;
const CACHED_NAMES = 10_000;

interface Cached {
  until: number;
  addresses?: LookupAddress[];
  error?: LookupError;
}

interface Share {
  active: number;
  waiting: Array<() => void>;
}

export class HostResolver {
  private readonly dns: dns.promises.Resolver;
  private readonly cache = new BoundedMap<string, Cached>(CACHED_NAMES);
  /** One query per name at a time: a burst of attempts to one host waits on the same answer. */
  private readonly pending = new Map<string, Promise<LookupAddress[]>>();
  private readonly shares = new Map<string, Share>();
  /** Queries sent, for the metrics. */
  queries = 0;

  constructor(private readonly opts: HostResolverOptions) {
    // c-ares doubles the time limit on its second try: two tries fit the budget at a third each.
    this.dns = new dns.promises.Resolver({ timeout: Math.max(1, Math.floor(opts.budgetMs / 3)), tries: 2 });
    if (opts.servers.length > 0) this.dns.setServers([...opts.servers]);
  }

  readonly resolve: Resolve = (host, org = '') => {
    // RFC 6761 6.3: localhost names are loopback, whatever a DNS server says.
    if (host === 'localhost' || host.endsWith('.localhost')) return Promise.resolve([{ address: '127.0.0.1', family: 4 }, { address: '::1', family: 6 }]);
    const hit = this.cache.get(host);
    if (hit && hit.until > this.opts.now()) return hit.error ? Promise.reject(hit.error) : Promise.resolve(hit.addresses!);
    let p = this.pending.get(host);
    if (!p) {
      p = this.shared(org, () => this.query(host));
      this.pending.set(host, p);
      const clear = () => this.pending.delete(host);
      p.then(clear, clear);
    }
    return p;
  };

  /** Stops every query in flight (they fail with ECANCELLED): the process is stopping. */
  cancel(): void {
    this.dns.cancel();
  }

  /** Runs `fn` within the organisation's share of lookups, waiting for a turn when it is used up. */
  private async shared<T>(org: string, fn: () => Promise<T>): Promise<T> {
    let share = this.shares.get(org);
    if (!share) this.shares.set(org, (share = { active: 0, waiting: [] }));
    const s = share;
    if (s.active >= this.opts.perOrganisation) await new Promise<void>((turn) => s.waiting.push(turn));
    s.active++;
    try {
      return await fn();
    } finally {
      s.active--;
      const next = s.waiting.shift();
      if (next) next();
      else if (s.active === 0) this.shares.delete(org);
    }
  }

  private async query(host: string): Promise<LookupAddress[]> {
    this.queries++;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new LookupError(`${host} did not resolve within ${this.opts.budgetMs} ms`, 'ETIMEOUT')), this.opts.budgetMs);
    });
    try {
      const [v4, v6] = await Promise.race([Promise.allSettled([this.dns.resolve4(host, { ttl: true }), this.dns.resolve6(host, { ttl: true })]), late]);
      const answers = [...(v4.status === 'fulfilled' ? v4.value.map((a) => ({ ...a, family: 4 })) : []), ...(v6.status === 'fulfilled' ? v6.value.map((a) => ({ ...a, family: 6 })) : [])];
      if (answers.length === 0) {
        const err = (v4.status === 'rejected' ? v4.reason : v6.status === 'rejected' ? v6.reason : undefined) as NodeJS.ErrnoException | undefined;
        throw new LookupError(`${host} did not resolve (${err?.code ?? 'no address'})`, err?.code ?? 'ENOTFOUND');
      }
      const ttl = Math.min(...answers.map((a) => a.ttl)) * 1000;
      const addresses = answers.map(({ address, family }) => ({ address, family }));
      this.cache.set(host, { until: this.opts.now() + Math.min(MAX_TTL_MS, Math.max(MIN_TTL_MS, ttl)), addresses });
      return addresses;
    } catch (e) {
      const err = e instanceof LookupError ? e : new LookupError(`${host} did not resolve (${(e as NodeJS.ErrnoException).code})`, (e as NodeJS.ErrnoException).code ?? 'ENOTFOUND');
      if (err.code !== 'ECANCELLED') this.cache.set(host, { until: this.opts.now() + NEGATIVE_TTL_MS, error: err });
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }
}

/** WEBHOOK_DNS_SERVERS: comma-separated `ip` or `ip:port` (README "Configuration"); the system's servers when unset. */
export const dnsServers = (value: string | undefined): string[] => (value ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '');
