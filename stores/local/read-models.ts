/**
 * Where the local family keeps the node's read models as they stood at a position of the journal
 * (kernel/read-model-checkpoints.ts; docs/architecture.md "What a restart costs"): one file in the
 * data directory beside `lmdb/` and `wal/`, replaced whole (directory.ts replaceFile), so a reader
 * finds the previous checkpoint or the new one, never a part of either. It is not a record: losing
 * it costs a start one read of the journal from its beginning, nothing more, so a backup leaves it
 * out.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ReadModelStore } from '../types.ts';
import { replaceFile } from './directory.ts';

export const READ_MODELS_FILE = 'read-models.checkpoint';

export function localReadModels(dir: string): ReadModelStore {
  const file = join(dir, READ_MODELS_FILE);
  return {
    location: file,
    async read() {
      try {
        return readFileSync(file);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw e;
      }
    },
    async write(bytes) {
      replaceFile(dir, READ_MODELS_FILE, bytes);
    },
  };
}
