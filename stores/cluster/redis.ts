/**
 * Lua scripts run atomically in Redis. Each store registers its scripts once per connection and
 * calls them by name; ioredis sends EVALSHA and falls back to EVAL after a script flush.
 */
import type { Redis } from 'ioredis';

export interface Script {
  name: string;
  keys: number;
  lua: string;
}

type Call = (...args: (string | number | Buffer)[]) => Promise<unknown>;

export function scripts<T extends Record<string, Script>>(redis: Redis, defs: T): { [K in keyof T]: Call } & { [K in keyof T as `${K & string}Buffer`]: Call } {
  const out: Record<string, Call> = {};
  for (const [key, s] of Object.entries(defs)) {
    const name = `wf_${s.name}`;
    if (!(name in redis)) redis.defineCommand(name, { numberOfKeys: s.keys, lua: s.lua });
    const r = redis as unknown as Record<string, Call>;
    out[key] = (...args) => r[name].apply(redis, args);
    out[`${key}Buffer`] = (...args) => r[`${name}Buffer`].apply(redis, args);
  }
  return out as never;
}
