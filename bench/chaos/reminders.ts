/**
 * Reminders across a fault: consent tokens whose expires_at falls due during and just after the
 * fault (wall time: the nodes run on the system clock). A token's expiry is a durable timer, so
 * each must turn `expired` within LATE_BOUND_MS of its due time; one still active past
 * MISSING_AFTER_MS is a lost reminder. Lateness is seen by polling, so it carries up to a poll.
 */
import type { Proc } from '../../support/chaos/index.ts';
import { ask, sleep } from './client.ts';

export const REMINDERS = Number(process.env.BENCH_CHAOS_REMINDERS ?? 20);
/** A timer that fell due while Redis or JetStream was away fires after a poll and a rebuild of its index. */
export const LATE_BOUND_MS = Number(process.env.BENCH_CHAOS_LATE_MS ?? 10_000);
const MISSING_AFTER_MS = 90_000;
const POLL_MS = 250;

export interface Reminder {
  id: string;
  dueAt: number;
  firedSeenAt?: number;
}

/** Creates REMINDERS tokens due from `firstDueInMs` on, spread over `spreadMs`. */
export async function armReminders(procs: readonly Proc[], apiKey: string, tag: string, firstDueInMs: number, spreadMs: number): Promise<Reminder[]> {
  const base = Date.now() + firstDueInMs;
  return Promise.all(
    Array.from({ length: REMINDERS }, async (_, i) => {
      const dueAt = base + Math.round((spreadMs * i) / Math.max(1, REMINDERS - 1));
      const body = { subject_ref: `subj-${tag}-${i}`, purpose: 'employment_verification', checks: ['name_match'], wording_version: 'v1', expires_at: new Date(dueAt).toISOString() };
      const r = await ask(procs, apiKey, 'POST', '/v1/identity/consent_tokens', body, `rem-${tag}-${process.pid}-${i}`);
      if (r.status !== 201) throw new Error(`consent token refused: ${r.status} ${JSON.stringify(r.body)}`);
      return { id: r.body.id as string, dueAt: Date.parse(r.body.expires_at) };
    }),
  );
}

/** Polls every token until it is expired or MISSING_AFTER_MS past its due time; late is past `lateBoundMs`. */
export async function watchReminders(procs: readonly Proc[], apiKey: string, reminders: Reminder[], lateBoundMs = LATE_BOUND_MS): Promise<{ missing: number; late: number; latestMs: number; lateness: number[] }> {
  await Promise.all(
    reminders.map(async (r) => {
      while (Date.now() < r.dueAt + MISSING_AFTER_MS) {
        if (Date.now() >= r.dueAt) {
          const got = await ask(procs, apiKey, 'GET', `/v1/identity/consent_tokens/${r.id}`);
          if (got.status === 200 && got.body.status === 'expired') {
            r.firedSeenAt = Date.now();
            return;
          }
        }
        await sleep(POLL_MS);
      }
    }),
  );
  const lateness = reminders.filter((r) => r.firedSeenAt !== undefined).map((r) => r.firedSeenAt! - r.dueAt).sort((a, b) => a - b);
  return {
    missing: reminders.filter((r) => r.firedSeenAt === undefined).length,
    late: lateness.filter((ms) => ms > lateBoundMs).length,
    latestMs: Math.max(0, ...lateness),
    lateness,
  };
}
