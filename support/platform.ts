/**
 * A bench server: every area (or the given ones) on memory or local stores and the system clock,
 * the real gateway on a free port, and one registered organisation whose first key the load uses.
 */
import { rmSync } from 'node:fs';
import type { Area } from '../kernel/index.ts';
import { tempDir } from './stores.ts';

/**
 * `family` local: the durable stores `npm start` runs on, in a temporary data directory removed
 * when the process exits (a bench's server is stopped by a signal, and exits).
 */
export async function startRegisteredPlatform(areas?: readonly Area[], family: 'memory' | 'local' = 'memory'): Promise<{ port: number; key: string }> {
  const { areas: all } = await import('../actors/index.ts');
  const { startGateway } = await import('../gateway/index.ts');
  const { SystemClock } = await import('../runtime/index.ts');
  const { createPlatform } = await import('../kernel/index.ts');
  const { createLocalStores, createMemoryStores } = await import('../stores/index.ts');
  const clock = new SystemClock();
  const now = () => clock.now();
  let stores;
  if (family === 'local') {
    const dir = tempDir('wf-bench-');
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    stores = createLocalStores({ dir, now });
  } else stores = createMemoryStores({ now });
  const platform = await createPlatform({ areas: areas ?? all, stores, clock, config: {} });
  const gw = await startGateway(platform, { host: '127.0.0.1', port: 0 });
  return { port: gw.port, key: await registerBenchOrganisation(gw.port, `bench${process.pid}@example.ng`) };
}

/** Registers Bench Ltd on the platform at `port` with `email`; its first API key. */
export async function registerBenchOrganisation(port: number, email: string): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${port}/v1/registrations`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ organisation_name: 'Bench Ltd', name: 'Bench Owner', email, password: 'bench-violet-kettle-77' }),
  });
  if (res.status >= 300) throw new Error(`bench registration failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { api_key: { key: string } }).api_key.key;
}
