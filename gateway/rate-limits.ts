/**
 * Rate limits (docs/gaps.md#rate-limits): token buckets per credential and per organisation, and
 * per client address for requests that carry no credential, from the active rate policy pack
 * (rate-policy.ts). A request over any of its buckets is refused 429 `rate_limited` with
 * Retry-After and the RateLimit headers (draft-ietf-httpapi-ratelimit-headers), before anything
 * runs, so a flood costs its sender only the refusals.
 *
 * Buckets live in each process's memory: no request waits on a network round trip for its budget.
 * In a cluster each node enforces its share of every budget, the pack's figures divided by the live
 * members (kernel Membership.liveCount): a balancer that spreads a sender's requests over the nodes
 * makes the shares add up to the budget, and a node that joins or leaves changes every share at the
 * next request. Time is the platform's clock, so tests run the refill on a manual clock.
 */
import { ApiError, type Principal } from '../kernel/index.ts';
import type { BucketRule, LoadedRatePolicy } from './rate-policy.ts';

interface Bucket {
  tokens: number;
  at: number;
}

/** Why a request was refused: the error and the headers its response carries. */
export interface RateRefusal {
  error: ApiError;
  headers: Record<string, string>;
}

/** One map of buckets; past `kept` the longest-idle are dropped (they would start full again anyway). */
export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();

  constructor(private readonly kept: number) {}

  get size(): number {
    return this.buckets.size;
  }

  /** Takes a token from `key`'s bucket: 0 when taken, else the milliseconds until one is there. */
  take(key: string, rule: BucketRule, now: number): number {
    let b = this.buckets.get(key);
    if (b === undefined) {
      if (this.buckets.size >= this.kept) this.dropOldest();
      b = { tokens: rule.burst, at: now };
    } else {
      // re-inserted so the map's order is the order of last use
      this.buckets.delete(key);
      b.tokens = Math.min(rule.burst, b.tokens + ((now - b.at) * rule.per_second) / 1000);
      b.at = now;
    }
    this.buckets.set(key, b);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    return Math.ceil(((1 - b.tokens) * 1000) / rule.per_second);
  }

  private dropOldest(): void {
    // a sixteenth at a time, so a flood of new keys does not pay a drop per request
    let n = Math.max(1, this.kept >> 4);
    for (const key of this.buckets.keys()) {
      this.buckets.delete(key);
      if (--n === 0) break;
    }
  }
}

export class RateLimiter {
  private readonly buckets: TokenBuckets;

  constructor(
    private readonly policy: LoadedRatePolicy,
    private readonly now: () => number,
    /** Live members sharing the budgets (1 in one process). */
    private readonly members: () => number = () => 1,
  ) {
    this.buckets = new TokenBuckets(policy.pack.buckets_kept);
  }

  /** A credentialed request: its credential's bucket, then its organisation's (per realm). */
  admitPrincipal(p: Principal): RateRefusal | undefined {
    const pack = this.policy.pack;
    return this.take(`c:${p.kind}:${p.id}`, pack.credential[p.kind], 'credential') ?? this.take(`o:${p.org}:${p.livemode ? 'live' : 'test'}`, p.livemode ? pack.organisation.live : pack.organisation.sandbox, 'organisation');
  }

  /** A request without a credential, by the address it came from. */
  admitAddress(address: string): RateRefusal | undefined {
    return this.take(`a:${address}`, this.policy.pack.unauthenticated.address, 'address');
  }

  private take(key: string, whole: BucketRule, what: string): RateRefusal | undefined {
    const share = Math.max(1, this.members());
    const rule = share === 1 ? whole : { per_second: whole.per_second / share, burst: Math.max(1, whole.burst / share) };
    const waitMs = this.buckets.take(key, rule, this.now());
    if (waitMs === 0) return undefined;
    const seconds = Math.max(1, Math.ceil(waitMs / 1000));
    return {
      error: new ApiError('rate_limited', `Too many requests for this ${what}: at most ${round(rule.per_second)} a second (bursts of ${Math.floor(rule.burst)}). Send again in ${seconds} s.`, { retryable: true }),
      headers: {
        'retry-after': String(seconds),
        'ratelimit-limit': String(Math.floor(rule.burst)),
        'ratelimit-remaining': '0',
        'ratelimit-reset': String(seconds),
        'ratelimit-policy': `${Math.floor(rule.burst)};w=${round(rule.burst / rule.per_second)}`,
      },
    };
  }
}

const round = (x: number) => Math.round(x * 100) / 100;
