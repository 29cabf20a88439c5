import type { Now, Stores } from '../types.ts';
import { MemoryIndexes } from './indexes.ts';
import { MemoryJournal } from './journal.ts';
import { MemoryKeyValue } from './kv.ts';
import { MemoryReadings } from './readings.ts';
import { MemoryReminders } from './reminders.ts';
import { MemorySnapshots } from './snapshots.ts';

export interface MemoryStoreOptions {
  now: Now;
  readingRetentionMs?: number;
}

export function createMemoryStores(opts: MemoryStoreOptions): Stores {
  const s = {
    mode: 'embedded' as const,
    durable: false,
    location: 'memory',
    journal: new MemoryJournal(),
    snapshots: new MemorySnapshots(),
    reminders: new MemoryReminders(opts.now),
    kv: new MemoryKeyValue(opts.now),
    indexes: new MemoryIndexes(),
    readings: new MemoryReadings(opts.now, opts.readingRetentionMs ?? 30 * 24 * 3600_000),
    async close() {
      await Promise.all([s.journal.close(), s.snapshots.close(), s.reminders.close(), s.kv.close(), s.indexes.close(), s.readings.close()]);
    },
  };
  return s;
}
