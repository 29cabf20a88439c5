/**
 * A store fault is 503, never 500 (spec 7 Errors; docs/errors.md `unavailable`, `outcome_unknown`;
 * docs/gaps.md#runtime "A store fault is a 503, never a 500"): two node processes over their own
 * redis-server (support/chaos/redis-server.ts) and the shared NATS, under keyed load through both
 * gateways (writes retried with their Idempotency-Key, lists, reads, key creates), while the
 * redis-server is killed with -9, stays down, and comes back empty. Every answer is a 2xx or a
 * retryable 503, and every write answered 2xx is applied exactly once. Wall time, bounded waits.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonCall, type JsonReply } from '../../support/node-http.ts';
import { testNamespace } from '../../support/stores.ts';
import { until } from '../../support/until.ts';
import { NodeProcesses, type Proc } from '../../support/chaos/node-processes.ts';
import { OwnRedis } from '../../support/chaos/redis-server.ts';

const TALLIES = 12;
const WORKERS = 8;

const call = (p: Proc, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<JsonReply> =>
  jsonCall(p.port, method, path, headers, body, { agent: false, timeoutMs: 30_000 });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a store fault is 503, never 500: redis-server killed -9 under load (spec 7 Errors)', () => {
  let redis: OwnRedis;
  let nodes: NodeProcesses;
  let procs: Proc[] = [];
  let apiKey = '';

  beforeAll(async () => {
    redis = await OwnRedis.start();
    nodes = new NodeProcesses(testNamespace('rkill'), 'test/cluster/node-main.ts', { env: { REDIS_URL: redis.url } });
    procs = await Promise.all([nodes.start('n1'), nodes.start('n2')]);
    await until(async () => {
      const reg = await call(procs[0], 'POST', '/v1/registrations', {}, { organisation_name: 'Redis Loss Works', name: 'Ada Obi', email: `rkill.${process.pid}@example.ng`, password: 'violet-harmattan-7-kettle' });
      apiKey = reg.status === 200 ? reg.body.api_key.key : '';
      return apiKey !== '';
    }, 30_000);
  }, 90_000);

  afterAll(async () => {
    await nodes?.stopAll();
    await redis?.stop();
  }, 60_000);

  it('every answer is 2xx or a retryable 503 while Redis dies and returns empty; every 2xx write applied once', async () => {
    const auth = { 'service-api-key': apiKey };
    /** Every answer's status, and the bodies of the ones that are neither 2xx nor 503. */
    const statuses = new Map<number, number>();
    const unexpected: string[] = [];
    const refused503: string[] = [];
    const acked = new Map<string, string>();
    let running = true;
    let seq = 0;

    const note = (p: Proc, what: string, r: JsonReply): void => {
      statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
      if (r.status === 503) {
        if (r.body?.error?.retryable !== true) unexpected.push(`${p.id} ${what} 503 not retryable ${JSON.stringify(r.body)}`);
        refused503.push(r.body?.error?.code);
      } else if (r.status < 200 || r.status >= 300) unexpected.push(`${p.id} ${what} ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
    };

    const worker = async (w: number): Promise<void> => {
      while (running) {
        const n = seq++;
        const p = procs[n % procs.length];
        try {
          switch (w % 4) {
            case 0:
            case 1: {
              // A keyed write, retried with its key through the other node until it is answered 2xx.
              const key = `rk-${w}-${n}`;
              const tally = `tly_rk${n % TALLIES}`;
              for (let attempt = 0; attempt < 200; attempt++) {
                const q = procs[(n + attempt) % procs.length];
                const r = await call(q, 'POST', `/v1/test_tallies/${tally}/add`, { ...auth, 'idempotency-key': key }, { n: 1 });
                note(q, 'add', r);
                if (r.status !== 503) {
                  if (r.status === 200) acked.set(key, tally);
                  break;
                }
                await sleep(25);
              }
              break;
            }
            case 2:
              note(p, 'list', await call(p, 'GET', '/v1/api_keys?limit=5', auth));
              break;
            default:
              note(p, 'create', await call(p, 'POST', '/v1/api_keys', { ...auth, 'idempotency-key': `rk-key-${n}` }, { name: `rk ${n}` }));
          }
        } catch (e) {
          unexpected.push(`${p.id} transport ${(e as Error).message}`);
        }
      }
    };

    const load = Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w)));
    await sleep(1500);
    await redis.stop(); // kill -9; down long enough for the client to give up on queued commands
    await sleep(5000);
    await redis.restartEmpty();
    await sleep(3000);
    running = false;
    await load;

    expect(unexpected).toEqual([]);
    expect([...statuses.keys()].every((s) => (s >= 200 && s < 300) || s === 503)).toBe(true);
    expect(statuses.get(200) ?? 0).toBeGreaterThan(20);
    expect(refused503.length).toBeGreaterThan(0);
    expect(refused503.every((c) => c === 'unavailable' || c === 'outcome_unknown' || c === 'overloaded')).toBe(true);

    const expected = new Map<string, number>();
    for (const t of acked.values()) expected.set(t, (expected.get(t) ?? 0) + 1);
    for (const [tally, n] of expected) {
      const r = await call(procs[0], 'GET', `/v1/test_tallies/${tally}`, auth);
      expect({ tally, total: r.body.total }).toEqual({ tally, total: n });
    }
  }, 120_000);
});
