/**
 * Where the local family keeps the node's read models as they stood at a position of the journal
 * (kernel/read-model-checkpoints.ts; docs/architecture.md "What a restart costs"): one file in the
 * data directory beside `lmdb/` and `wal/`, replaced whole. It is written through a file of its own
 * name, synced, and renamed into place, so a reader finds the previous checkpoint or the new one,
 * never a part of either, whenever the process or the machine stopped. It is not a record: losing
 * it costs a start one read of the journal from its beginning, nothing more, so a backup leaves it
 * out.
 */
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { ReadModelStore } from '../types.ts';

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
      // one process serves a directory (directory.ts lock): one name for the file being written
      const own = `${file}.tmp`;
      const fd = openSync(own, 'w');
      try {
        for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      renameSync(own, file);
      // the rename is the directory's change: synced too, or a power cut could keep the old name
      const d = openSync(dir, 'r');
      try {
        fsyncSync(d);
      } finally {
        closeSync(d);
      }
    },
  };
}
