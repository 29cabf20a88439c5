/**
 * What allocation bench parts (b) and (c) share: an embedded platform (memory stores, this
 * process) with the real gateway and an organisation registered through it, a bounded parallel
 * loop for set-up, a worker with a live passport made through the API, and the machine's load.
 */
import { loadavg } from 'node:os';
import type { Clock } from '../../../runtime/index.ts';
import { apiCaller } from '../../api-call.ts';
import { round } from '../../report.ts';
import { noopArea } from '../../../support/noop-area.ts';

export const load = () => `machine load average ${round(loadavg()[0], 1)} on 2 cores`;

export type Embedded = Awaited<ReturnType<typeof embedded>>;

/** An embedded platform with the real gateway and an organisation registered through it. */
export async function embedded(name: string, clock: Clock) {
  const { areas } = await import('../../../actors/index.ts');
  const { startGateway } = await import('../../../gateway/index.ts');
  const { createPlatform } = await import('../../../kernel/index.ts');
  const { createMemoryStores } = await import('../../../stores/index.ts');
  const platform = await createPlatform({ areas: [...areas, noopArea], stores: createMemoryStores({ now: () => clock.now() }), clock, config: {} });
  const gw = await startGateway(platform, { host: '127.0.0.1', port: 0 });
  const call = apiCaller(`http://127.0.0.1:${gw.port}`);
  const reg = await call('POST', '/v1/registrations', { organisation_name: `Bench ${name} Ltd`, name: 'Bench Owner', email: `${name.toLowerCase()}${process.pid}@example.ng`, password: 'bench-amber-lantern-58' });
  return { platform, gw, call, key: reg.api_key.key as string, org: reg.organisation.id as string };
}

/** Stops the gateway and the platform of `e`. */
export async function closeEmbedded(e: Embedded): Promise<void> {
  const { stopPlatform } = await import('../../../kernel/index.ts');
  await e.gw.close(0);
  await stopPlatform(e.platform);
}

/** f(0) .. f(n - 1), `width` at a time, answers in order. */
export async function parallel<T>(n: number, width: number, f: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array(n);
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < n) {
      const i = next++;
      out[i] = await f(i);
    }
  }));
  return out;
}

/** A consent token and a resolved verification for subject `s`: a live passport. */
export async function livePassport(e: Embedded, s: string): Promise<void> {
  const t = await e.call('POST', '/v1/identity/consent_tokens', { subject_ref: s, purpose: 'employment_verification', checks: ['government_identifier', 'name_match', 'date_of_birth_match'], wording_version: 'v1' }, e.key);
  const v = await e.call('POST', '/v1/identity/verifications', { subject_ref: s, consent_token_id: t.id, claims: { full_name: 'Bench Worker', date_of_birth: '1990-01-01', government_identifier: '70123456789' } }, e.key);
  if (v.outcome !== 'resolved') throw new Error(`passport of ${s}: ${JSON.stringify(v)}`);
}
