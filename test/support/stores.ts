/**
 * The store family a test runs over. TEST_STORES=memory (default) or cluster; the cluster family
 * is added by the cluster work (issue 4) behind this same function.
 */
import type { Clock } from '../../runtime/index.ts';
import { createMemoryStores, type Stores } from '../../stores/index.ts';

export async function testStores(clock: Clock, _opts: { namespace?: string } = {}): Promise<Stores> {
  return createMemoryStores({ now: () => clock.now() });
}
