/**
 * Keyed load for a chaos scenario: API keys created open-loop (one create begins every 1000/rate
 * ms whatever the others are doing, so a stalled write does not slow the offered load), each with
 * its own Idempotency-Key, retried with that key on the next live node after a 5xx or a dropped
 * connection until it is answered. An API key is a credential (it must keep authenticating), a list
 * entry (GET /v1/api_keys) and a journal event, so one load feeds every count of the scenario.
 */
import type { Proc } from '../../support/chaos/index.ts';
import { sleep, through } from './client.ts';

export const RATE = Number(process.env.BENCH_CHAOS_RATE ?? 40);

export interface KeyedWrite {
  ik: string;
  began: number;
  acked?: number;
  /** The created key's id and secret, from the first 2xx answer (a replay shows no secret). */
  id?: string;
  secret?: string;
  retries: number;
  refused?: string;
}

export interface KeyedLoad {
  writes: KeyedWrite[];
  stop(): Promise<void>;
}

export function keyedLoad(procs: readonly Proc[], apiKey: string, tag: string): KeyedLoad {
  const writes: KeyedWrite[] = [];
  const inFlight = new Set<Promise<void>>();
  let running = true;
  const one = async (w: KeyedWrite, n: number) => {
    const { reply, retries } = await through(procs, n, 'POST', '/v1/api_keys', { 'service-api-key': apiKey, 'idempotency-key': w.ik }, { name: w.ik }, 300_000);
    w.retries = retries;
    if (reply.status >= 200 && reply.status < 300) {
      w.acked = performance.now();
      w.id = reply.body.id;
      w.secret = reply.body.key;
    } else w.refused = `${reply.status} ${JSON.stringify(reply.body).slice(0, 200)}`;
  };
  const scheduler = (async () => {
    for (let n = 0; running; n++) {
      const w: KeyedWrite = { ik: `${tag}-${process.pid}-${n}`, began: performance.now(), retries: 0 };
      writes.push(w);
      const p = one(w, n).finally(() => inFlight.delete(p));
      inFlight.add(p);
      await sleep(1000 / RATE);
    }
  })();
  return {
    writes,
    async stop() {
      running = false;
      await scheduler;
      await Promise.all(inFlight);
    },
  };
}

/** p99 of first attempt to acknowledgement over the writes acknowledged after `faultAt`. */
export function outageP99(writes: readonly KeyedWrite[], faultAt: number): number {
  const took = writes.filter((w) => w.acked !== undefined && w.acked > faultAt).map((w) => w.acked! - w.began).sort((a, b) => a - b);
  return took[Math.min(took.length - 1, Math.floor(took.length * 0.99))] ?? 0;
}

/** The longest span after `faultAt` in which no write was acknowledged anywhere. */
export function longestGap(writes: readonly KeyedWrite[], faultAt: number): number {
  const times = [faultAt, ...writes.filter((w) => w.acked !== undefined && w.acked > faultAt).map((w) => w.acked!).sort((a, b) => a - b)];
  return Math.max(0, ...times.slice(1).map((t, i) => t - times[i]));
}
