import type { Now, Reminder, ReminderStore } from '../types.ts';

/**
 * Reminders in a binary min-heap by due time. Replaced and cancelled entries are left in the heap
 * and skipped when they surface (the live map says which generation is current).
 */
export class MemoryReminders implements ReminderStore {
  private readonly live = new Map<string, Reminder>();
  private readonly claims = new Map<string, number>(); // generation -> lease end
  private heap: Reminder[] = [];

  constructor(private readonly now: Now) {}

  async put(r: Reminder): Promise<void> {
    this.live.set(r.key, r);
    this.push(r);
  }

  async get(key: string): Promise<Reminder | undefined> {
    return this.live.get(key);
  }

  async cancel(key: string): Promise<void> {
    this.live.delete(key);
  }

  async due(now: number, limit: number, skip = 0): Promise<Reminder[]> {
    this.prune();
    // A heap is only ordered at its root, so copy out the due ones in order without popping.
    const out: Reminder[] = [];
    const taken: Reminder[] = [];
    while (out.length < skip + limit && this.heap.length && this.heap[0].dueAt <= now) {
      const r = this.pop()!;
      taken.push(r);
      if (this.isLive(r)) out.push(r);
    }
    for (const r of taken) if (this.isLive(r)) this.push(r);
    return out.slice(skip);
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
    if (cur && cur.generation === r.generation) this.live.delete(r.key);
  }

  async postpone(r: Reminder, dueAt: number): Promise<void> {
    this.claims.delete(r.generation);
    const cur = this.live.get(r.key);
    if (!cur || cur.generation !== r.generation) return;
    const moved = { ...cur, dueAt };
    this.live.set(r.key, moved);
    this.push(moved);
  }

  async nextDue(): Promise<number | undefined> {
    this.prune();
    return this.heap[0]?.dueAt;
  }

  async close(): Promise<void> {}

  private isLive(r: Reminder): boolean {
    const cur = this.live.get(r.key);
    return cur !== undefined && cur.generation === r.generation && cur.dueAt === r.dueAt;
  }

  private prune(): void {
    while (this.heap.length && !this.isLive(this.heap[0])) this.pop();
  }

  private push(r: Reminder): void {
    const h = this.heap;
    h.push(r);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (h[p].dueAt <= h[i].dueAt) break;
      [h[p], h[i]] = [h[i], h[p]];
      i = p;
    }
  }

  private pop(): Reminder | undefined {
    const h = this.heap;
    if (!h.length) return undefined;
    const top = h[0];
    const last = h.pop()!;
    if (h.length) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && h[l].dueAt < h[m].dueAt) m = l;
        if (r < h.length && h[r].dueAt < h[m].dueAt) m = r;
        if (m === i) break;
        [h[m], h[i]] = [h[i], h[m]];
        i = m;
      }
    }
    return top;
  }
}
