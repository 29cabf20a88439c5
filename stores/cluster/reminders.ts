/**
 * Reminders in Redis: a sorted set by due time, the encoded reminder and its generation in two
 * hashes, and one claim key per generation. A claim stores its lease end on the injected clock
 * (so a ManualClock test and a real node agree on when it lapses); the key's own Redis expiry
 * only collects it afterwards. Claim, complete and postpone are Lua scripts, so two nodes can
 * never both fire one generation, and completing a fired reminder never removes its replacement.
 */
import type { Redis } from 'ioredis';
import { pack, unpack } from './codec.ts';
import type { Now, Reminder, ReminderStore } from '../types.ts';
import { scripts } from './redis.ts';

/** Extra Redis lifetime of a claim key after its lease, so clock skew never frees it early. */
const CLAIM_GRACE_MS = 10 * 60_000;

const lua = {
  claim: {
    name: 'reminder_claim',
    keys: 1,
    lua: `
local held = redis.call('GET', KEYS[1])
if held and tonumber(held) > tonumber(ARGV[1]) then return 0 end
redis.call('SET', KEYS[1], tonumber(ARGV[1]) + tonumber(ARGV[2]), 'PX', tonumber(ARGV[2]) + tonumber(ARGV[3]))
return 1`,
  },
  complete: {
    name: 'reminder_complete',
    keys: 4, // claim, gen, data, due
    lua: `
redis.call('DEL', KEYS[1])
if redis.call('HGET', KEYS[2], ARGV[1]) == ARGV[2] then
  redis.call('HDEL', KEYS[2], ARGV[1])
  redis.call('HDEL', KEYS[3], ARGV[1])
  redis.call('ZREM', KEYS[4], ARGV[1])
end
return 1`,
  },
  postpone: {
    name: 'reminder_postpone',
    keys: 4, // claim, gen, data, due
    lua: `
redis.call('DEL', KEYS[1])
if redis.call('HGET', KEYS[2], ARGV[1]) == ARGV[2] then
  redis.call('HSET', KEYS[3], ARGV[1], ARGV[4])
  redis.call('ZADD', KEYS[4], ARGV[3], ARGV[1])
  return 1
end
return 0`,
  },
};

export class RedisReminders implements ReminderStore {
  private readonly run;
  private readonly due_: string;
  private readonly data: string;
  private readonly gen: string;

  constructor(private readonly redis: Redis, private readonly prefix: string, private readonly now: Now) {
    this.run = scripts(redis, lua);
    this.due_ = `${prefix}:rem:due`;
    this.data = `${prefix}:rem:data`;
    this.gen = `${prefix}:rem:gen`;
  }

  async put(r: Reminder): Promise<void> {
    await this.redis.multi().hset(this.data, r.key, pack(r)).hset(this.gen, r.key, r.generation).zadd(this.due_, r.dueAt, r.key).exec();
  }

  async get(key: string): Promise<Reminder | undefined> {
    const b = await this.redis.hgetBuffer(this.data, key);
    return b ? (unpack(b) as Reminder) : undefined;
  }

  async cancel(key: string): Promise<void> {
    await this.redis.multi().hdel(this.data, key).hdel(this.gen, key).zrem(this.due_, key).exec();
  }

  async due(now: number, limit: number, skip = 0): Promise<Reminder[]> {
    if (limit <= 0) return [];
    const keys = await this.redis.zrangebyscore(this.due_, '-inf', now, 'LIMIT', skip, limit);
    if (keys.length === 0) return [];
    const blobs = await this.redis.hmgetBuffer(this.data, ...keys);
    const out: Reminder[] = [];
    for (const b of blobs) if (b) {
      const r = unpack(b) as Reminder;
      if (r.dueAt <= now) out.push(r);
    }
    return out.sort((a, b) => a.dueAt - b.dueAt);
  }

  async claim(r: Reminder, leaseMs: number): Promise<boolean> {
    return (await this.run.claim(this.claimKey(r), this.now(), leaseMs, CLAIM_GRACE_MS)) === 1;
  }

  async complete(r: Reminder): Promise<void> {
    await this.run.complete(this.claimKey(r), this.gen, this.data, this.due_, r.key, r.generation);
  }

  async postpone(r: Reminder, dueAt: number): Promise<void> {
    await this.run.postpone(this.claimKey(r), this.gen, this.data, this.due_, r.key, r.generation, dueAt, pack({ ...r, dueAt }));
  }

  async nextDue(): Promise<number | undefined> {
    const first = await this.redis.zrangebyscore(this.due_, '-inf', '+inf', 'WITHSCORES', 'LIMIT', 0, 1);
    return first.length ? Number(first[1]) : undefined;
  }

  async close(): Promise<void> {}

  private claimKey(r: Reminder): string {
    return `${this.prefix}:rem:claim:${r.generation}`;
  }
}
