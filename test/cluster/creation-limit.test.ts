/**
 * A limit on creation across nodes (runtime ActorSystem.limitCreation; the kernel's sandbox caps
 * set it): the limit is asked on the node a request reached, and the refusal it gives travels with
 * the ask to the node that owns the record, which refuses only where the command would create it
 * (403 sandbox_record_limit_reached); a record that exists is acted on as asked.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../runtime/index.ts';
import { testNamespace } from '../../support/stores.ts';
import { Counter } from '../runtime/counter.ts';
import { TestCluster } from './nodes.ts';

const ORG = 'org_limit';
const cluster = new TestCluster(testNamespace('limit'), new ManualClock(), [Counter]);
afterAll(() => cluster.close(), 120_000);

describe('creation limit across nodes (docs/gaps.md#sandbox-caps)', { timeout: 120_000 }, () => {
  it('a create refused on the asking node is refused on the owning node; an existing record is acted on; another request creates', async () => {
    const [asking, owning] = await cluster.grow(2);
    const owned = Array.from({ length: 200 }, (_, i) => `ctr_limit_${i}`).filter((id) => owning.node.isLocal(Counter.kind, id));
    const [fresh, existing] = owned;
    expect(existing).toBeDefined();
    await asking.system.ask(Counter, existing, 'open', {}, { org: ORG });
    asking.system.limitCreation((opts) => (opts.requestId === 'req_capped' ? 'capped for this test' : undefined));
    try {
      const refused = await asking.system.ask(Counter, fresh, 'open', {}, { org: ORG, requestId: 'req_capped' }).catch((e: unknown) => e);
      expect(refused).toMatchObject({ code: 'sandbox_record_limit_reached', status: 403, message: 'capped for this test' });
      await expect(owning.system.get(Counter, fresh, ORG)).rejects.toMatchObject({ code: 'not_found' });
      // the creating command on a record that exists runs as its rules say, and other commands are not asked about
      expect(await asking.system.ask(Counter, existing, 'open', {}, { org: ORG, requestId: 'req_capped' })).toMatchObject({ id: existing });
      expect(await asking.system.ask(Counter, existing, 'add', { n: 2 }, { org: ORG, requestId: 'req_capped' })).toMatchObject({ total: 2 });
      expect(await asking.system.ask(Counter, fresh, 'open', {}, { org: ORG, requestId: 'req_other' })).toMatchObject({ id: fresh });
    } finally {
      asking.system.limitCreation(undefined);
    }
  });
});
