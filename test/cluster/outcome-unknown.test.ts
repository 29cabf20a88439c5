/**
 * A command forwarded to the node that owns its record, which goes quiet after the ask reached it
 * (SIGSTOP), answers 503 `outcome_unknown` (spec 7 Errors; docs/errors.md; docs/gaps.md#runtime):
 * the owner may apply it when it wakes, so `unavailable` (nothing applied) would be a lie. A retry
 * with the same Idempotency-Key after SIGCONT answers the command's result, applied exactly once.
 * Two node processes on wall time; the waits are bounded by deadlines.
 */
import { Kvm } from '@nats-io/kv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SHARDS, shardOf } from '../../runtime/cluster/index.ts';
import { ManualClock } from '../../runtime/index.ts';
import type { ClusterStores } from '../../stores/index.ts';
import { jsonCall, type JsonReply } from '../../support/node-http.ts';
import { clusterTestStores, testNamespace } from '../../support/stores.ts';
import { until } from '../../support/until.ts';
import { NodeProcesses, type Proc } from '../../support/chaos/node-processes.ts';
import { Tally } from './tally.ts';

const namespace = testNamespace('outcome');
const nodes = new NodeProcesses(namespace, 'test/cluster/node-main.ts');

const call = (p: Proc, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<JsonReply> =>
  jsonCall(p.port, method, path, headers, body, { agent: false, timeoutMs: 20_000 });

describe('outcome_unknown - a forwarded command whose owner went quiet (spec 7 Errors; docs/errors.md)', () => {
  let stores: ClusterStores;
  let n1: Proc, n2: Proc;
  let apiKey = '';
  /** Shard -> the node its lease names. */
  let owners: Map<number, string>;

  async function readOwners(): Promise<Map<number, string>> {
    const kv = await new Kvm(stores.nats).open(`${namespace}_shards`);
    const out = new Map<number, string>();
    for (let s = 0; s < DEFAULT_SHARDS; s++) {
      const e = await kv.get(`s.${s}`);
      if (!e || e.operation !== 'PUT' || !e.value.length) continue;
      const v = e.json<{ node: string; until: number }>();
      if (v.until > Date.now()) out.set(s, v.node);
    }
    return out;
  }

  beforeAll(async () => {
    [n1, n2] = await Promise.all([nodes.start('n1'), nodes.start('n2')]);
    stores = await clusterTestStores(new ManualClock(), { namespace, ephemeral: false });
    await until(async () => {
      owners = await readOwners();
      return owners.size === DEFAULT_SHARDS && new Set(owners.values()).size === 2;
    }, 30_000);
    const reg = await call(n1, 'POST', '/v1/registrations', {}, { organisation_name: 'Quiet Owner Works', name: 'Ada Obi', email: `quiet.${process.pid}@example.ng`, password: 'violet-harmattan-7-kettle' });
    expect(reg.status).toBe(200);
    apiKey = reg.body.api_key.key;
  }, 90_000);

  afterAll(async () => {
    if (n2?.child.exitCode === null) n2.child.kill('SIGCONT');
    await stores?.close();
    await nodes.stopAll();
  }, 60_000);

  it('a forward to a SIGSTOPped owner answers 503 outcome_unknown; the retry with the same Idempotency-Key after SIGCONT answers the result, applied once', async () => {
    const id = Array.from({ length: 500 }, (_, i) => `tly_quiet${i}`).find((t) => owners.get(shardOf(Tally.kind, t, DEFAULT_SHARDS)) === 'n2')!;
    expect(id).toBeDefined();
    const headers = { 'service-api-key': apiKey, 'idempotency-key': `quiet-${id}` };

    // n2 is stopped with the ask on its way: NATS hands it to n2's socket, and n2 never answers.
    n2.child.kill('SIGSTOP');
    let first: JsonReply;
    try {
      first = await call(n1, 'POST', `/v1/test_tallies/${id}/add`, headers, { n: 5 });
    } finally {
      n2.child.kill('SIGCONT');
    }
    expect({ status: first.status, code: first.body.error?.code, retryable: first.body.error?.retryable }).toEqual({ status: 503, code: 'outcome_unknown', retryable: true });
    expect(first.body.error.message).toMatch(/Idempotency-Key/);

    // The retry (through either node, as a client's load balancer would) completes or replays it.
    let retry: JsonReply | undefined;
    await until(async () => {
      for (const p of [n1, n2]) {
        const r = await call(p, 'POST', `/v1/test_tallies/${id}/add`, headers, { n: 5 });
        if (r.status !== 503) {
          retry = r;
          return true;
        }
      }
      return false;
    }, 30_000);
    expect({ status: retry!.status, total: retry!.body.total }).toEqual({ status: 200, total: 5 });
    // Asked again, it is a replay; read back, the tally holds the one addition.
    const again = await call(n2, 'POST', `/v1/test_tallies/${id}/add`, headers, { n: 5 });
    expect({ status: again.status, total: again.body.total, replay: again.headers['service-idempotent-replay'] }).toEqual({ status: 200, total: 5, replay: 'true' });
    expect((await call(n1, 'GET', `/v1/test_tallies/${id}`, { 'service-api-key': apiKey })).body.total).toBe(5);
    const events = await stores.journal.read(`${Tally.kind}.${id}`, 0);
    expect(events.map((e) => e.type)).toEqual(['tally.added']);
  }, 90_000);
});
