/**
 * Password checks are bounded (docs/gaps.md#accounts "Password checks"): scrypt runs at most two at
 * a time with a bounded waiting list, a full list answers a retryable 503 with Retry-After, and an
 * email whose failed sign-ins used up their window is refused 429 before any hashing, whatever the
 * client address.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../kernel/index.ts';
import { passwordWork, PasswordWork, WAITING } from '../../actors/accounts/password-work.ts';
import { MAX_FAILURES, WINDOW_MS } from '../../actors/accounts/sign-in-throttle.ts';
import { startHarness, type Harness } from '../../support/http.ts';

/** A hash the test finishes by hand, and how many run at once. */
function gate() {
  let running = 0;
  let peak = 0;
  const finishers: Array<() => void> = [];
  const hash = () => {
    running++;
    peak = Math.max(peak, running);
    return new Promise<void>((done) => finishers.push(() => (running--, done())));
  };
  return { hash, finishers, peak: () => peak, running: () => running };
}

describe('the password queue (docs/gaps.md#accounts)', () => {
  it('runs at most two hashes at once, queues up to its waiting list, and refuses past it with a retryable 503 overloaded and Retry-After', async () => {
    const q = new PasswordWork(2, 3);
    const g = gate();
    const order: number[] = [];
    const runs = Array.from({ length: 5 }, (_, i) => q.run(() => g.hash().then(() => order.push(i))));
    await expect(q.run(g.hash)).rejects.toMatchObject({ code: 'overloaded', status: 503, retryable: true, details: { retryAfterSeconds: 1 } });
    expect(q.tallies).toEqual({ running: 2, waiting: 3, done: 0, refused: 1 });
    while (order.length < 5) {
      await new Promise((r) => setImmediate(r));
      g.finishers.shift()?.();
    }
    await Promise.all(runs);
    expect(order).toEqual([0, 1, 2, 3, 4]);
    expect(g.peak()).toBe(2);
    expect(q.tallies).toEqual({ running: 0, waiting: 0, done: 5, refused: 1 });
  });

  it('a hash that throws frees its turn', async () => {
    const q = new PasswordWork(1, 1);
    await expect(q.run(() => Promise.reject(new Error('scrypt failed')))).rejects.toThrow('scrypt failed');
    expect(await q.run(async () => 7)).toBe(7);
  });
});

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

const signIn = (email: string, password: string) => h.request('POST', '/v1/sessions', { key: null, body: { email, password } });

describe('sign-in under a flood of guesses (docs/gaps.md#accounts)', () => {
  it('a flood of wrong-password sign-ins gets 401 or a retryable 503 with Retry-After: no more than two hashes ever run, and the queue never grows past its bound', async () => {
    const before = passwordWork.tallies;
    let peakWaiting = 0;
    let peakRunning = 0;
    const watch = setInterval(() => {
      peakWaiting = Math.max(peakWaiting, passwordWork.tallies.waiting);
      peakRunning = Math.max(peakRunning, passwordWork.tallies.running);
    }, 1);
    const answers = await Promise.all(Array.from({ length: 120 }, (_, i) => signIn(`guess-${i}@nowhere.example`, 'wrong-password-guess')));
    clearInterval(watch);
    const refused = answers.filter((r) => r.status === 503);
    expect(answers.filter((r) => r.status !== 401 && r.status !== 503)).toEqual([]);
    expect(refused.length).toBeGreaterThan(0);
    for (const r of refused) {
      expect(r.body.error).toMatchObject({ code: 'overloaded', retryable: true });
      expect(r.headers['retry-after']).toBe('1');
    }
    expect(passwordWork.tallies.refused - before.refused).toBe(refused.length);
    expect(peakRunning).toBeLessThanOrEqual(2);
    expect(peakWaiting).toBeLessThanOrEqual(WAITING);
    // once the flood has passed, the person signs in
    expect((await signIn(h.registration.email, h.registration.password)).status).toBe(200);
  });

  it(`${MAX_FAILURES} failed sign-ins for one email refuse the next with 429 rate_limited and Retry-After, even with the right password, until the window ends; another person is unaffected`, async () => {
    const victim = await h.register();
    const other = await h.register();
    for (let i = 0; i < MAX_FAILURES; i++) expect((await signIn(victim.email, `wrong-guess-number-${i}`)).status).toBe(401);
    const refused = await signIn(victim.email.toUpperCase(), victim.password);
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({ code: 'rate_limited', retryable: true });
    expect(refused.headers['retry-after']).toBe(String(WINDOW_MS / 1000));
    expect((await signIn(other.email, other.password)).status).toBe(200);
    await h.clock.advance(WINDOW_MS / 2);
    expect((await signIn(victim.email, victim.password)).headers['retry-after']).toBe(String(WINDOW_MS / 2000));
    await h.clock.advance(WINDOW_MS / 2);
    expect((await signIn(victim.email, victim.password)).status).toBe(200);
  });

  it('an unknown email is throttled alike, so the answer never tells whether an account exists', async () => {
    for (let i = 0; i < MAX_FAILURES; i++) expect((await signIn('nobody@unknown.example', `wrong-guess-${i}`)).status).toBe(401);
    expect((await signIn('nobody@unknown.example', 'wrong-guess-again')).status).toBe(429);
  });

  it('a successful sign-in clears the failures counted before it', async () => {
    const person = await h.register();
    for (let i = 0; i < MAX_FAILURES - 1; i++) await signIn(person.email, `wrong-${i}`);
    expect((await signIn(person.email, person.password)).status).toBe(200);
    for (let i = 0; i < MAX_FAILURES - 1; i++) expect((await signIn(person.email, `wrong-again-${i}`)).status).toBe(401);
    expect((await signIn(person.email, person.password)).status).toBe(200);
  });
});

// The error type is the catalogue's one (kernel/base/errors.ts), not a second shape.
it('the queue refuses with the catalogue error', async () => {
  const q = new PasswordWork(1, 0);
  const g = gate();
  const first = q.run(g.hash);
  await expect(q.run(g.hash)).rejects.toBeInstanceOf(ApiError);
  g.finishers.shift()!();
  await first;
});
