/**
 * An acknowledgement is a promise (STYLE; DESIGN "Stores": what the platform acknowledged is never
 * lost). `npm start` over the local stores, under concurrent keyed creates, killed -9 at seeded
 * random points and restarted on the same data directory (support/local-node.ts, crashLoop).
 *
 * The test spawns its own processes on a directory of its own, whatever family the project runs
 * the suite over, so it runs in the local project only.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { crashLoop } from '../../support/local-node.ts';
import { tempDir } from '../../support/stores.ts';

const root = tempDir('wf-crash-');

describe.runIf(process.env.TEST_STORES === 'local')('an acknowledgement is a promise: npm start killed -9 under keyed creates (DESIGN "Stores")', () => {
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it(
    'after 10 kills and restarts on one directory, every acknowledged create is readable, none exists twice, every create in doubt ends exactly once, and every retried key replays its first answer',
    async () => {
      const r = await crashLoop({ dir: join(root, 'data'), kills: 10, clients: 8, seed: 0x5eed33, acksBetweenKills: [4, 60], replaysPerKill: 8 });

      expect(r.refused).toEqual([]);
      expect(r.stalls).toEqual([]); // every restarted process went on answering
      expect(r.lost).toEqual([]);
      expect(r.duplicates).toEqual([]);
      // every key attempted ends as exactly one record, acknowledged at once or after its retry
      expect(r.records).toBe(r.acknowledged + r.inDoubt);
      expect(r.replayMismatches).toEqual([]);
      // guards against an empty comparison: the loop created, killed mid-request and replayed
      expect(r.restartMs.length).toBeGreaterThanOrEqual(10);
      expect(r.acknowledged).toBeGreaterThanOrEqual(40);
      expect(r.inDoubt).toBeGreaterThan(0);
      expect(r.replays).toBeGreaterThanOrEqual(40);
    },
    180_000,
  );
});
