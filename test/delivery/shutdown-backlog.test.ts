/**
 * SIGTERM with a webhook backlog (docs/gaps.md#delivery "Shutdown"): `npm start` as a child
 * process with hundreds of attempts queued behind a receiver that never answers exits within its
 * grace, logs no fault per attempt, and fails no delivery: after a restart on the same data
 * directory every delivery is still pending (in flight under its watchdog, retried from there).
 * Run in the local project, like test/platform/main.test.ts.
 */
import http from 'node:http';
import { Agent } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { exitOf, startMain } from '../../support/main-process.ts';
import { jsonCall } from '../../support/node-http.ts';
import { tempDir } from '../../support/stores.ts';

const GRACE_MS = 12_000;
const BACKLOG = 300;
const REGISTRATION = { organisation_name: 'Backlog Ltd', name: 'Ada Obi', email: 'ada@backlog.example', password: 'a long unusual passphrase' };

describe.runIf(process.env.TEST_STORES === 'local')('SIGTERM with a webhook backlog (docs/gaps.md#delivery)', () => {
  it('exits 0 within the grace, with no stack trace per attempt; after a restart no delivery has failed and every one is still pending', async () => {
    const hanging: http.ServerResponse[] = [];
    let arrived = 0;
    let enough: () => void = () => {};
    const full = new Promise<void>((r) => (enough = r));
    const receiver = http.createServer((req, res) => {
      hanging.push(res);
      if (++arrived === 16) enough(); // the endpoint's share of attempts in flight
      req.resume();
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const env = { DATA_DIR: tempDir('wf-backlog-'), WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', RATE_POLICY_FILE: 'support/rate-policy-open.json', SHUTDOWN_GRACE_MS: String(GRACE_MS),
      // Attempts in flight would wait a minute for their answer: only abandoning them ends them within the grace.
      WEBHOOK_RECEIVER_TIMEOUT_MS: '60000' };
    const agent = new Agent({ keepAlive: true, maxSockets: 8 });
    try {
      const first = await startMain(env);
      const call = (method: string, path: string, key: string | null, body?: unknown, p = first.port) =>
        jsonCall(p, method, path, { ...(key ? { 'service-api-key': key } : {}), ...(method === 'POST' ? { 'idempotency-key': `k-${Math.random()}` } : {}) }, body, { agent, timeoutMs: 30_000 });
      const reg = await call('POST', '/v1/registrations', null, REGISTRATION);
      expect(reg.status).toBe(200);
      const key = reg.body.api_key.key as string;
      const ep = await call('POST', '/v1/webhook_endpoints', key, { url });
      expect(ep.status).toBe(200);
      const ids: string[] = [];
      for (let i = 0; i < BACKLOG; i += 20) {
        const batch = await Promise.all(Array.from({ length: 20 }, () => call('POST', `/v1/webhook_endpoints/${ep.body.id}/test`, key, {})));
        for (const b of batch) ids.push(b.body.id);
      }
      expect(ids.every((id) => /^webhook_delivery_/.test(id))).toBe(true);
      await full;
      agent.destroy(); // no idle keep-alive connection of ours holds the gateway's close

      const exited = exitOf(first.child);
      const signalledAt = performance.now();
      first.child.kill('SIGTERM');
      const code = await exited;
      expect(code).toBe(0);
      expect(performance.now() - signalledAt).toBeLessThan(GRACE_MS);
      const out = first.output();
      expect(out).toContain('stopped cleanly');
      expect(out).not.toContain('shutting down; retry');
      expect(out).not.toContain('attempt not recorded');
      expect(out.split('\n').filter((l) => /^\s+at /.test(l))).toEqual([]);

      const second = await startMain(env);
      try {
        const all: any[] = [];
        for (let after: string | undefined; ; ) {
          const page = await jsonCall(second.port, 'GET', `/v1/webhook_deliveries?limit=100${after ? `&starting_after=${after}` : ''}`, { 'service-api-key': key }, undefined, { agent: false, timeoutMs: 30_000 });
          all.push(...page.body.data);
          if (!page.body.has_more) break;
          after = page.body.data.at(-1).id;
        }
        expect(all.map((d) => d.id).sort()).toEqual([...ids].sort());
        for (const d of all) expect(d).toMatchObject({ failed_at: null, delivered_at: null, attempts: 1 });
      } finally {
        second.child.kill('SIGKILL');
        await exitOf(second.child);
      }
    } finally {
      agent.destroy();
      for (const h of hanging) h.destroy();
      receiver.closeAllConnections();
      await new Promise<void>((r) => receiver.close(() => r()));
    }
  }, 90_000);
});
