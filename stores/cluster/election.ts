/**
 * Riding out a JetStream election in the key-value and reminder buckets (docs/cluster.md "What
 * lives where"). While a bucket's stream has no leader (its server died, the survivors electing)
 * or the node is reconnecting to another server, a bucket operation fails at once: a put's subject
 * has nobody subscribed (the client's "jetstream is not enabled", a no-responders status), or the
 * API answers "temporarily unavailable". Failing the request then turns an election of seconds into
 * a storm of instant 503s and retries that starves the servers electing, so an operation is tried
 * again with a short backoff until RIDE_OUT_MS, as the lease table rides out the same election
 * (runtime/cluster/leases.ts), and only then fails as a StoreUnavailableError.
 *
 * Only failures that stored nothing are retried for a write: no responders and a refusal before
 * the stream took it. A write that timed out may have landed, so a compare-and-set is not sent
 * again (it would meet its own revision and read it as another writer's); a read, or a write that
 * sets a key whatever it holds, may be.
 */
/**
 * How long one operation rides out an election before it fails: an election takes a few seconds,
 * more on a loaded machine, and an idempotency claim whose release fails meanwhile holds its key
 * until the claim's lease ends (gateway/idempotency.ts), so this errs long.
 */
export const RIDE_OUT_MS = 15_000;
/**
 * One read's wait for an answer before it is sent again: a read sent while the stream had no
 * leader is never answered, and the client's own time-out (5 s) would spend a third of the ride-out
 * on it. A read left behind answers nobody; a write is never raced (it could land after its retry).
 */
export const READ_ATTEMPT_MS = 1_500;
/** Waits between attempts: short first, so a leader elected meanwhile is used at once. */
const BACKOFF_MS = [20, 50, 100, 200, 300, 500];

/** `read`: nothing changes; `put`: the same outcome if applied twice; `cas`: must not be sent twice after a time-out. */
export type Attempt = 'read' | 'put' | 'cas';

/** Server codes of a refusal before anything was stored: JetStream unavailable / no leader yet. */
const UNAVAILABLE = new Set([10008, 10039]);

/** Whether `e` says nothing was stored and a later attempt may find a leader. */
export function isElectionFault(e: unknown, kind: Attempt): boolean {
  // By name, not class: the client's error classes come from a package this one does not import.
  const err = e as { name?: string; code?: unknown; message?: string; isNoResponders?: () => boolean } | undefined;
  if (!err) return false;
  if (err.name === 'JetStreamNotEnabled' || err.name === 'NoRespondersError') return true;
  if (err.name === 'RequestError' && typeof err.isNoResponders === 'function' && err.isNoResponders()) return true;
  if (typeof err.code === 'number' && UNAVAILABLE.has(err.code)) return true;
  if (/temporarily unavailable|no suitable peers|leader not found|no responders/i.test(String(err.message))) return true;
  if (kind !== 'cas' && err.name === 'TimeoutError') return true;
  return false;
}

/** Runs `op` until it succeeds, fails for another reason, or RIDE_OUT_MS has passed. */
export async function rideOut<T>(kind: Attempt, op: () => Promise<T>, rideOutMs = RIDE_OUT_MS): Promise<T> {
  const deadline = performance.now() + rideOutMs;
  for (let i = 0; ; i++) {
    try {
      return await (kind === 'read' ? raced(op(), Math.min(READ_ATTEMPT_MS, Math.max(1, deadline - performance.now()))) : op());
    } catch (e) {
      const wait = BACKOFF_MS[Math.min(i, BACKOFF_MS.length - 1)];
      if (!isElectionFault(e, kind) || performance.now() + wait >= deadline) throw e;
      await new Promise((r) => setTimeout(r, wait));
    }
  }
}

/** `p`, or a TimeoutError after `ms` (p goes on, its outcome ignored). */
function raced<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error('timeout'), { name: 'TimeoutError' })), ms);
  });
  p.catch(() => {}); // a read left behind may still fail
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}
