import type { Now, Reminder, ReminderStore } from '../types.ts';

/** A live reminder and its place in the heap. */
interface Entry {
  r: Reminder;
  at: number;
}

/**
 * Reminders in a binary min-heap by due time that holds exactly the live ones: each entry knows its
 * place, so a cancel, a replacement or a completion takes its entry out at once. (Left in the heap
 * until they surfaced, cancelled reminders were kept for as long as they had been set for: every
 * webhook attempt's two-minute watchdog, long after its delivery succeeded.)
 */
export class MemoryReminders implements ReminderStore {
  private readonly live = new Map<string, Entry>();
  private readonly claims = new Map<string, number>(); // generation -> lease end
  private readonly heap: Entry[] = [];

  constructor(private readonly now: Now) {}

  /** Reminders held in memory: exactly the live ones. */
  get size(): number {
    return this.heap.length;
  }

  async put(r: Reminder): Promise<void> {
    const cur = this.live.get(r.key);
    if (cur) {
      cur.r = r;
      this.fix(cur.at);
      return;
    }
    const e: Entry = { r, at: this.heap.length };
    this.live.set(r.key, e);
    this.heap.push(e);
    this.up(e.at);
  }

  async get(key: string): Promise<Reminder | undefined> {
    return this.live.get(key)?.r;
  }

  async cancel(key: string): Promise<void> {
    const cur = this.live.get(key);
    if (cur) this.remove(cur);
  }

  async due(now: number, limit: number, skip = 0): Promise<Reminder[]> {
    // A heap is only ordered at its root: take the due ones off in order, then put them back.
    const taken: Entry[] = [];
    while (taken.length < skip + limit && this.heap.length && this.heap[0].r.dueAt <= now) {
      const e = this.heap[0];
      this.removeAt(0);
      taken.push(e);
    }
    for (const e of taken) {
      e.at = this.heap.length;
      this.heap.push(e);
      this.up(e.at);
    }
    return taken.slice(skip).map((e) => e.r);
  }

  async claim(r: Reminder, leaseMs: number): Promise<boolean> {
    const held = this.claims.get(r.generation);
    const t = this.now();
    if (held !== undefined && held > t) return false;
    this.claims.set(r.generation, t + leaseMs);
    return true;
  }

  async complete(r: Reminder): Promise<void> {
    this.claims.delete(r.generation);
    const cur = this.live.get(r.key);
    if (cur && cur.r.generation === r.generation) this.remove(cur);
  }

  async postpone(r: Reminder, dueAt: number): Promise<void> {
    this.claims.delete(r.generation);
    const cur = this.live.get(r.key);
    if (!cur || cur.r.generation !== r.generation) return;
    cur.r = { ...cur.r, dueAt };
    this.fix(cur.at);
  }

  async nextDue(): Promise<number | undefined> {
    return this.heap[0]?.r.dueAt;
  }

  async close(): Promise<void> {}

  private remove(e: Entry): void {
    this.live.delete(e.r.key);
    this.removeAt(e.at);
  }

  /** Takes the entry at `i` out of the heap (not out of `live`). */
  private removeAt(i: number): void {
    const h = this.heap;
    const last = h.pop()!;
    if (i === h.length) return;
    h[i] = last;
    last.at = i;
    this.fix(i);
  }

  /** Restores the order around `i` after its due time changed. */
  private fix(i: number): void {
    if (i > 0 && this.heap[(i - 1) >> 1].r.dueAt > this.heap[i].r.dueAt) this.up(i);
    else this.down(i);
  }

  private up(i: number): void {
    const h = this.heap;
    const e = h[i];
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (h[p].r.dueAt <= e.r.dueAt) break;
      h[i] = h[p];
      h[i].at = i;
      i = p;
    }
    h[i] = e;
    e.at = i;
  }

  private down(i: number): void {
    const h = this.heap;
    const e = h[i];
    for (;;) {
      const l = 2 * i + 1;
      if (l >= h.length) break;
      const r = l + 1;
      const m = r < h.length && h[r].r.dueAt < h[l].r.dueAt ? r : l;
      if (h[m].r.dueAt >= e.r.dueAt) break;
      h[i] = h[m];
      h[i].at = i;
      i = m;
    }
    h[i] = e;
    e.at = i;
  }
}
