/**
 * List indexes in Redis: per list a sorted set of `${sortKey}\0${id}` at score 0, read by lex
 * (the memory store's order: sort key, ties by id), and a hash id -> member so a put can move a
 * member and `after` can find its place. Both scripts run atomically; a page never sees half an
 * apply. Keys are built inside the scripts, which is fine for one Redis (not Redis Cluster).
 */
import type { Redis } from 'ioredis';
import type { IndexOp, IndexPage, IndexStore } from '../types.ts';
import { scripts } from './redis.ts';

const lua = {
  /** ARGV[1] prefix, then triples (op, list, id, sortKey) as quadruples with '' for remove. */
  apply: {
    name: 'index_apply',
    keys: 0,
    lua: `
local p = ARGV[1]
for i = 2, #ARGV, 4 do
  local op, list, id, sk = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3]
  local z, h = p .. ':idx:' .. list, p .. ':idxid:' .. list
  local prev = redis.call('HGET', h, id)
  local c = sk .. '\\0' .. id
  if not (op == 'put' and prev == c) then
    if prev then redis.call('ZREM', z, prev); redis.call('HDEL', h, id) end
    if op == 'put' then redis.call('ZADD', z, 0, c); redis.call('HSET', h, id, c) end
  end
end
return 1`,
  },
  /** KEYS zset, hash; ARGV after ('' none), count, 'asc'|'desc'. */
  page: {
    name: 'index_page',
    keys: 2,
    lua: `
local n = tonumber(ARGV[2])
if ARGV[1] ~= '' then
  local c = redis.call('HGET', KEYS[2], ARGV[1])
  if not c then return {} end
  if ARGV[3] == 'asc' then return redis.call('ZRANGEBYLEX', KEYS[1], '(' .. c, '+', 'LIMIT', 0, n) end
  return redis.call('ZREVRANGEBYLEX', KEYS[1], '(' .. c, '-', 'LIMIT', 0, n)
end
if ARGV[3] == 'asc' then return redis.call('ZRANGEBYLEX', KEYS[1], '-', '+', 'LIMIT', 0, n) end
return redis.call('ZREVRANGEBYLEX', KEYS[1], '+', '-', 'LIMIT', 0, n)`,
  },
};

export class RedisIndexes implements IndexStore {
  private readonly run;

  constructor(redis: Redis, private readonly prefix: string) {
    this.run = scripts(redis, lua);
  }

  async apply(ops: IndexOp[]): Promise<void> {
    if (ops.length === 0) return;
    const args: string[] = [this.prefix];
    for (const o of ops) args.push(o.op, o.list, o.id, o.op === 'put' ? o.sortKey : '');
    await this.run.apply(...args);
  }

  async page(list: string, opts: { after?: string; limit: number; order: 'asc' | 'desc' }): Promise<IndexPage> {
    if (opts.after === '') return { ids: [], hasMore: false };
    const limit = Math.max(0, Math.floor(opts.limit));
    const members = (await this.run.page(`${this.prefix}:idx:${list}`, `${this.prefix}:idxid:${list}`, opts.after ?? '', limit + 1, opts.order)) as string[];
    const ids = members.slice(0, limit).map((c) => c.slice(c.indexOf('\0') + 1));
    return { ids, hasMore: members.length > limit };
  }

  async close(): Promise<void> {}
}
