import type { SnapshotStore } from '../types.ts';

export class MemorySnapshots implements SnapshotStore {
  private readonly blobs = new Map<string, { version: number; blob: Uint8Array }>();

  async load(key: string): Promise<Uint8Array | undefined> {
    return this.blobs.get(key)?.blob;
  }

  async save(key: string, version: number, blob: Uint8Array): Promise<boolean> {
    const prev = this.blobs.get(key);
    if (prev && prev.version >= version) return false;
    this.blobs.set(key, { version, blob });
    return true;
  }

  async close(): Promise<void> {}
}
