/**
 * Failed sign-ins per account (docs/gaps.md#accounts "Password checks"), beside the gateway's
 * budget per client address: a guesser spread over many addresses still gets MAX_FAILURES wrong
 * passwords per email in a WINDOW_MS, after which sign-ins for that email are refused with 429
 * `rate_limited` and Retry-After until the window ends, before any password is hashed. Counted by
 * the email as typed (normalised), known or not, so the answer never tells whether an account
 * exists; a successful sign-in clears the count. Kept in the platform key-value store, so every
 * node of a cluster counts together; two failures at the same instant on two nodes may count once,
 * which a throttle tolerates.
 *
 * The price of any per-account limit: someone who knows an email can keep its owner out of
 * password sign-in for a window at a time. The window is short and sessions already open, API keys
 * and access tokens are unaffected.
 */
import { ApiError, keyValue, type Platform } from '../../kernel/index.ts';

export const MAX_FAILURES = 10;
export const WINDOW_MS = 15 * 60_000;

interface Failures {
  count: number;
  /** When the window that began with the first failure ends (platform clock). */
  until: number;
}

const failuresKey = (email: string) => `sign_in_failures:${email}`;

/** Refuses with 429 when `email` has used up its failures in the current window; else whether it has failures to clear. */
export async function assertSignInAllowed(platform: Platform, email: string): Promise<boolean> {
  const f = await keyValue(platform).get<Failures>(failuresKey(email));
  const now = platform.clock.now();
  if (!f || f.until <= now || f.count < MAX_FAILURES) return f !== undefined;
  const seconds = Math.max(1, Math.ceil((f.until - now) / 1000));
  throw new ApiError('rate_limited', `Too many failed sign-ins for this email: at most ${MAX_FAILURES} in ${WINDOW_MS / 60_000} minutes. Send again in ${seconds} s.`, {
    retryable: true,
    retryAfterSeconds: seconds,
  });
}

export async function noteFailedSignIn(platform: Platform, email: string): Promise<void> {
  const kv = keyValue(platform);
  const now = platform.clock.now();
  const f = await kv.get<Failures>(failuresKey(email));
  const next = f && f.until > now ? { count: f.count + 1, until: f.until } : { count: 1, until: now + WINDOW_MS };
  await kv.set(failuresKey(email), next, next.until - now);
}

export async function clearFailedSignIns(platform: Platform, email: string): Promise<void> {
  await keyValue(platform).delete(failuresKey(email));
}
