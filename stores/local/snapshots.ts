import type { Database } from 'lmdb';
import type { SnapshotStore } from '../types.ts';
import { part } from './keys.ts';
import type { Writer } from './writer.ts';

/** Snapshots on disk: `[version, blob]` per actor, replaced only by a newer version (DESIGN "Stores": a cache of the journal). */
export class LocalSnapshots implements SnapshotStore {
  constructor(
    private readonly db: Database,
    private readonly writer: Writer,
  ) {}

  async load(key: string): Promise<Uint8Array | undefined> {
    const held = this.db.get(part(key)) as [number, Uint8Array] | undefined;
    return held?.[1];
  }

  save(key: string, version: number, blob: Uint8Array): Promise<boolean> {
    return this.writer.run(() => {
      const held = this.db.get(part(key)) as [number, Uint8Array] | undefined;
      if (held && held[0] >= version) return false;
      this.db.put(part(key), [version, blob]);
      return true;
    });
  }

  async close(): Promise<void> {}
}
