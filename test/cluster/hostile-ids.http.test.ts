/**
 * A hostile path id through the real gateway of a cluster node (docs/cluster.md "Names"): a run id
 * of 5,000 letters once put a subject past NATS's control-line limit, the server closed the node's
 * connection, and every request in flight stalled and answered 503. It answers 404 now, with the
 * node's connection up and its other requests served.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../runtime/index.ts';
import { ClusterNode } from '../../runtime/cluster/index.ts';
import type { ClusterStores } from '../../stores/index.ts';
import { type Harness, startHarness } from '../../support/http.ts';
import { clusterTestStores } from '../../support/stores.ts';
import { until } from '../../support/until.ts';
import { FAST, TEST_SHARDS } from './nodes.ts';

describe('a hostile run id through a cluster node\'s gateway', { timeout: 60_000 }, () => {
  let h: Harness;
  let stores: ClusterStores;
  let node: ClusterNode;
  const dropped: string[] = [];

  beforeAll(async () => {
    const clock = new ManualClock();
    stores = await clusterTestStores(clock);
    h = await startHarness({ clock, stores });
    node = new ClusterNode({ stores, nodeId: 'http1', shards: TEST_SHARDS, timings: FAST, log: () => {} });
    await node.start(h.platform.system);
    await until(() => node.leases.heldShards().length === TEST_SHARDS, 10_000);
    void (async () => {
      for await (const s of stores.nats.status()) if (s.type === 'disconnect' || s.type === 'reconnecting' || s.type === 'error') dropped.push(s.type);
    })();
  });

  afterAll(async () => {
    await node?.stop();
    await h?.close();
  });

  it('GET /v1/payroll/runs/run_enterprise_ + 5,000 letters answers 404 and the connection stays up', async () => {
    const wellFormed = `/v1/payroll/runs/run_enterprise_${'A'.repeat(22)}`;
    const [hostile, odd, beside] = await Promise.all([
      h.request('GET', `/v1/payroll/runs/run_enterprise_${'a'.repeat(5000)}`),
      h.request('GET', '/v1/payroll/runs/run_enterprise_%2A%3E%20.x'),
      h.request('GET', wellFormed),
    ]);
    expect([hostile.status, hostile.body.error.code]).toEqual([404, 'not_found']);
    expect(odd.status).toBe(404);
    expect(beside.status).toBe(404);
    expect({ closed: stores.nats.isClosed(), dropped }).toEqual({ closed: false, dropped: [] });
    const after = await h.request('GET', '/v1/payroll/runs');
    expect(after.status).toBe(200);
  });
});
