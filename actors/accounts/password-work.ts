/**
 * Password hashing, bounded (docs/gaps.md#accounts "Password checks"). One scrypt of 32 MiB holds
 * a thread of libuv's four-thread pool, which file I/O and other crypto share, for a long while:
 * left alone, a modest rate of wrong-password guesses holds every thread. Here at most CONCURRENCY hashes run at once,
 * so the other threads stay free, and at most WAITING wait their turn; past that the request is
 * refused at once with a retryable 503 `overloaded` and Retry-After, never queued without bound
 * (STYLE "The mailbox is bounded and fair").
 */
import { ApiError } from '../../kernel/index.ts';
import type { Figure } from '../../runtime/index.ts';

/** Hashes run at once: two of the pool's four threads. */
export const CONCURRENCY = 2;
/** Hashes waiting: about 1.6 s of work at two at a time, within a client's patience. */
export const WAITING = 32;
/** Seconds a refused client waits before sending again: a few hashes' time. */
export const RETRY_AFTER_SECONDS = 1;

/** Tallies read by the metrics at scrape time. */
export interface PasswordWorkTallies {
  running: number;
  waiting: number;
  done: number;
  refused: number;
}

export class PasswordWork {
  private running = 0;
  private readonly queue: Array<() => void> = [];
  private done = 0;
  private refused = 0;

  constructor(private readonly concurrency = CONCURRENCY, private readonly waiting = WAITING) {}

  /** Runs `hash` when a turn comes; refuses at once with 503 `overloaded` when the waiting list is full. */
  async run<T>(hash: () => Promise<T>): Promise<T> {
    if (this.running >= this.concurrency) {
      if (this.queue.length >= this.waiting) {
        this.refused++;
        throw new ApiError('overloaded', `Too many password checks are in progress; send again in ${RETRY_AFTER_SECONDS} s.`, { retryable: true, retryAfterSeconds: RETRY_AFTER_SECONDS });
      }
      await new Promise<void>((turn) => this.queue.push(turn));
    }
    this.running++;
    try {
      return await hash();
    } finally {
      this.running--;
      this.done++;
      this.queue.shift()?.();
    }
  }

  get tallies(): PasswordWorkTallies {
    return { running: this.running, waiting: this.queue.length, done: this.done, refused: this.refused };
  }
}

/** The process's one queue: the thread pool it protects is the process's. */
export const passwordWork = new PasswordWork();

/** The queue's figures for the metrics (docs/gaps.md#metrics), read at a scrape. */
export function passwordFigures(): Figure[] {
  const t = passwordWork.tallies;
  return [
    { name: 'platform_password_checks_running', help: 'Password hashes (scrypt) running now; at most two.', type: 'gauge', value: t.running },
    { name: 'platform_password_checks_waiting', help: 'Password hashes waiting their turn in the bounded queue.', type: 'gauge', value: t.waiting },
    { name: 'platform_password_checks_total', help: 'Password hashes done (registrations, sign-ins, invitation acceptances).', type: 'counter', value: t.done },
    { name: 'platform_password_checks_refused_total', help: 'Password checks refused with 503 overloaded because the waiting list was full.', type: 'counter', value: t.refused },
  ];
}
