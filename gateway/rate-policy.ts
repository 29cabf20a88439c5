/**
 * The gateway's rate policy pack (docs/gaps.md#rate-limits; the specification shows no 429): how
 * many requests a credential, an organisation and an unauthenticated address may send, as token
 * buckets (a steady rate and a burst). Data, versioned YYYY.MM.N like the areas' packs, identified
 * by the sha256 of its canonical JSON; an active version never changes, a new figure is a new file.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { contentHash, type Principal } from '../kernel/index.ts';

/** A bucket: `per_second` tokens flow in, up to `burst`; a request takes one. */
export interface BucketRule {
  per_second: number;
  burst: number;
}

export interface RatePolicy {
  name: 'gateway_rate_policy';
  version: string;
  credential: Record<Principal['kind'], BucketRule>;
  /** Per organisation and realm: its test keys (sandbox) and its live keys draw on separate buckets. */
  organisation: { sandbox: BucketRule; live: BucketRule };
  /** Requests without a credential (registration, sign-in, token exchange), per client address. */
  unauthenticated: { address: BucketRule };
  /** Buckets kept in memory at most; an idle one dropped past it starts full again. */
  buckets_kept: number;
}

export interface LoadedRatePolicy {
  pack: RatePolicy;
  hash: string;
}

const VERSION = /^\d{4}\.(0[1-9]|1[0-2])\.[1-9]\d*$/;
const KINDS: readonly Principal['kind'][] = ['api_key', 'access_token', 'session', 'device'];

const goodRule = (r: BucketRule | undefined): boolean => !!r && r.per_second > 0 && Number.isFinite(r.per_second) && r.burst >= 1 && Number.isFinite(r.burst);

/** Throws on a pack that is not well formed: a bad pack must never become active. */
export function checkRatePolicy(raw: unknown): LoadedRatePolicy {
  const p = raw as RatePolicy;
  const bad = (why: string) => new Error(`gateway rate policy: ${why}`);
  if (p?.name !== 'gateway_rate_policy' || !VERSION.test(p.version)) throw bad('name or version');
  for (const k of KINDS) if (!goodRule(p.credential?.[k])) throw bad(`credential.${k}`);
  if (!goodRule(p.organisation?.sandbox) || !goodRule(p.organisation?.live)) throw bad('organisation');
  if (!goodRule(p.unauthenticated?.address)) throw bad('unauthenticated.address');
  if (!Number.isInteger(p.buckets_kept) || p.buckets_kept < 1_000) throw bad('buckets_kept');
  return { pack: p, hash: contentHash(p) };
}

const dir = join(dirname(fileURLToPath(import.meta.url)), 'rate-policy');

/** The pack in `file` (platform config RATE_POLICY_FILE: a bench's or a test's), else the newest in gateway/rate-policy/. */
export function ratePolicy(file: string | undefined): LoadedRatePolicy {
  return file ? checkRatePolicy(JSON.parse(readFileSync(file, 'utf8'))) : ACTIVE_RATE_POLICY;
}

/** The newest pack in gateway/rate-policy/. */
export const ACTIVE_RATE_POLICY: LoadedRatePolicy = readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .map((f) => checkRatePolicy(JSON.parse(readFileSync(join(dir, f), 'utf8'))))
  .sort((a, b) => b.pack.version.localeCompare(a.pack.version, 'en', { numeric: true }))[0]!;
