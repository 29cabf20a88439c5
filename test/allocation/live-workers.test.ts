/**
 * A worker's live entry is loaded once for every caller asking at the same time (live.ts). A load
 * whose read found no worker while the worker was being created must not answer "not found" to
 * the request that created it (spec 4.7: setting availability answers with the worker, the change
 * shown), in one process or in a cluster, where the read and the creation reach the owner apart.
 */
import { describe, expect, it } from 'vitest';
import { activePolicy } from '../../actors/allocation/policy.ts';
import { LiveWorkers } from '../../actors/allocation/supply/live.ts';
import type { WorkerDirectory } from '../../actors/allocation/supply/worker-directory.ts';
import type { WorkerState } from '../../actors/allocation/supply/worker.ts';
import { notFound } from '../../kernel/index.ts';
import { ManualClock } from '../../runtime/index.ts';
import { createMemoryStores } from '../../stores/index.ts';

const ORG = 'org_live';
const created = { id: 'allocation_worker_w1', worker_id: 'w1', version: 1, presence: undefined } as unknown as WorkerState;

/** A directory whose reads the test answers one by one, in the order it chooses. */
function heldDirectory() {
  const reads: Array<{ resolve: (s: WorkerState) => void; reject: (e: unknown) => void }> = [];
  const directory = { state: () => new Promise<WorkerState>((resolve, reject) => reads.push({ resolve, reject })) } as unknown as WorkerDirectory;
  return { directory, reads };
}

async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve();
}

describe('live workers: a load shared with the request that creates the worker (spec 4.7)', () => {
  const clock = new ManualClock();
  const live = (directory: WorkerDirectory) => new LiveWorkers(directory, clock, createMemoryStores({ now: () => clock.now() }).readings, activePolicy().pack);

  it('a read that found no worker while its creation was mirrored reads again and answers the created worker', async () => {
    const { directory, reads } = heldDirectory();
    const workers = live(directory);
    const loading = workers.get(ORG, 'w1'); // a heartbeat's load, begun before the worker exists
    expect(loading).toBeInstanceOf(Promise);
    await settle();
    workers.mirror(ORG, 'w1', created); // the creating command committed and its state was mirrored
    const joined = workers.get(ORG, 'w1'); // the creating request reads its worker: it shares the load
    reads[0]!.reject(notFound('worker', 'w1')); // the owner answered the first read before the creation
    await settle();
    expect(reads).toHaveLength(2);
    reads[1]!.resolve(created);
    const [a, b] = await Promise.all([loading, joined]);
    expect(a.state).toBe(created);
    expect(b).toBe(a);
  });

  it('with no commit mirrored meanwhile, not found stays not found', async () => {
    const { directory, reads } = heldDirectory();
    const workers = live(directory);
    const loading = workers.get(ORG, 'w2');
    await settle();
    reads[0]!.reject(notFound('worker', 'w2'));
    await expect(loading).rejects.toMatchObject({ code: 'not_found' });
    expect(reads).toHaveLength(1);
  });
});
