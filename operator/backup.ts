/**
 * `npm run operator -- backup PATH` (DESIGN "Stores"; issue "Backup while serving"): the running
 * platform copies its data directory into PATH while it keeps serving. The local family takes the
 * copy from one read transaction, so it holds every commit acknowledged before the copy began and
 * no half of one; starting with DATA_DIR=PATH restores it.
 *
 * Only the local family has a backup: the memory stores hold nothing that outlives the process,
 * and the cluster keeps its records in NATS JetStream and Redis, backed up with their own tools.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { ApiError, type Platform } from '../kernel/index.ts';
import { DATA_FORMAT } from '../stores/index.ts';

export interface BackupReport {
  path: string;
  /** The data format written into the copy's format.json. */
  format: number;
  /** Bytes of every file in the copy. */
  bytes: number;
  took_ms: number;
}

const refused = (msg: string) => new ApiError('validation_failed', msg);

/** Refusals come before any file is written, so a refused backup leaves PATH as it was. */
export async function backup(platform: Platform, path: unknown): Promise<BackupReport> {
  const stores = platform.stores;
  if (typeof path !== 'string' || path.trim() === '') throw refused('backup needs a PATH: npm run operator -- backup PATH');
  if (!isAbsolute(path)) throw refused(`backup PATH must be absolute on the platform's side (the CLI resolves it): ${JSON.stringify(path)}`);
  if (!stores.backup) {
    throw refused(`this platform keeps its records in ${stores.location}, which has no backup through the operator: only the local stores (npm start with DATA_DIR) are backed up this way`);
  }
  const target = resolve(path);
  const data = resolve(stores.location);
  const inside = relative(data, target);
  if (inside === '' || (!inside.startsWith('..') && !isAbsolute(inside))) throw refused(`backup PATH ${target} is inside the data directory ${data}: choose a path outside it`);
  if (existsSync(target)) {
    if (!statSync(target).isDirectory()) throw refused(`backup PATH ${target} is a file: a backup goes into a new or empty directory`);
    if (readdirSync(target).length) throw refused(`backup PATH ${target} is not empty: a backup goes into a new or empty directory`);
  }
  const started = performance.now();
  await stores.backup(target);
  return { path: target, format: DATA_FORMAT, bytes: sizeOf(target), took_ms: Math.round(performance.now() - started) };
}

function sizeOf(path: string): number {
  const st = statSync(path);
  if (!st.isDirectory()) return st.size;
  let total = 0;
  for (const name of readdirSync(path)) total += sizeOf(join(path, name));
  return total;
}
