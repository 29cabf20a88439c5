/**
 * What a scenario counts once its fault is over, each against zero: acknowledged creates missing
 * from the journal (lost), keys created more than once (duplicates), acknowledged API keys that no
 * longer authenticate, and acknowledged keys missing from their list after the platform settles
 * (list indexes live in Redis and are rebuilt from the journal, so the list is polled to a deadline).
 */
import type { ClusterStores } from '../../stores/index.ts';
import type { Proc } from '../../support/chaos/index.ts';
import { ask, sleep, through } from './client.ts';
import type { KeyedWrite } from './keyed-load.ts';

const PARALLEL = 32;
export const SETTLE_MS = Number(process.env.BENCH_CHAOS_SETTLE_MS ?? 120_000);

export interface JournalCounts {
  lost: number;
  duplicates: number;
}

/** Reads the whole journal feed: api_key.created events per Idempotency-Key (each key is named after its key). */
export async function journalCounts(stores: ClusterStores, writes: readonly KeyedWrite[]): Promise<JournalCounts> {
  const byName = new Map<string, number>();
  const ids = new Set<string>();
  for (let after = 0; ; ) {
    const page = await stores.journal.readFeed(after, 1000);
    if (page.length === 0) break;
    for (const f of page) {
      const data = f.event.data as { type?: string; name?: string };
      if (!f.stream.startsWith('api_key.') || data.type !== 'api_key.created') continue;
      ids.add(f.stream.slice('api_key.'.length));
      byName.set(data.name!, (byName.get(data.name!) ?? 0) + 1);
    }
    after = page[page.length - 1].position;
  }
  let duplicates = 0;
  for (const n of byName.values()) duplicates += n - 1;
  const acked = writes.filter((w) => w.acked !== undefined);
  return { lost: acked.filter((w) => !ids.has(w.id!)).length, duplicates };
}

/** Acknowledged keys whose secret is now refused (401/403), of those acknowledged before `before` and of all. */
export async function deadCredentials(procs: readonly Proc[], writes: readonly KeyedWrite[], before: number): Promise<{ dead: number; deadBefore: number; checked: number; checkedBefore: number }> {
  const withSecret = writes.filter((w) => w.acked !== undefined && w.secret);
  const dead = new Set<KeyedWrite>();
  let next = 0;
  await Promise.all(
    Array.from({ length: PARALLEL }, async (_, n) => {
      for (let i = next++; i < withSecret.length; i = next++) {
        const w = withSecret[i];
        const { reply } = await through(procs, n, 'GET', '/v1/api_keys?limit=1', { 'service-api-key': w.secret! });
        if (reply.status !== 200) dead.add(w);
      }
    }),
  );
  const early = withSecret.filter((w) => w.acked! < before);
  return { dead: dead.size, deadBefore: early.filter((w) => dead.has(w)).length, checked: withSecret.length, checkedBefore: early.length };
}

/** Every API key id in the organisation's list, paged newest first. */
async function listed(procs: readonly Proc[], apiKey: string): Promise<Set<string>> {
  const out = new Set<string>();
  for (let after: string | undefined; ; ) {
    const r = await ask(procs, apiKey, 'GET', `/v1/api_keys?limit=100${after ? `&starting_after=${after}` : ''}`);
    if (r.status !== 200) throw new Error(`list refused: ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
    for (const k of r.body.data) out.add(k.id);
    if (!r.body.has_more || r.body.data.length === 0) return out;
    after = r.body.data[r.body.data.length - 1].id;
  }
}

/** Polls the list until every acknowledged key is in it or SETTLE_MS passes: how many are missing then, and when it was whole. */
export async function missingFromList(procs: readonly Proc[], apiKey: string, writes: readonly KeyedWrite[]): Promise<{ missing: number; wholeAfterMs: number }> {
  const ids = writes.filter((w) => w.acked !== undefined).map((w) => w.id!);
  const began = performance.now();
  for (;;) {
    let missing = ids.length;
    try {
      const have = await listed(procs, apiKey);
      missing = ids.filter((id) => !have.has(id)).length;
    } catch {
      // a list read refused mid-settling: looked at again
    }
    const waited = performance.now() - began;
    if (missing === 0) return { missing, wholeAfterMs: waited };
    if (waited > SETTLE_MS) return { missing, wholeAfterMs: Infinity };
    await sleep(1000);
  }
}
