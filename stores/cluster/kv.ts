/**
 * Key-value with TTL in Redis. Each key is a hash: `e` its expiry on the injected clock (-1 for
 * none), and either `v` (a msgpackr value) or `n` (an integer counter, so incr is one HINCRBY).
 * Expiry is decided by `e` against the clock, as the memory store does; the Redis key also gets
 * a PEXPIRE of ttl + grace so expired keys are collected without a sweep.
 */
import type { Redis } from 'ioredis';
import { pack, unpack } from './codec.ts';
import type { KeyValueStore, Now, Scalar } from '../types.ts';
import { scripts } from './redis.ts';

const GRACE_MS = 10 * 60_000;

/** KEYS[1] key; ARGV now, expiresAt (-1 none), blob, pexpire (0 none), onlyIfAbsent (0|1). */
const set = `
if ARGV[5] == '1' then
  local e = redis.call('HGET', KEYS[1], 'e')
  if e and (tonumber(e) < 0 or tonumber(e) > tonumber(ARGV[1])) then return 0 end
end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'e', ARGV[2], 'v', ARGV[3])
if tonumber(ARGV[4]) > 0 then redis.call('PEXPIRE', KEYS[1], ARGV[4]) end
return 1`;

/**
 * KEYS[1] key; ARGV now, expected blob ('' absent), expected as an integer counter ('' not one),
 * blob ('' delete), expiresAt (-1 none), pexpire (0 none). A packed value is never empty.
 */
const compareAndSet = `
local e = redis.call('HGET', KEYS[1], 'e')
local live = e and (tonumber(e) < 0 or tonumber(e) > tonumber(ARGV[1]))
if ARGV[2] == '' then
  if live then return 0 end
else
  if not live then return 0 end
  local v = redis.call('HGET', KEYS[1], 'v')
  if v then
    if v ~= ARGV[2] then return 0 end
  elseif redis.call('HGET', KEYS[1], 'n') ~= ARGV[3] then return 0 end
end
redis.call('DEL', KEYS[1])
if ARGV[4] == '' then return 1 end
redis.call('HSET', KEYS[1], 'e', ARGV[5], 'v', ARGV[4])
if tonumber(ARGV[6]) > 0 then redis.call('PEXPIRE', KEYS[1], ARGV[6]) end
return 1`;

const lua = {
  set: { name: 'kv_set', keys: 1, lua: set },
  compareAndSet: { name: 'kv_cas', keys: 1, lua: compareAndSet },
  /** KEYS[1] key; ARGV now, by. An expired or absent key counts from 0 and keeps no expiry. */
  incr: {
    name: 'kv_incr',
    keys: 1,
    lua: `
local e = redis.call('HGET', KEYS[1], 'e')
if e and tonumber(e) >= 0 and tonumber(e) <= tonumber(ARGV[1]) then redis.call('DEL', KEYS[1]); e = false end
if not e then redis.call('HSET', KEYS[1], 'e', -1) end
local v = redis.call('HGET', KEYS[1], 'v')
if v then
  local n = tonumber(cmsgpack.unpack(v)) or 0
  redis.call('HDEL', KEYS[1], 'v')
  redis.call('HSET', KEYS[1], 'n', n)
end
return redis.call('HINCRBY', KEYS[1], 'n', ARGV[2])`,
  },
};

export class RedisKeyValue implements KeyValueStore {
  private readonly run;

  constructor(private readonly redis: Redis, private readonly prefix: string, private readonly now: Now) {
    this.run = scripts(redis, lua);
  }

  async get<T = unknown>(key: string): Promise<T | undefined> {
    const [e, v, n] = await this.redis.hmgetBuffer(this.key(key), 'e', 'v', 'n');
    if (!e) return undefined;
    const expiresAt = Number(e.toString());
    if (expiresAt >= 0 && expiresAt <= this.now()) return undefined;
    if (n) return Number(n.toString()) as T;
    return v ? (unpack(v) as T) : undefined;
  }

  async set(key: string, value: unknown, ttlMs?: number): Promise<void> {
    await this.write(key, value, ttlMs, false);
  }

  async setIfAbsent(key: string, value: unknown, ttlMs?: number): Promise<boolean> {
    return this.write(key, value, ttlMs, true);
  }

  async compareAndSet(key: string, expected: Scalar | undefined, value: Scalar | undefined, ttlMs?: number): Promise<boolean> {
    const counter = typeof expected === 'number' && Number.isInteger(expected) ? String(expected) : '';
    const blob = value === undefined ? '' : pack(value);
    const { expiresAt, pexpire } = this.expiry(ttlMs);
    return (await this.run.compareAndSet(this.key(key), this.now(), expected === undefined ? '' : pack(expected), counter, blob, expiresAt, pexpire)) === 1;
  }

  async delete(key: string): Promise<void> {
    await this.redis.del(this.key(key));
  }

  async incr(key: string, by = 1): Promise<number> {
    return Number(await this.run.incr(this.key(key), this.now(), by));
  }

  async close(): Promise<void> {}

  private async write(key: string, value: unknown, ttlMs: number | undefined, onlyIfAbsent: boolean): Promise<boolean> {
    const { expiresAt, pexpire } = this.expiry(ttlMs);
    return (await this.run.set(this.key(key), this.now(), expiresAt, pack(value), pexpire, onlyIfAbsent ? '1' : '0')) === 1;
  }

  private expiry(ttlMs: number | undefined): { expiresAt: number; pexpire: number } {
    if (ttlMs === undefined) return { expiresAt: -1, pexpire: 0 };
    return { expiresAt: this.now() + ttlMs, pexpire: Math.max(1, Math.ceil(ttlMs)) + GRACE_MS };
  }

  private key(k: string): string {
    return `${this.prefix}:kv:${k}`;
  }
}
