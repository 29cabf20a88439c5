/**
 * Waits on wall time for a condition, bounded by a deadline (for what runs on wall time: leases,
 * their renewal ticks); resolves with the time it took, or fails naming the bound.
 */
export async function until(cond: () => boolean | Promise<boolean>, ms: number): Promise<number> {
  const start = performance.now();
  while (!(await cond())) {
    if (performance.now() - start > ms) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 5));
  }
  return performance.now() - start;
}

/** Resolves once `done()` holds, looking once per turn of the event loop (no timer, no wall time). */
export async function untilTurn(done: () => boolean): Promise<void> {
  for (let turns = 0; !done(); turns++) {
    if (turns > 1_000_000) throw new Error('the condition never came true');
    await new Promise((r) => setImmediate(r));
  }
}
