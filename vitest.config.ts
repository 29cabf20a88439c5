import { defineConfig } from 'vitest/config';

/**
 * One suite, two store families (issue 4): `embedded` runs every test over the memory stores;
 * `cluster` runs the same files over NATS JetStream and Redis (see test/support/stores.ts).
 */
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    reporters: ['default'],
  },
});
