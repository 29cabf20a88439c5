/** Runs around every test file (vitest setupFiles): cluster stores a file left open are removed. */
import { afterAll } from 'vitest';
import { closeLeftoverStores } from './stores.ts';

afterAll(async () => {
  await closeLeftoverStores();
});
