/**
 * Local store family (DESIGN "Stores"): every store on one LMDB environment in a data directory,
 * the default of `npm start`. One process serves a directory (directory.ts); every write goes
 * through one group-commit writer (writer.ts) and its write-ahead log (wal.ts), and what
 * acknowledges a write waits for flushed().
 */
import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { asBinary, open, type Database, type RootDatabase, type RootDatabaseOptionsWithPath } from 'lmdb';
import type { Now, Stores } from '../types.ts';
import { ENV_DIR, FORMAT, lockDirectory, prepareDirectory, writeFormat } from './directory.ts';
import { LocalIndexes } from './indexes.ts';
import { LocalJournal } from './journal.ts';
import { keyParts } from './keys.ts';
import { LocalKeyValue } from './kv.ts';
import { localReadModels } from './read-models.ts';
import { LocalReadings } from './readings.ts';
import { LocalReminders } from './reminders.ts';
import { LocalSnapshots } from './snapshots.ts';
import { MemoryKeyValue } from '../memory/kv.ts';
import { WriteAheadLog, type LoggedWrite } from './wal.ts';
import { logWrites, Writer } from './writer.ts';

export { DataDirectoryError, FORMAT as DATA_FORMAT } from './directory.ts';
export { READ_MODELS_FILE } from './read-models.ts';

export interface LocalStoreOptions {
  /** The data directory; created on first start. */
  dir: string;
  now: Now;
  readingRetentionMs?: number;
}

export interface LocalStores extends Stores {
  readonly dir: string;
  /** The journal's streams and the other stores' records, for moving a directory to the cluster. */
  readonly journal: LocalJournal;
  readonly kv: LocalKeyValue;
  /** Every record of a named database, in key order. */
  entries(db: LocalDatabaseName): Iterable<{ key: unknown; value: unknown }>;
  /**
   * The parts of a string key entries() gave (list and id; worker, time and tag: keys.ts), or
   * undefined when one of them was written as its digest (keys.ts part): its name is not kept.
   */
  keyParts(key: string): string[] | undefined;
}

/** The log names a database by its position here: append only. */
const DATABASES = ['events', 'feed', 'snapshots', 'reminders', 'reminders-due', 'kv', 'kv-expiry', 'index-members', 'index-places', 'readings'] as const;
export type LocalDatabaseName = (typeof DATABASES)[number];

export function createLocalStores(opts: LocalStoreOptions): LocalStores {
  const found = prepareDirectory(opts.dir);
  const unlock = lockDirectory(opts.dir);
  let env;
  try {
    // LMDB flushes after its commits (overlapping sync): durability is the log's (writer.ts).
    // Values are plain msgpack maps: without shared structures a record encoding carries its
    // field list in every value, and decoding re-reads it each time (the option is the encoder's,
    // untyped here).
    env = open({ path: join(opts.dir, ENV_DIR), maxDbs: DATABASES.length + 5, overlappingSync: true, useRecords: false } as RootDatabaseOptionsWithPath);
    if (found < 2) upgradeFromFormat1(env);
    if (found < FORMAT) writeFormat(opts.dir);
  } catch (e) {
    unlock();
    throw e;
  }
  const dbs = Object.fromEntries(DATABASES.map((name) => [name, env.openDB({ name })])) as Record<LocalDatabaseName, Database>;
  const state = env.openDB({ name: 'wal-state' });
  let opened!: ReturnType<typeof WriteAheadLog.open>;
  try {
    // What the log holds past LMDB's last transaction is written again, in one transaction that
    // always writes (an empty commit would skip its flush) and is flushed before it returns: so
    // whatever LMDB holds at a start, logged or not (a transaction committed just before a kill
    // -9, its record not yet written), is on disk before the first new record's number follows it.
    env.transactionSync(() => {
      opened = WriteAheadLog.open(opts.dir, (state.get('applied') as number | undefined) ?? 0, (seq, writes) => replay(dbs, state, seq, writes));
      state.putSync('applied', opened.last);
    });
  } catch (e) {
    void env.close();
    unlock();
    throw e;
  }
  const { wal } = opened;
  const writer = new Writer(env, state, wal, opened.last);
  DATABASES.forEach((name, i) => logWrites(dbs[name], i, writer));
  const indexes = new LocalIndexes(dbs['index-members'], dbs['index-places'], writer);
  const reminders = new LocalReminders(dbs.reminders, dbs['reminders-due'], writer, opts.now);
  const journal = new LocalJournal(dbs.events, dbs.feed, indexes, reminders, writer);
  let closing: Promise<void> | undefined;
  const s: LocalStores = {
    mode: 'embedded',
    durable: true,
    location: opts.dir,
    dir: opts.dir,
    journal,
    snapshots: new LocalSnapshots(dbs.snapshots, writer),
    reminders,
    kv: new LocalKeyValue(dbs.kv, dbs['kv-expiry'], writer, opts.now),
    claims: new MemoryKeyValue(opts.now),
    indexes,
    readings: new LocalReadings(dbs.readings, writer, opts.now, opts.readingRetentionMs ?? 30 * 24 * 3600_000),
    readModels: localReadModels(opts.dir),
    flushed: () => writer.flushed(),
    entries: (db) => dbs[db].getRange({}),
    keyParts,
    async backup(dir: string) {
      mkdirSync(dir, { recursive: true });
      if (readdirSync(dir).length) throw new Error(`${dir} is not empty: a backup goes into a new or empty directory`);
      mkdirSync(join(dir, ENV_DIR));
      // LMDB copies from one read transaction: a consistent state, while writes go on
      await env.backup(join(dir, ENV_DIR), true);
      writeFormat(dir);
    },
    close() {
      return (closing ??= (async () => {
        await Promise.all([s.journal.close(), s.snapshots.close(), s.reminders.close(), s.kv.close(), s.claims!.close(), s.indexes.close(), s.readings.close()]);
        await writer.idle();
        await env.close();
        wal.close();
        unlock();
      })());
    },
  };
  return s;
}

/** Format 1 to 2 (directory.ts FORMAT): its records read as they are; the `heads` database goes. */
function upgradeFromFormat1(env: RootDatabase): void {
  const heads = env.openDB({ name: 'heads' });
  env.transactionSync(() => heads.dropSync());
}

/** Inside a write transaction: one logged transaction LMDB does not have (wal.ts), written again as it was (each value as the bytes its database encoded), with its sequence number. */
function replay(dbs: Record<LocalDatabaseName, Database>, state: Database, seq: number, writes: LoggedWrite[]): void {
  for (const w of writes) {
    const db = dbs[DATABASES[w[0]]];
    if (w.length === 3) db.putSync(w[1] as never, asBinary(w[2] as Buffer));
    else db.removeSync(w[1] as never);
  }
  state.putSync('applied', seq);
}
