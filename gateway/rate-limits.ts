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
import { createHash } from 'node:crypto';
import { ApiError, type Principal } from '../kernel/index.ts';
import { BoundedMap } from '../runtime/index.ts';
import { REQUEST_ID_HEADER } from './headers.ts';
import type { WireResponse } from './wire.ts';
import type { BucketRule, LoadedRatePolicy } from './rate-policy.ts';

interface Bucket {
  tokens: number;
  at: number;
}

/** Why a request was refused: the error and the headers its response carries. */
export interface RateRefusal {
  error: ApiError;
  headers: Record<string, string>;
  /** How long the bucket that refused needs before it holds a token again. */
  waitMs: number;
}

/**
 * One map of buckets; past `kept` the oldest made are dropped, a sixteenth at a time. A dropped
 * bucket starts full again when next used: lenient for a sender still active, and cheaper than
 * keeping the map in order of use on every request.
 */
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
      this.buckets.set(key, (b = { tokens: rule.burst, at: now }));
    } else {
      b.tokens = Math.min(rule.burst, b.tokens + ((now - b.at) * rule.per_second) / 1000);
      b.at = now;
    }
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    return Math.ceil(((1 - b.tokens) * 1000) / rule.per_second);
  }

  private dropOldest(): void {
    // a sixteenth at a time, so a flood of new keys does not pay a drop per request; the map's
    // order is the order the buckets were made
    let n = Math.max(1, this.kept >> 4);
    for (const key of this.buckets.keys()) {
      this.buckets.delete(key);
      if (--n === 0) break;
    }
  }
}

interface PrincipalKeys {
  credential: string;
  organisation: string;
}

export class RateLimiter {
  private readonly buckets: TokenBuckets;
  /** Held weakly: a principal the authenticator no longer hands out takes its keys with it. */
  private readonly keys = new WeakMap<Principal, PrincipalKeys>();

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
    const keys = this.keysOf(p);
    const share = Math.max(1, this.members());
    const now = this.now();
    return this.take(keys.credential, pack.credential[p.kind], 'credential', share, now) ?? this.take(keys.organisation, p.livemode ? pack.organisation.live : pack.organisation.sandbox, 'organisation', share, now);
  }

  /** A request without a credential, by the address it came from. */
  admitAddress(address: string): RateRefusal | undefined {
    return this.take(`a:${address}`, this.policy.pack.unauthenticated.address, 'address', Math.max(1, this.members()), this.now());
  }

  /**
   * A principal's bucket keys, made once per principal object (the authenticator hands out one per
   * credential record): the same strings each time, whose hashes the map lookups then reuse.
   */
  private keysOf(p: Principal): PrincipalKeys {
    let keys = this.keys.get(p);
    if (keys === undefined) this.keys.set(p, (keys = { credential: `c:${p.kind}:${p.id}`, organisation: `o:${p.org}:${p.livemode ? 'live' : 'test'}` }));
    return keys;
  }

  private take(key: string, whole: BucketRule, what: string, share: number, now: number): RateRefusal | undefined {
    const rule = share === 1 ? whole : { per_second: whole.per_second / share, burst: Math.max(1, whole.burst / share) };
    const waitMs = this.buckets.take(key, rule, now);
    if (waitMs === 0) return undefined;
    return refusal(`this ${what}`, waitMs, rule);
  }
}

/** A 429 for `whose` budget, and the headers that say when to send again. */
export function refusal(whose: string, waitMs: number, rule?: BucketRule): RateRefusal {
  const seconds = Math.max(1, Math.ceil(waitMs / 1000));
  const limits: Record<string, string> = rule ? { 'ratelimit-limit': String(Math.floor(rule.burst)), 'ratelimit-policy': `${Math.floor(rule.burst)};w=${round(rule.burst / rule.per_second)}` } : {};
  return {
    waitMs,
    error: new ApiError('rate_limited', `Too many requests for ${whose}${rule ? `: at most ${round(rule.per_second)} a second (bursts of ${Math.floor(rule.burst)})` : ''}. Send again in ${seconds} s.`, { retryable: true }),
    headers: { 'retry-after': String(seconds), 'ratelimit-remaining': '0', 'ratelimit-reset': String(seconds), ...limits },
  };
}

/**
 * The 429 of a credential refused a moment ago, in the same error shape (gateway/error-response.ts)
 * but made without an ApiError: a flood is answered many times a second, and an Error's stack is
 * the dearest part of one.
 */
export function earlyRefusal(waitMs: number, requestId: string): WireResponse {
  const seconds = Math.max(1, Math.ceil(waitMs / 1000));
  const message = `Too many requests for this credential or its organisation. Send again in ${seconds} s.`;
  return {
    status: 429,
    headers: { 'content-type': 'application/json', [REQUEST_ID_HEADER]: requestId, 'retry-after': String(seconds), 'ratelimit-remaining': '0', 'ratelimit-reset': String(seconds) },
    body: JSON.stringify({ error: { code: 'rate_limited', message, request_id: requestId, retryable: true } }),
  };
}

const round = (x: number) => Math.round(x * 100) / 100;

/**
 * Credentials refused for a while, by the digest of the credential headers as sent: until its
 * wait is over, a request carrying exactly those headers is refused from its head alone
 * (ServeOptions.early), before authentication, body or pipeline, so a flood costs the platform
 * the least it can and other senders are not kept waiting behind it. Only a credential that
 * authenticated and was then refused is noted; a wrong credential never is. Digests, not the
 * secrets themselves, are kept.
 */
export class RefusedCredentials {
  /** At least `kept` digests, in two generations: letting the oldest go costs nothing per note (runtime/bounded.ts). */
  private readonly until: BoundedMap<string, number>;

  constructor(kept: number) {
    this.until = new BoundedMap(kept);
  }

  /** The credential headers as sent, or undefined when the request carries none. */
  static raw(headers: Record<string, string>, names: readonly string[]): string | undefined {
    let raw: string | undefined;
    for (const n of names) if (headers[n] !== undefined) raw = (raw ?? '') + n + '\n' + headers[n] + '\n';
    return raw;
  }

  note(raw: string, untilMs: number): void {
    this.until.set(digest(raw), untilMs);
  }

  /** True while no credential is refused: a request's head is then not looked at. */
  get empty(): boolean {
    return this.until.size === 0;
  }

  /** Milliseconds `raw` still waits (0: not refused now). Free while nothing is refused. */
  waiting(raw: string, now: number): number {
    if (this.until.size === 0) return 0;
    const key = digest(raw);
    const until = this.until.get(key);
    if (until === undefined) return 0;
    if (until <= now) {
      this.until.delete(key);
      return 0;
    }
    return until - now;
  }
}

const digest = (raw: string) => createHash('sha256').update(raw).digest('base64url');
