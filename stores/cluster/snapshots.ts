/** Snapshots in Redis: a hash { v: version, b: blob } per actor, written by compare-and-set. */
import type { Redis } from 'ioredis';
import type { SnapshotStore } from '../types.ts';
import { scripts } from './redis.ts';

const lua = {
  save: {
    name: 'snapshot_save',
    keys: 1,
    lua: `
local cur = redis.call('HGET', KEYS[1], 'v')
if cur and tonumber(cur) >= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'v', ARGV[1], 'b', ARGV[2])
return 1`,
  },
};

export class RedisSnapshots implements SnapshotStore {
  private readonly run;

  constructor(private readonly redis: Redis, private readonly prefix: string) {
    this.run = scripts(redis, lua);
  }

  async load(key: string): Promise<Uint8Array | undefined> {
    const b = await this.redis.hgetBuffer(this.key(key), 'b');
    return b ? new Uint8Array(b.buffer, b.byteOffset, b.byteLength) : undefined;
  }

  async save(key: string, version: number, blob: Uint8Array): Promise<boolean> {
    return (await this.run.save(this.key(key), version, Buffer.from(blob.buffer, blob.byteOffset, blob.byteLength))) === 1;
  }

  async close(): Promise<void> {}

  private key(k: string): string {
    return `${this.prefix}:snap:${k}`;
  }
}
