/**
 * Whether Redis still holds what the cluster derived into it (DESIGN "Stores": Redis keeps only
 * what the journal gives back; docs/cluster.md "What lives where"). One key, `<ns>:derived`, says
 * so: `built:<token>` once a rebuild finished, `building:<token>` with a lease while one runs. A
 * Redis emptied (restarted without persistence, flushed, or replaced by an empty one) has no key,
 * and the first node to see that claims the rebuild; a node killed mid-rebuild lets its lease
 * lapse and another starts again. A namespace new to Redis is such a one too: its rebuild reads a
 * journal that may hold nothing yet, and is cheap.
 */
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';

/** Extends the lease only if `token` still holds it. */
const RENEW = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0`;
/** Replaces a finished marker with a new claim only as it was read (another claim meanwhile keeps its own). */
const RECLAIM = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3]) return 1 end
return 0`;
/** Marks the rebuild done only if `token` still holds it (a flush meanwhile removed it). */
const FINISH = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('SET', KEYS[1], ARGV[2]) return 1 end
return 0`;

export class DerivedGeneration {
  readonly key: string;

  constructor(
    private readonly redis: Redis,
    namespace: string,
    /** How long a claim lasts without renewal. */
    readonly leaseMs = 30_000,
  ) {
    this.key = `${namespace}:derived`;
  }

  /** The marker as it is: built, being built, or missing (Redis lost what was derived). */
  async state(): Promise<'built' | 'building' | 'missing'> {
    const v = await this.redis.get(this.key);
    return v === null ? 'missing' : v.startsWith('built:') ? 'built' : 'building';
  }

  /** A token when this node now holds the rebuild: the marker was missing, or `force` (an operator's rebuild) and nobody holds it. */
  async claim(force = false): Promise<string | undefined> {
    const token = `building:${randomBytes(8).toString('hex')}`;
    if ((await this.redis.set(this.key, token, 'PX', this.leaseMs, 'NX')) === 'OK') return token;
    if (!force) return undefined;
    const held = await this.redis.get(this.key);
    if (held === null || held.startsWith('building:')) return undefined;
    const swapped = await this.redis.eval(RECLAIM, 1, this.key, held, token, this.leaseMs);
    return swapped === 1 ? token : undefined;
  }

  /** False when the claim was lost (lapsed, or Redis emptied again): the rebuild stops and the next check starts over. */
  async renew(token: string): Promise<boolean> {
    return (await this.redis.eval(RENEW, 1, this.key, token, this.leaseMs)) === 1;
  }

  async finish(token: string): Promise<boolean> {
    return (await this.redis.eval(FINISH, 1, this.key, token, `built:${token.slice('building:'.length)}`)) === 1;
  }
}
