/**
 * Over durable stores the read models every node keeps in memory (the identity gate, engagement
 * standing) are rebuilt from the journal at start, before the platform serves (DESIGN "Stores",
 * "Gates between areas"; docs/architecture.md "Read models every node keeps"): a worker eligible
 * before a restart is eligible the moment the platform is back. Run in the local project only: it
 * restarts on one directory.
 */
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { areas } from '../../actors/index.ts';
import { identityGate } from '../../actors/identity/index.ts';
import { engagementStanding } from '../../actors/engagements/index.ts';
import { createPlatform, stopPlatform } from '../../kernel/index.ts';
import { ManualClock } from '../../runtime/index.ts';
import { startHarness } from '../../support/http.ts';
import { localTestStores, tempDir } from '../../support/stores.ts';
import { dispatchKit } from '../allocation/dispatch-support.ts';

const dir = tempDir('wf-read-models-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.runIf(process.env.TEST_STORES === 'local')('read models after a restart (DESIGN "Stores")', () => {
  it('the identity gate and engagement standing know every worker of the journal as soon as the platform is back', async () => {
    const clock = new ManualClock();
    let h = await startHarness({ clock, stores: localTestStores(clock, { dir }) });
    const kit = dispatchKit(h);
    const p = kit.centre();
    const eligible = (await kit.worker(p, 100)).worker;
    const unverified = (await kit.worker(p, 200, { passport: false })).worker;
    await h.platform.system.settle();
    const org = h.org;
    await h.close();

    h = await startHarness({ clock, stores: localTestStores(clock, { dir }) });
    try {
      // no settle(): createPlatform has already read the journal into them
      expect(identityGate(h.platform).isLive(org, eligible)).toBe(true);
      expect(identityGate(h.platform).isLive(org, unverified)).toBe(false);
      expect(engagementStanding(h.platform).isCurrent(org, eligible)).toBe(true);
      expect(engagementStanding(h.platform).isCurrent(org, unverified)).toBe(false);
    } finally {
      await h.close();
    }
  });

  it('a start reads the journal once for all the read models it rebuilds, not once for each (kernel platformFeed perNode)', async () => {
    const clock = new ManualClock();
    const own = tempDir('wf-read-models-once-');
    const h = await startHarness({ clock, stores: localTestStores(clock, { dir: own }) });
    const kit = dispatchKit(h);
    const p = kit.centre();
    await kit.worker(p, 100);
    await kit.worker(p, 200);
    await h.platform.system.settle();
    await h.close();
    const stores = localTestStores(clock, { dir: own });
    const feedLength = (await stores.journal.readFeed(0, Number.MAX_SAFE_INTEGER)).length;
    let read = 0;
    const readFeed = stores.journal.readFeed.bind(stores.journal);
    stores.journal.readFeed = async (after, limit) => {
      const out = await readFeed(after, limit);
      read += out.length;
      return out;
    };
    const platform = await createPlatform({ areas, stores, clock, config: {} });
    try {
      // every reader of a cursor kept in the store is at the end already; the per-node ones share one pass
      expect(feedLength).toBeGreaterThan(50);
      expect(read).toBe(feedLength);
    } finally {
      await stopPlatform(platform);
      rmSync(own, { recursive: true, force: true });
    }
  });
});
