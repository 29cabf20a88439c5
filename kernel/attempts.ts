/**
 * The durable timers of an outbound attempt that is retried on a schedule (DESIGN "Reminders"):
 * the webhook deliveries of spec 6 and the sourcing channels' deliveries both move in_flight ->
 * retrying -> in_flight ... -> delivered | failed. While retrying, a reminder makes the next
 * attempt; while an attempt is in flight, a watchdog reminder records it lost if no answer was
 * recorded in time (the node that sent it may have died), so no attempt waits forever.
 */
import type { TimerWish } from '../runtime/index.ts';
import { assertNever } from './base/index.ts';

export type AttemptStatus = 'in_flight' | 'retrying' | 'delivered' | 'failed';

export interface AttemptFacts {
  status: AttemptStatus;
  attempts: number;
  attempt_started_at: number | null;
  next_attempt_at: number | null;
}

/** Commands `attempt {attempt}` (the next try) and `attempt_lost {attempt}` (the watchdog). */
export function attemptTimers(s: AttemptFacts, watchdogMs: number): TimerWish[] {
  switch (s.status) {
    case 'retrying':
      return [{ name: 'retry', dueAt: s.next_attempt_at!, command: 'attempt', payload: { attempt: s.attempts + 1 } }];
    case 'in_flight':
      return s.attempt_started_at === null ? [] : [{ name: 'watchdog', dueAt: s.attempt_started_at + watchdogMs, command: 'attempt_lost', payload: { attempt: s.attempts } }];
    case 'delivered':
    case 'failed':
      return [];
    default:
      return assertNever(s.status);
  }
}
