/**
 * Presence (spec 2.8 HeartbeatReceipt.presence): reporting, stale, or ghost (available but absent).
 * It is a function of the clock, so it changes on its own as time passes:
 *
 *   since the last accepted reading (or, for an available worker, since it became available)
 *   < stale_after                        reporting
 *   < ghost_after                        stale
 *   >= ghost_after and available         ghost
 *   >= ghost_after and not available     stale
 *
 * PresenceTimers are volatile timers (STYLE "Time is injected": presence checks are not durable
 * reminders): a wheel of one-second buckets, driven by the ManualClock in tests (it is a TimerHost)
 * and by a one-second interval on the system clock.
 */
import type { Clock, TimerHost } from '../../../runtime/index.ts';
import type { PolicyPack } from '../policy.ts';

export const PRESENCE = ['reporting', 'stale', 'ghost'] as const;
export type Presence = (typeof PRESENCE)[number];

export interface PresenceInput {
  /** recorded_at (ms) of the latest accepted reading, clamped to arrival time. */
  lastReportAt: number | undefined;
  available: boolean;
  /** When the current availability began (ms). */
  availableSince: number | undefined;
}

function reference(p: PresenceInput): number {
  const r = p.lastReportAt ?? -Infinity;
  return p.available && p.availableSince !== undefined ? Math.max(r, p.availableSince) : r;
}

export function presenceAt(p: PresenceInput, now: number, policy: PolicyPack): Presence {
  const stale = policy.presence.stale_after_seconds * 1000;
  const ghost = policy.presence.ghost_after_seconds * 1000;
  if (p.lastReportAt !== undefined && now - p.lastReportAt < stale) return 'reporting';
  if (p.available && now - reference(p) >= ghost) return 'ghost';
  return 'stale';
}

/** The next instant presence would change if nothing else happens (undefined: never). */
export function nextPresenceChange(p: PresenceInput, now: number, policy: PolicyPack): number | undefined {
  const stale = policy.presence.stale_after_seconds * 1000;
  const ghost = policy.presence.ghost_after_seconds * 1000;
  const current = presenceAt(p, now, policy);
  switch (current) {
    case 'reporting':
      return p.lastReportAt! + stale;
    case 'stale':
      return p.available ? reference(p) + ghost : undefined;
    case 'ghost':
      return undefined;
    default:
      return assertNeverPresence(current);
  }
}

function assertNeverPresence(x: never): never {
  throw new Error(`unknown presence ${String(x)}`);
}

/** Volatile per-worker deadlines; `fire` is called once per worker whose deadline passed. */
export class PresenceTimers implements TimerHost {
  private readonly wheel = new Map<number, Set<string>>();
  private readonly bucketOf = new Map<string, number>();
  private detach: (() => void) | undefined;
  private interval: NodeJS.Timeout | undefined;

  constructor(
    private readonly clock: Clock,
    private readonly fire: (key: string, now: number) => void,
  ) {}

  start(): void {
    if (this.clock.manual) this.detach = this.clock.attach(this);
    else this.interval = setInterval(() => void this.fireDue(this.clock.now()), 1000).unref();
  }

  stop(): void {
    this.detach?.();
    if (this.interval) clearInterval(this.interval);
    this.wheel.clear();
    this.bucketOf.clear();
  }

  get size(): number {
    return this.bucketOf.size;
  }

  /** Set (or clear, with undefined) the deadline of a key; never fires early (rounded up to 1 s). */
  schedule(key: string, dueAt: number | undefined): void {
    const bucket = dueAt === undefined ? undefined : Math.ceil(dueAt / 1000) * 1000;
    const prev = this.bucketOf.get(key);
    if (prev === bucket) return;
    if (prev !== undefined) {
      const set = this.wheel.get(prev)!;
      set.delete(key);
      if (set.size === 0) this.wheel.delete(prev);
    }
    if (bucket === undefined) {
      this.bucketOf.delete(key);
      return;
    }
    this.bucketOf.set(key, bucket);
    let set = this.wheel.get(bucket);
    if (!set) this.wheel.set(bucket, (set = new Set()));
    set.add(key);
  }

  async nextDue(): Promise<number | undefined> {
    let min: number | undefined;
    for (const b of this.wheel.keys()) if (min === undefined || b < min) min = b;
    return min;
  }

  async fireDue(now: number): Promise<void> {
    const due = [...this.wheel.keys()].filter((b) => b <= now).sort((a, b) => a - b);
    for (const b of due) {
      const set = this.wheel.get(b);
      if (!set) continue;
      this.wheel.delete(b);
      for (const key of set) {
        this.bucketOf.delete(key);
        this.fire(key, now);
      }
    }
  }
}
