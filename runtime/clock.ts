/**
 * Time is injected (STYLE: "Time is injected"). Nothing in the project reads Date.now() except
 * SystemClock. A ManualClock's advance() walks through due timers in due order, so a test can move
 * twenty hours ahead in one call and see every reminder fire once, at its own instant.
 */

/** Something that holds durable timers: the actor system's reminder scheduler. */
export interface TimerHost {
  /** The earliest due time it holds, or undefined. */
  nextDue(): Promise<number | undefined>;
  /** Fire everything due at or before `now`, and wait for it to be applied. */
  fireDue(now: number): Promise<void>;
}

export interface Clock {
  readonly manual: boolean;
  now(): number;
  /** Register a timer host; returns a detach function. */
  attach(host: TimerHost): () => void;
}

export class SystemClock implements Clock {
  readonly manual = false;
  now(): number {
    return Date.now();
  }
  attach(): () => void {
    return () => {}; // the scheduler arms real timers itself
  }
}

export class ManualClock implements Clock {
  readonly manual = true;
  private current: number;
  private readonly hosts = new Set<TimerHost>();

  constructor(start: number | string = '2026-01-05T08:00:00.000Z') {
    this.current = typeof start === 'string' ? Date.parse(start) : start;
  }

  now(): number {
    return this.current;
  }

  attach(host: TimerHost): () => void {
    this.hosts.add(host);
    return () => this.hosts.delete(host);
  }

  /** Move forward by `ms`, firing each due timer at its own due time, earliest first. */
  async advance(ms: number): Promise<void> {
    if (!(ms >= 0)) throw new RangeError('a manual clock only moves forward');
    await this.advanceTo(this.current + ms);
  }

  async advanceTo(target: number): Promise<void> {
    let fired = -Infinity;
    let again = 0;
    for (;;) {
      let next: number | undefined;
      for (const h of this.hosts) {
        const d = await h.nextDue();
        if (d !== undefined && (next === undefined || d < next)) next = d;
      }
      if (next === undefined || next > target) break;
      // A timer may set another due at once (fired again at the same instant), but one still due
      // after STUCK passes there is held back (another node holds its reminder's claim): the
      // rest due by the target fire at the target.
      again = next <= fired ? again + 1 : 0;
      if (again >= STUCK) {
        this.current = Math.max(this.current, target);
        for (const h of this.hosts) await h.fireDue(this.current);
        break;
      }
      this.current = Math.max(this.current, next);
      fired = this.current;
      for (const h of this.hosts) await h.fireDue(this.current);
    }
    this.current = Math.max(this.current, target);
  }
}

/** Passes at one instant after which ManualClock.advanceTo takes the earliest due time as held back. */
const STUCK = 100;

let lastMs = NaN;
let lastIso = '';
/** ISO 8601 of a time; the last one is remembered, since a commit formats the same instant many times. */
export function iso(ms: number): string {
  if (ms !== lastMs) {
    lastIso = new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastIso;
}
