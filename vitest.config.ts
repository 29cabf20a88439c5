import { fileURLToPath } from 'node:url';
import { Socket } from 'node:net';
import { defineConfig } from 'vitest/config';

/**
 * One suite, three store families (DESIGN "Stores"). `embedded` runs every test over the memory
 * stores; `local` runs the same files over the local stores (LMDB in a temporary directory per
 * store set); `cluster` runs them over NATS JetStream and Redis (support/stores.ts reads
 * TEST_STORES), plus test/cluster/ (sharding, failover), which only makes sense clustered.
 *
 * test/architecture/ reads the source, not the stores: it runs once, in `embedded`. So do the
 * console's browser tests (test/console/*.browser.test.ts): they check the page, which talks to the
 * platform only over HTTP and the socket, whose behaviour over each family the HTTP tests check.
 *
 * When NATS or Redis is unreachable the cluster project is left out with a notice; under CI=true
 * it stays in, so its tests fail rather than being skipped.
 *
 * Files are not isolated from one another (isolate: false): a worker loads the platform's modules
 * once and runs file after file on them, where a fresh process per file would load them again for
 * each, which costs more than most files' tests (docs/architecture.md "The test suite's time").
 * What a file opens it closes: each starts its own platform over its own stores (support/stores.ts
 * gives every store set a directory or namespace of its own, and support/setup.ts closes what a
 * file left open), and a test that swaps a shared module's state (the root log, a console spy)
 * puts it back.
 */
const BROWSER = 'test/console/**/*.browser.test.ts';
const natsUrl = process.env.NATS_URL ?? '127.0.0.1:4222';
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

function hostPort(url: string, defaultPort: number): { host: string; port: number } {
  const u = new URL(url.includes('://') ? url : `tcp://${url}`);
  return { host: u.hostname || '127.0.0.1', port: Number(u.port) || defaultPort };
}

function reachable(url: string, defaultPort: number): Promise<boolean> {
  const { host, port } = hostPort(url, defaultPort);
  return new Promise((resolve) => {
    const s = new Socket();
    const done = (ok: boolean) => {
      s.destroy();
      resolve(ok);
    };
    s.setTimeout(1000, () => done(false));
    s.once('error', () => done(false));
    s.connect(port, host, () => done(true));
  });
}

export default defineConfig(async () => {
  const ci = process.env.CI === 'true';
  const up = (await reachable(natsUrl, 4222)) && (await reachable(redisUrl, 6379));
  if (!up && !ci) console.warn(`[vitest] NATS (${natsUrl}) or Redis (${redisUrl}) unreachable: the cluster project is skipped (CI=true makes this a failure).`);
  // every platform a test starts, in process or as a child, takes the open rate and sandbox
  // policies (figures no test reaches; the rate-limit and sandbox-cap tests name their own pack in
  // the platform's config) and serves its metrics on a free port, so platforms started side by
  // side never contend for one
  const open = (pack: string) => fileURLToPath(new URL(`./support/${pack}-open.json`, import.meta.url));
  const env = { NATS_URL: natsUrl, REDIS_URL: redisUrl, RATE_POLICY_FILE: open('rate-policy'), SANDBOX_POLICY_FILE: open('sandbox-policy'), METRICS_PORT: '0' };
  return {
    test: {
      testTimeout: 30_000,
      hookTimeout: 30_000,
      pool: 'forks',
      isolate: false,
      reporters: ['default'],
      setupFiles: ['support/setup.ts'],
      projects: [
        { extends: true, test: { name: 'embedded', include: ['test/**/*.test.ts'], exclude: ['test/cluster/**'], env: { ...env, TEST_STORES: 'memory' } } },
        { extends: true, test: { name: 'local', include: ['test/**/*.test.ts'], exclude: ['test/cluster/**', 'test/architecture/**', BROWSER], env: { ...env, TEST_STORES: 'local' } } },
        ...(up || ci ? [{ extends: true, test: { name: 'cluster', include: ['test/**/*.test.ts'], exclude: ['test/architecture/**', BROWSER], env: { ...env, TEST_STORES: 'cluster' } } }] : []),
      ],
    },
  };
});
