/**
 * The data directory of the local family (DESIGN "Stores"): `format.json` names the layout's
 * version, `lmdb/` holds the environment, `wal/` the write-ahead log (wal.ts), and
 * `platform.lock` says which process serves it.
 */
import { closeSync, existsSync, fsyncSync, linkSync, mkdirSync, openSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The layout this code reads and writes. A newer one is refused. Format 1 kept each stream's head
 * in a `heads` database and each event in its own record; format 2 reads a stream's head from its
 * last record and writes an append of several events as one record, and reads format 1's records
 * as they are, so upgrading drops the `heads` database (index.ts) and rewrites this record.
 * Format 3 adds the write-ahead log: LMDB may hold less than was acknowledged, and only code that
 * replays the log reads the directory whole; a format 2 directory has no log and reads as it is.
 */
export const FORMAT = 3;
const FORMAT_FILE = 'format.json';
const LOCK_FILE = 'platform.lock';
export const ENV_DIR = 'lmdb';

import { StoreSetupError } from '../types.ts';

/** The data directory cannot be used as it is; the message says what to do. */
export class DataDirectoryError extends StoreSetupError {}

interface FormatRecord {
  format: number;
  engine: 'lmdb';
  created_at: string;
}

/**
 * Creates the directory on first start, or checks the format of one that exists; returns the
 * format found (an older one is upgraded by createLocalStores once the environment is open). A directory that
 * holds files but no format record is not ours, and is refused rather than written into.
 */
export function prepareDirectory(dir: string): number {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, FORMAT_FILE);
  if (!existsSync(file)) {
    const other = readdirSync(dir).filter((f) => f !== LOCK_FILE);
    if (other.length) throw new DataDirectoryError(`${dir} holds files but no ${FORMAT_FILE}: it is not a platform data directory (or it was copied in part); choose an empty directory for DATA_DIR`);
    writeFormat(dir);
    return FORMAT;
  }
  let rec: FormatRecord;
  try {
    rec = JSON.parse(readFileSync(file, 'utf8')) as FormatRecord;
  } catch {
    throw new DataDirectoryError(`${file} is unreadable; restore the directory from a backup (npm run operator -- backup PATH makes one)`);
  }
  if (!Number.isInteger(rec.format) || rec.engine !== 'lmdb') throw new DataDirectoryError(`${file} names no format this platform knows (${JSON.stringify(rec)})`);
  if (rec.format > FORMAT) throw new DataDirectoryError(`${dir} is in data format ${rec.format}, newer than this platform reads (${FORMAT}); run the newer platform version that wrote it`);
  return rec.format;
}

/** Written whole and renamed into place, so a crash leaves the old record or the new, never half. */
export function writeFormat(dir: string): void {
  const rec: FormatRecord = { format: FORMAT, engine: 'lmdb', created_at: new Date().toISOString() };
  replaceFile(dir, FORMAT_FILE, `${JSON.stringify(rec, null, 2)}\n`);
}

/**
 * Replaces `name` in `dir` whole: written under `<name>.tmp` (one process serves a directory, so
 * one name does), synced, renamed into place, and the directory synced, since the rename is its
 * change. Whenever the process or the machine stops, a reader finds the old file or the new one,
 * never a part of either.
 */
export function replaceFile(dir: string, name: string, data: string | Uint8Array): void {
  const tmp = join(dir, `${name}.tmp`);
  const fd = openSync(tmp, 'w');
  try {
    writeFileSync(fd, data);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, join(dir, name));
  const d = openSync(dir, 'r');
  try {
    fsyncSync(d);
  } finally {
    closeSync(d);
  }
}

/** This process's start time in clock ticks since boot (/proc/<pid>/stat field 22): a pid with another start time is another process. */
function startTicks(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

function alive(pid: number, started: string | undefined): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
  const now = startTicks(pid);
  return now === undefined || started === undefined || now === started;
}

/**
 * Takes the directory for this process: a second platform process on it is refused with the
 * holder's pid. A lock left by a process that died (kill -9, a power cut) is taken over: its pid is
 * gone, or now belongs to a process started at another time.
 */
export function lockDirectory(dir: string): () => void {
  const file = join(dir, LOCK_FILE);
  const me = JSON.stringify({ pid: process.pid, started: startTicks(process.pid) });
  const release = () => {
    try {
      if (readFileSync(file, 'utf8') === me) rmSync(file);
    } catch {
      // already gone
    }
  };
  // written whole under a name of its own and linked into place: the lock is never seen half-written
  const mine = `${file}.${process.pid}`;
  writeFileSync(mine, me);
  try {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        linkSync(mine, file);
        return release;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      }
      let held: { pid?: number; started?: string } = {};
      try {
        held = JSON.parse(readFileSync(file, 'utf8'));
      } catch {
        // unreadable: not a lock this code wrote
      }
      if (typeof held.pid === 'number' && alive(held.pid, held.started)) {
        throw new DataDirectoryError(`${dir} is in use by another platform process (pid ${held.pid}); stop it first, or set DATA_DIR to another directory`);
      }
      rmSync(file, { force: true });
    }
    throw new DataDirectoryError(`could not take ${file}`);
  } finally {
    rmSync(mine, { force: true });
  }
}
