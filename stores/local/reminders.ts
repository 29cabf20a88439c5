import type { Database } from 'lmdb';
import type { Now, Reminder, ReminderStore } from '../types.ts';
import { PAST, fixed, join, part } from './keys.ts';
import type { Writer } from './writer.ts';

/**
 * Reminders on disk: each under its key, and a due-time index (due time, key -> key) read in order.
 * One process owns the directory, so a claim is a lease in memory: it only keeps this process
 * from firing one generation twice at once, and a restart starts with none held.
 */
export class LocalReminders implements ReminderStore {
  private readonly claims = new Map<string, number>(); // generation -> lease end

  constructor(
    private readonly byKey: Database,
    private readonly byDue: Database,
    private readonly writer: Writer,
    private readonly now: Now,
  ) {}

  put(r: Reminder): Promise<void> {
    return this.writer.run(() => this.write([r], []));
  }

  /** Inside a write transaction (the journal calls it with a commit's events). */
  write(puts: readonly Reminder[], cancels: readonly string[]): void {
    for (const key of cancels) this.remove(key);
    for (const r of puts) {
      this.remove(r.key);
      this.byKey.put(part(r.key), r);
      this.byDue.put(join(fixed(r.dueAt), r.key), r.key);
    }
  }

  // Reads wait for the writes queued before them (writer.idle): a turn's timers are written with
  // its events, and the runtime answers a turn before its commit (Journal.ordered), so a caller
  // reads what the turn it was answered for wrote.

  async get(key: string): Promise<Reminder | undefined> {
    await this.writer.idle();
    return this.byKey.get(part(key)) as Reminder | undefined;
  }

  cancel(key: string): Promise<void> {
    return this.writer.run(() => this.remove(key));
  }

  async due(now: number, limit: number, skip = 0): Promise<Reminder[]> {
    await this.writer.idle();
    const out: Reminder[] = [];
    let n = 0;
    for (const { value } of this.byDue.getRange({ end: fixed(now) + PAST })) {
      const r = this.byKey.get(part(value as string)) as Reminder | undefined;
      if (!r || r.dueAt > now) continue; // replaced meanwhile
      if (n++ < skip) continue;
      out.push(r);
      if (out.length >= limit) break;
    }
    return out;
  }

  async claim(r: Reminder, leaseMs: number): Promise<boolean> {
    const t = this.now();
    const held = this.claims.get(r.generation);
    if (held !== undefined && held > t) return false;
    this.claims.set(r.generation, t + leaseMs);
    return true;
  }

  complete(r: Reminder): Promise<void> {
    this.claims.delete(r.generation);
    return this.writer.run(() => {
      const cur = this.byKey.get(part(r.key)) as Reminder | undefined;
      if (cur && cur.generation === r.generation) this.remove(r.key);
    });
  }

  postpone(r: Reminder, dueAt: number): Promise<void> {
    this.claims.delete(r.generation);
    return this.writer.run(() => {
      const cur = this.byKey.get(part(r.key)) as Reminder | undefined;
      if (!cur || cur.generation !== r.generation) return;
      this.write([{ ...cur, dueAt }], []);
    });
  }

  async nextDue(): Promise<number | undefined> {
    await this.writer.idle();
    for (const { value } of this.byDue.getRange({ limit: 1 })) return (this.byKey.get(part(value as string)) as Reminder | undefined)?.dueAt;
    return undefined;
  }

  async close(): Promise<void> {}

  private remove(key: string): void {
    const cur = this.byKey.get(part(key)) as Reminder | undefined;
    if (!cur) return;
    this.byKey.remove(part(key));
    this.byDue.remove(join(fixed(cur.dueAt), key));
  }
}
