/**
 * Durable reminders (DESIGN: consent expiry, webhook retries, offer expiry ...). A due reminder is
 * claimed, sent to its actor as a system-lane command whose dedupe id is the reminder's generation
 * (so a fire repeated after a crash has no second effect), then completed. A fault (5xx)
 * postpones it; a refusal (4xx) completes it: the actor has moved on.
 *
 * With a manual clock the clock drives firing (ManualClock.advance); with the system clock a
 * volatile timer is armed for the next due time, polling at least every reminderPollMs because
 * other nodes may add reminders.
 */
import type { ReminderStore, Reminder } from '../stores/index.ts';
import type { Asker } from './ask.ts';
import type { Clock, TimerHost } from './clock.ts';
import { isRefusal } from '../kernel/base/index.ts';
import type { Limits } from './limits.ts';

/** Reminders whose failures in a row a node counts at most. */
const FAILURES_KEPT = 10_000;

export class ReminderScheduler implements TimerHost {
  private detach: (() => void) | undefined;
  private timer: NodeJS.Timeout | undefined;
  private armedFor = Infinity;
  private stopped = true;
  private firing: Promise<void> | undefined;
  /** Failures in a row of each reminder fired here (its retry delay doubles with them). */
  private readonly failures = new Map<string, number>();

  constructor(
    private readonly system: Asker,
    private readonly store: ReminderStore,
    private readonly clock: Clock,
    private readonly limits: Limits,
    private readonly log: (msg: string, err?: unknown) => void,
  ) {}

  start(): void {
    this.stopped = false;
    if (this.clock.manual) this.detach = this.clock.attach(this);
    else void this.arm();
  }

  stop(): void {
    this.stopped = true;
    this.detach?.();
    if (this.timer) clearTimeout(this.timer);
  }

  nextDue(): Promise<number | undefined> {
    return this.store.nextDue();
  }

  /** A reminder was put: re-arm if it is due before the armed time. */
  poke(dueAt: number): void {
    if (this.stopped || this.clock.manual || dueAt >= this.armedFor) return;
    void this.arm();
  }

  /** Fire every reminder due at or before `now`; one firing pass at a time. */
  async fireDue(now: number): Promise<void> {
    while (this.firing) await this.firing;
    this.firing = this.fireAll(now).finally(() => (this.firing = undefined));
    await this.firing;
  }

  /**
   * Pages through the due reminders. One another node holds stays where it is, so the next page
   * starts after those: a full page of them (a dead node's claims last reminderLeaseMs) would
   * otherwise come back at every read, holding back every later reminder while the pass spun.
   */
  private async fireAll(now: number): Promise<void> {
    let heldElsewhere = 0;
    for (;;) {
      const due = await this.store.due(now, this.limits.reminderBatch, heldElsewhere);
      if (due.length === 0) return;
      const fired = await Promise.all(due.map((r) => this.fire(r, now)));
      for (const f of fired) if (!f) heldElsewhere++;
      if (due.length < this.limits.reminderBatch) return;
    }
  }

  /** Reminders fired here, and firings that failed and were postponed (the metrics read both). */
  fired = 0;
  postponed = 0;

  /** False when another node holds the reminder's claim. */
  private async fire(r: Reminder, now: number): Promise<boolean> {
    if (!(await this.store.claim(r, this.limits.reminderLeaseMs))) return false;
    this.fired++;
    try {
      await this.system.ask(r.kind, r.id, r.command, r.payload, { org: r.org, dedupeId: `rmd:${r.generation}`, principal: 'system', lane: 'system', noReply: true });
      this.failures.delete(r.key);
      await this.store.complete(r);
    } catch (e) {
      if (isRefusal(e)) {
        this.failures.delete(r.key);
        await this.store.complete(r);
      } else {
        this.postponed++;
        const n = (this.failures.get(r.key) ?? 0) + 1;
        if (this.failures.size >= FAILURES_KEPT) this.failures.clear(); // reminders failing elsewhere too: start their count again
        this.failures.set(r.key, n);
        const delay = Math.min(this.limits.reminderRetryMs * 2 ** Math.min(n - 1, 30), this.limits.reminderRetryMaxMs);
        this.log(`reminder ${r.key} failed (${n} in a row); retrying in ${delay} ms`, e);
        await this.store.postpone(r, now + delay);
      }
    }
    return true;
  }

  private async arm(): Promise<void> {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    const next = await this.store.nextDue().catch(() => undefined);
    const now = this.clock.now();
    const delay = Math.max(0, Math.min((next ?? Infinity) - now, this.limits.reminderPollMs));
    this.armedFor = now + delay;
    this.timer = setTimeout(() => void this.tick(), delay).unref();
  }

  private async tick(): Promise<void> {
    this.armedFor = Infinity;
    try {
      await this.fireDue(this.clock.now());
    } catch (e) {
      this.log('reminder pass failed', e);
    }
    void this.arm();
  }
}
