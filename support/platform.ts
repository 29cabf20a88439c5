/**
 * A bench server: every area (or the given ones) on memory stores and the system clock, the real
 * gateway on a free port, and one registered organisation whose first key the load uses.
 */
import type { Area } from '../kernel/index.ts';

export async function startRegisteredPlatform(areas?: readonly Area[]): Promise<{ port: number; key: string }> {
  const { areas: all } = await import('../actors/index.ts');
  const { startGateway } = await import('../gateway/index.ts');
  const { SystemClock } = await import('../runtime/index.ts');
  const { createPlatform } = await import('../kernel/index.ts');
  const { createMemoryStores } = await import('../stores/index.ts');
  const clock = new SystemClock();
  const platform = await createPlatform({ areas: areas ?? all, stores: createMemoryStores({ now: () => clock.now() }), clock, config: {} });
  const gw = await startGateway(platform, { host: '127.0.0.1', port: 0 });
  const res = await fetch(`http://127.0.0.1:${gw.port}/v1/registrations`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ organisation_name: 'Bench Ltd', name: 'Bench Owner', email: `bench${process.pid}@example.ng`, password: 'bench-violet-kettle-77' }),
  });
  if (res.status >= 300) throw new Error(`bench registration failed: ${res.status} ${await res.text()}`);
  const reg = (await res.json()) as { api_key: { key: string } };
  return { port: gw.port, key: reg.api_key.key };
}
