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

/** The times formatted last, by the low bits of the time: a record's view is formatted again and again (its reply, then its public events), with the same few times. */
const SLOTS = 256;
const slotMs = new Float64Array(SLOTS).fill(NaN);
const slotIso: string[] = new Array<string>(SLOTS).fill('');

/**
 * ISO 8601 of a time, exactly as Date.prototype.toISOString writes it. Every view formats its
 * times, and the event feed formats each public event's record again, so the last times formatted
 * are remembered, and times from 1970 to 9999 are written by arithmetic (a Date and its formatting
 * cost several times more); others go through Date.
 */
export function iso(ms: number): string {
  const slot = ms & (SLOTS - 1);
  if (slotMs[slot] === ms) return slotIso[slot];
  const out = ms >= 0 && ms < MAX_FAST && Number.isInteger(ms) ? isoFast(ms) : new Date(ms).toISOString();
  slotMs[slot] = ms;
  slotIso[slot] = out;
  return out;
}

/** 10000-01-01T00:00:00.000Z: toISOString writes a six-digit signed year from there on. */
const MAX_FAST = 253_402_300_800_000;
const DAY_MS = 86_400_000;
const TWO = Array.from({ length: 100 }, (_, i) => (i < 10 ? `0${i}` : `${i}`));
const THREE = Array.from({ length: 1000 }, (_, i) => (i < 10 ? `00${i}` : i < 100 ? `0${i}` : `${i}`));
let lastDay = NaN;
let lastDate = '';

/** `YYYY-MM-DDT` of a day count since 1970-01-01 (H. Hinnant's civil_from_days). */
function datePart(days: number): string {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  const y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  return [y < 1000 ? `0${THREE[y]}` : `${y}`, '-', TWO[m], '-', TWO[d], 'T'].join('');
}

function isoFast(ms: number): string {
  const days = Math.floor(ms / DAY_MS);
  if (days !== lastDay) {
    lastDate = datePart(days);
    lastDay = days;
  }
  let t = ms - days * DAY_MS;
  const h = Math.floor(t / 3_600_000);
  t -= h * 3_600_000;
  const min = Math.floor(t / 60_000);
  t -= min * 60_000;
  const s = Math.floor(t / 1000);
  // joined, not concatenated: a time a record keeps is one flat string (effects.ts listName)
  return [lastDate, TWO[h], ':', TWO[min], ':', TWO[s], '.', THREE[t - s * 1000], 'Z'].join('');
}
